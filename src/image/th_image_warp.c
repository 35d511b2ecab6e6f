/*
** th_image_warp.c: image.warp, resampling an image along a flow field:
** destination pixel (y, x) takes the source at (y + flow[1][y][x],
** x + flow[2][y][x]) (or at the flow alone without the offset), in pixels
** from 0, interpolated 'simple' (nearest), bilinear, bicubic (Catmull-Rom)
** or Lanczos (a = 3), as Torch7's. A position off the source is clamped to
** its border, or gives the pad value in pad mode; bicubic taps off the
** source read the pad value (Torch7's). Float and Double (generic/warp.c).
*/
#include <math.h>
#include <stdlib.h>
#include "th_image.h"
#include "../tensor/th_error.h"
#include "../tensor/th_generic.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct plane_geom {
  int64_t planes, h, w;
} plane_geom;

/* Catmull-Rom through p1 (x = 0) and p2 (x = 1) */
static double warp_cubic(double p0, double p1, double p2, double p3, double x) {
  return p1 + 0.5 * x * (p2 - p0 + x * (2 * p0 - 5 * p1 + 4 * p2 - p3 + x * (3 * (p1 - p2) + p3 - p0)));
}

#define TH_GENERIC_FILE "../image/generic/warp.c"
#include "../tensor/th_generic_floating.h"

int th_image_warp(th_tensor *dst, const th_tensor *src, const th_tensor *flow, th_image_interp mode,
                  int offset, int pad, double pad_value) {
  plane_geom g;
  th_tensor in, fl;
  char a[128], b[128];
  int64_t size[3];
  int rc = TH_ERR;
  if (!TH_IS_FLOATING(src->dtype) || src->ndim != 3 || th_tensor_numel(src) == 0)
    return th_error_set("input must be a non-empty Float or Double tensor C x H x W, got %s",
                        th_tensor_sizestr(src, a, sizeof a));
  if (flow->dtype != src->dtype || flow->ndim != 3 || flow->size[0] != 2)
    return th_error_set("flow field must be 2 x H x W of the input's type, got torch.%sTensor %s",
                        th_dtype_name[flow->dtype], th_tensor_sizestr(flow, b, sizeof b));
  if (dst->dtype != src->dtype) return th_error_set("internal: result of another type");
  if (dst->storage != NULL && (dst->storage == src->storage || dst->storage == flow->storage))
    return th_error_set("result must not share memory with the input or the flow field");
  if ((int)mode < 0 || mode > TH_IMAGE_LANCZOS) return th_error_set("internal: mode %d", (int)mode);
  g.planes = src->size[0], g.h = src->size[1], g.w = src->size[2];
  size[0] = g.planes, size[1] = flow->size[1], size[2] = flow->size[2];
  if (th_tensor_resize(dst, 3, size) != TH_OK) return TH_ERR;
  if (size[1] * size[2] == 0) return TH_OK;
  th_tensor_init(&in, src->dtype);
  th_tensor_init(&fl, src->dtype);
  if (th_tensor_contiguous(&in, src) == TH_OK && th_tensor_contiguous(&fl, flow) == TH_OK)
    rc = TH_DISPATCH_FLOATING(src->dtype, warp_run,
                              (&in, &fl, dst, &g, size[1], size[2], mode, offset, pad, pad_value),
                              "image.warp");
  th_tensor_clear(&in);
  th_tensor_clear(&fl);
  return rc;
}
