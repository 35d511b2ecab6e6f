/*
** th_nn_pool.c: max and average pooling over 2D windows
** (nn.SpatialMaxPooling, nn.SpatialAveragePooling), with Torch7's
** padding, ceil/floor output sizes and count_include_pad. Planes (batch x
** channels) are independent and run in parallel.
** Max pooling records in 'indices' the 1-based position y * iW + x + 1 of
** each maximum within its plane; backward and nn.SpatialMaxUnpooling
** scatter through it. NaN wins a window, as in Torch7.
*/
#include <math.h>
#include <string.h>
#include <stdatomic.h>
#include "th_nn_internal.h"
#include "../tensor/th_pool.h"
#include "../tensor/th_cpu.h"

typedef struct geom {
  int batch;
  int64_t planes;   /* batch x channels */
  int64_t iH, iW, oH, oW;
} geom;

int64_t th_nn_pool_output_size(int64_t in, int64_t k, int64_t d, int64_t pad, int ceil_mode) {
  int64_t n = in + 2 * pad - k, o;
  if (n < 0) return 0;
  o = (ceil_mode ? (n + d - 1) / d : n / d) + 1;
  /* the last window must start inside the image or its left padding (in
     ceil mode it could start in the right padding and see nothing) */
  if ((o - 1) * d >= in + pad) o--;
  return o;
}

static int check_geom(const th_tensor *input, const th_nn_window *w, int ceil_mode, geom *g) {
  char a[128];
  if (th_nn_check_window(w) != TH_OK) return TH_ERR;
  if (w->padW > w->kW / 2 || w->padH > w->kH / 2)
    return th_error_set("padding must be at most half the kernel size, got padding %lld,%lld for kernel %lldx%lld",
                        (long long)w->padW, (long long)w->padH, (long long)w->kW, (long long)w->kH);
  if (!TH_IS_FLOATING(input->dtype))
    return th_error_set("input must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[input->dtype]);
  if (!(input->ndim == 3 || input->ndim == 4) || th_tensor_numel(input) == 0)
    return th_error_set("input must be 3D or 4D (batch), got %dD %s", input->ndim,
                        th_tensor_sizestr(input, a, sizeof a));
  g->batch = input->ndim == 4;
  g->planes = input->size[0] * (g->batch ? input->size[1] : 1);
  g->iH = input->size[input->ndim - 2];
  g->iW = input->size[input->ndim - 1];
  g->oH = th_nn_pool_output_size(g->iH, w->kH, w->dH, w->padH, ceil_mode);
  g->oW = th_nn_pool_output_size(g->iW, w->kW, w->dW, w->padW, ceil_mode);
  if (g->oH < 1 || g->oW < 1)
    return th_error_set("input %s is smaller than the %lldx%lld window (with padding %lld,%lld)",
                        th_tensor_sizestr(input, a, sizeof a), (long long)w->kW, (long long)w->kH,
                        (long long)w->padW, (long long)w->padH);
  return TH_OK;
}

static int output_like(const th_tensor *input, const geom *g, int64_t *size) {
  const int64_t o[2] = {g->oH, g->oW};
  return th_nn_sizes_like(input, 2, o, size);
}

static int check_grad_output(const th_tensor *gradOutput, const th_tensor *input, const geom *g) {
  int64_t size[4];
  return th_nn_check_grad_sizes(gradOutput, input->dtype, output_like(input, g, size), size);
}

/* the widest output row and the largest window of the vectorized max
   pooling (generic/pool.c's maxpool_plane_taps, stack rows); wider ones
   take the general loop */
#define POOL_ROW 256
#define POOL_KW 16
#define POOL_KH 8

#define TH_GENERIC_FILE "../nn/generic/pool.c"
#include "../tensor/th_generic_floating.h"

int th_nn_maxpool_update_output(const th_tensor *input, th_tensor *output, th_tensor *indices,
                                const th_nn_window *w, int ceil_mode) {
  geom g;
  th_tensor in;
  int64_t size[4];
  int nd, rc = TH_ERR;
  if (check_geom(input, w, ceil_mode, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, output->dtype, "input") != TH_OK) return TH_ERR;
  if (th_nn_check_indices(indices) != TH_OK) return TH_ERR;
  nd = output_like(input, &g, size);
  th_tensor_init(&in, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK && th_tensor_resize(output, nd, size) == TH_OK &&
      th_tensor_resize(indices, nd, size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, maxpool_forward, (&in, output, indices, &g, w),
                              "SpatialMaxPooling");
  th_tensor_clear(&in);
  return rc;
}

int th_nn_maxpool_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                    th_tensor *gradInput, const th_tensor *indices,
                                    const th_nn_window *w, int ceil_mode) {
  geom g;
  th_tensor go, ind;
  int rc = TH_ERR;
  if (check_geom(input, w, ceil_mode, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, gradInput->dtype, "input") != TH_OK) return TH_ERR;
  if (check_grad_output(gradOutput, input, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_indices(indices) != TH_OK) return TH_ERR;
  if (th_nn_check_same_size(indices, gradOutput, "indices", "the output size; run forward first") !=
      TH_OK)
    return TH_ERR;
  th_tensor_init(&go, input->dtype);
  th_tensor_init(&ind, TH_LONG);
  if (th_nn_contiguous(&go, gradOutput) == TH_OK && th_nn_contiguous(&ind, indices) == TH_OK &&
      th_tensor_resize(gradInput, input->ndim, input->size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, maxpool_backward, (&go, gradInput, &ind, &g),
                              "SpatialMaxPooling");
  th_tensor_clear(&go);
  th_tensor_clear(&ind);
  return rc;
}

int th_nn_avgpool_update_output(const th_tensor *input, th_tensor *output, const th_nn_window *w,
                                int ceil_mode, int count_include_pad) {
  geom g;
  th_tensor in;
  int64_t size[4];
  int nd, rc = TH_ERR;
  if (check_geom(input, w, ceil_mode, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, output->dtype, "input") != TH_OK) return TH_ERR;
  nd = output_like(input, &g, size);
  th_tensor_init(&in, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK && th_tensor_resize(output, nd, size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, avgpool_forward, (&in, output, &g, w, count_include_pad),
                              "SpatialAveragePooling");
  th_tensor_clear(&in);
  return rc;
}

int th_nn_avgpool_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                    th_tensor *gradInput, const th_nn_window *w, int ceil_mode,
                                    int count_include_pad) {
  geom g;
  th_tensor go;
  int rc = TH_ERR;
  if (check_geom(input, w, ceil_mode, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, gradInput->dtype, "input") != TH_OK) return TH_ERR;
  if (check_grad_output(gradOutput, input, &g) != TH_OK) return TH_ERR;
  th_tensor_init(&go, input->dtype);
  if (th_nn_contiguous(&go, gradOutput) == TH_OK &&
      th_tensor_resize(gradInput, input->ndim, input->size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, avgpool_backward,
                              (&go, gradInput, &g, w, count_include_pad), "SpatialAveragePooling");
  th_tensor_clear(&go);
  return rc;
}
