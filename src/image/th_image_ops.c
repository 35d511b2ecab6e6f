/*
** th_image_ops.c: image resampling (scale, rotate), colour space
** conversions (HSL, HSV, CIE Lab) and plane-by-plane 2D convolution for Float and Double
** tensors (kernels in generic/ops.c, instantiated per type). Inputs are
** read through a contiguous copy and seen as 'planes' x H x W; results
** are resized, contiguous, of the input's dtype. Interpolation follows
** Torch7's image package: bilinear scaling is separable (rows, then
** columns), interpolating with aligned corners when enlarging and
** averaging the covered source area when shrinking; bicubic is the
** separable Catmull-Rom spline with aligned corners; 'simple' is nearest.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "th_image.h"
#include "../tensor/th_error.h"
#include "../tensor/th_generic.h"
#include "../tensor/th_pool.h"

typedef struct plane_geom {
  int64_t planes, h, w;
} plane_geom;

static int check_image(const th_tensor *src, const char *what, plane_geom *g) {
  char s[128];
  if (!TH_IS_FLOATING(src->dtype))
    return th_error_set("%s must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        what, th_dtype_name[src->dtype]);
  if ((src->ndim != 2 && src->ndim != 3) || th_tensor_numel(src) == 0)
    return th_error_set("%s must be an image C x H x W or H x W, got %dD %s", what, src->ndim,
                        th_tensor_sizestr(src, s, sizeof s));
  g->planes = src->ndim == 3 ? src->size[0] : 1;
  g->h = src->size[src->ndim - 2];
  g->w = src->size[src->ndim - 1];
  return TH_OK;
}

/* dst takes the dtype of src and the size planes x h x w (h x w for 2D src) */
static int prepare_dst(th_tensor *dst, const th_tensor *src, int64_t h, int64_t w) {
  int64_t size[3];
  int nd = 0;
  if (dst->dtype != src->dtype)
    return th_error_set("result must be a torch.%sTensor like the input, got torch.%sTensor",
                        th_dtype_name[src->dtype], th_dtype_name[dst->dtype]);
  if (src->ndim == 3) size[nd++] = src->size[0];
  size[nd++] = h;
  size[nd++] = w;
  return th_tensor_resize(dst, nd, size);
}

/* 'tmp' (initialised by the caller) becomes a contiguous view of src, or a
   copy when src is not contiguous or when 'fresh' (dst shares its memory) */
static int contiguous(th_tensor *tmp, const th_tensor *src, int fresh) {
  if (fresh) return th_tensor_resize_as(tmp, src) == TH_OK ? th_tensor_copy(tmp, src) : TH_ERR;
  if (th_tensor_is_contiguous(src)) {
    th_tensor_set_tensor(tmp, src);
    return TH_OK;
  }
  return th_tensor_contiguous(tmp, src);
}

#define TH_GENERIC_FILE "../image/generic/ops.c"
#include "../tensor/th_generic_floating.h"

int th_image_scale(th_tensor *dst, const th_tensor *src, int64_t width, int64_t height,
                   th_image_interp mode) {
  plane_geom g = {0, 0, 0};
  th_tensor in;
  int rc = TH_ERR;
  if (check_image(src, "input", &g) != TH_OK) return TH_ERR;
  if (width < 1 || height < 1 || width > INT32_MAX || height > INT32_MAX)
    return th_error_set("output size must be positive, got %lldx%lld (width x height)",
                        (long long)width, (long long)height);
  if (dst->storage != NULL && src->storage == dst->storage)
    return th_error_set("result must not share memory with the input");
  if (prepare_dst(dst, src, height, width) != TH_OK) return TH_ERR;
  th_tensor_init(&in, src->dtype);
  if (contiguous(&in, src, 0) == TH_OK)
    rc = TH_DISPATCH_FLOATING(src->dtype, scale_run, (&in, dst, &g, mode), "image.scale");
  th_tensor_clear(&in);
  return rc;
}

int th_image_rotate(th_tensor *dst, const th_tensor *src, double theta, th_image_interp mode) {
  plane_geom g = {0, 0, 0};
  th_tensor in;
  int rc = TH_ERR;
  if (check_image(src, "input", &g) != TH_OK) return TH_ERR;
  if (!isfinite(theta)) return th_error_set("angle must be finite, got %g", theta);
  if (prepare_dst(dst, src, g.h, g.w) != TH_OK) return TH_ERR;
  th_tensor_init(&in, src->dtype);
  /* a private copy when dst shares src's memory (rotation in place) */
  if (contiguous(&in, src, src->storage == dst->storage) == TH_OK)
    rc = TH_DISPATCH_FLOATING(src->dtype, rotate_run, (&in, dst, &g, theta, mode), "image.rotate");
  th_tensor_clear(&in);
  return rc;
}

int th_image_color_convert(th_tensor *dst, const th_tensor *src, th_image_color conv) {
  plane_geom g = {0, 0, 0};
  th_tensor in;
  char s[128];
  int rc = TH_ERR;
  if (check_image(src, "input", &g) != TH_OK) return TH_ERR;
  if (src->ndim != 3 || g.planes != 3)
    return th_error_set("input must be a 3-channel image 3 x H x W, got %s",
                        th_tensor_sizestr(src, s, sizeof s));
  if ((int)conv < 0 || conv > TH_IMAGE_LAB2RGB) return th_error_set("internal: conversion %d", conv);
  th_tensor_init(&in, src->dtype);
  /* a private copy when dst shares src's memory (conversion in place) */
  if (contiguous(&in, src, src->storage == dst->storage) == TH_OK &&
      prepare_dst(dst, src, g.h, g.w) == TH_OK)
    rc = TH_DISPATCH_FLOATING(src->dtype, color_run, (&in, dst, g.h * g.w, conv), "image colour");
  th_tensor_clear(&in);
  return rc;
}

int th_image_conv2(th_tensor *dst, const th_tensor *src, const th_tensor *kernel, int full) {
  plane_geom g = {0, 0, 0}, k = {0, 0, 0};
  th_tensor in, ker;
  char a[128], b[128];
  int64_t oh, ow;
  int rc = TH_ERR;
  if (check_image(src, "input", &g) != TH_OK || check_image(kernel, "kernel", &k) != TH_OK)
    return TH_ERR;
  if (kernel->dtype != src->dtype)
    return th_error_set("kernel must be a torch.%sTensor like the input, got torch.%sTensor",
                        th_dtype_name[src->dtype], th_dtype_name[kernel->dtype]);
  if (kernel->ndim == 3 && (src->ndim != 3 || k.planes != g.planes))
    return th_error_set("kernel %s must have one plane per input plane (input %s)",
                        th_tensor_sizestr(kernel, a, sizeof a), th_tensor_sizestr(src, b, sizeof b));
  if (!full && (k.h > g.h || k.w > g.w))
    return th_error_set("kernel %s larger than the input %s in 'valid' mode",
                        th_tensor_sizestr(kernel, a, sizeof a), th_tensor_sizestr(src, b, sizeof b));
  oh = full ? g.h + k.h - 1 : g.h - k.h + 1;
  ow = full ? g.w + k.w - 1 : g.w - k.w + 1;
  if (dst->storage != NULL && (dst->storage == src->storage || dst->storage == kernel->storage))
    return th_error_set("result must not share memory with the input or the kernel");
  if (prepare_dst(dst, src, oh, ow) != TH_OK) return TH_ERR;
  th_tensor_init(&in, src->dtype);
  th_tensor_init(&ker, src->dtype);
  if (contiguous(&in, src, 0) == TH_OK && contiguous(&ker, kernel, 0) == TH_OK)
    rc = TH_DISPATCH_FLOATING(src->dtype, conv2_run, (&in, &ker, dst, &g, &k, full), "image.convolve");
  th_tensor_clear(&in);
  th_tensor_clear(&ker);
  return rc;
}
