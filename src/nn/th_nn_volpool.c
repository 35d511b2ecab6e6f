/*
** th_nn_volpool.c: max and average pooling over 3D windows
** (nn.VolumetricMaxPooling, VolumetricDilatedMaxPooling,
** VolumetricAveragePooling), with Torch7's padding rule (at most half the
** kernel), floor/ceil output sizes (a last window starting in the right
** padding is dropped) and, for max pooling, dilation. Planes (batch x
** channels) are independent and run in parallel.
** Max pooling records in 'indices' the 1-based position (t*H + y)*W + x + 1
** of each maximum within its plane; backward scatters through it, after
** checking every index. NaN wins a window.
** Fractional max pooling (nn.VolumetricFractionalMaxPooling) places
** pool-sized regions at pseudorandom starts drawn from per-plane samples
** (Torch7's formula); its indices and backward work the same way, in
** Torch7's H x W x T plane layout.
*/
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "th_nn_internal.h"
#include "th_nn_volumetric.h"

typedef struct geom {
  int batch;
  int64_t planes;   /* batch x channels */
  int64_t iT, iH, iW, oT, oH, oW;
} geom;

static int check_geom(const th_tensor *input, const th_nn_vol *v, int ceil_mode, geom *g) {
  char a[128];
  if (th_nn_vol_check(v) != TH_OK) return TH_ERR;
  if (v->padT > v->kT / 2 || v->padW > v->kW / 2 || v->padH > v->kH / 2)
    return th_error_set("padding must be at most half the kernel size, got padding %lld,%lld,%lld for kernel %lldx%lldx%lld (TxWxH)",
                        (long long)v->padT, (long long)v->padW, (long long)v->padH,
                        (long long)v->kT, (long long)v->kW, (long long)v->kH);
  if (!TH_IS_FLOATING(input->dtype))
    return th_error_set("input must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[input->dtype]);
  if (!(input->ndim == 4 || input->ndim == 5) || th_tensor_numel(input) == 0)
    return th_error_set("input must be 4D or 5D (batch), got %dD %s", input->ndim,
                        th_tensor_sizestr(input, a, sizeof a));
  g->batch = input->ndim == 5;
  g->planes = input->size[0] * (g->batch ? input->size[1] : 1);
  g->iT = input->size[input->ndim - 3];
  g->iH = input->size[input->ndim - 2];
  g->iW = input->size[input->ndim - 1];
  g->oT = th_nn_pool_output_size(g->iT, v->dilT * (v->kT - 1) + 1, v->dT, v->padT, ceil_mode);
  g->oH = th_nn_pool_output_size(g->iH, v->dilH * (v->kH - 1) + 1, v->dH, v->padH, ceil_mode);
  g->oW = th_nn_pool_output_size(g->iW, v->dilW * (v->kW - 1) + 1, v->dW, v->padW, ceil_mode);
  if (g->oT < 1 || g->oH < 1 || g->oW < 1)
    return th_error_set("input %s is smaller than the %lldx%lldx%lld window (TxWxH, with padding and dilation)",
                        th_tensor_sizestr(input, a, sizeof a), (long long)v->kT,
                        (long long)v->kW, (long long)v->kH);
  return TH_OK;
}

static int output_like(const th_tensor *input, const geom *g, int64_t *size) {
  const int64_t o[3] = {g->oT, g->oH, g->oW};
  return th_nn_sizes_like(input, 3, o, size);
}

static int check_grad_output(const th_tensor *gradOutput, const th_tensor *input, const geom *g) {
  int64_t size[5];
  return th_nn_check_grad_sizes(gradOutput, input->dtype, output_like(input, g, size), size);
}

/* the taps a, 0 <= a < k, of a window starting at s with dilation dil
   that fall inside [0, n): a in [*lo, *hi) */
static void tap_range(int64_t s, int64_t k, int64_t dil, int64_t n, int64_t *lo, int64_t *hi) {
  *lo = s >= 0 ? 0 : (-s + dil - 1) / dil;
  *hi = s >= n ? 0 : (n - 1 - s) / dil + 1;
  if (*hi > k) *hi = k;
  if (*lo > *hi) *lo = *hi;
}

typedef struct fgeom {
  int64_t planes, iT, iW, iH, oT, oW, oH, pT, pW, pH;
} fgeom;

static int fmp_geom(const th_tensor *input, const int64_t *out, const int64_t *pool, fgeom *g) {
  char a[128];
  int b;
  if (!TH_IS_FLOATING(input->dtype))
    return th_error_set("input must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[input->dtype]);
  if (!(input->ndim == 4 || input->ndim == 5) || th_tensor_numel(input) == 0)
    return th_error_set("input must be 4D or 5D (batch), planes x H x W x T, got %dD %s",
                        input->ndim, th_tensor_sizestr(input, a, sizeof a));
  b = input->ndim == 5;
  g->planes = input->size[0] * (b ? input->size[1] : 1);
  g->iH = input->size[b + 1];
  g->iW = input->size[b + 2];
  g->iT = input->size[b + 3];
  g->oT = out[0], g->oW = out[1], g->oH = out[2];
  g->pT = pool[0], g->pW = pool[1], g->pH = pool[2];
  if (g->oT < 1 || g->oW < 1 || g->oH < 1 || g->pT < 1 || g->pW < 1 || g->pH < 1)
    return th_error_set("output and pool sizes must be positive, got output %lldx%lldx%lld, pool %lldx%lldx%lld (TxWxH)",
                        (long long)g->oT, (long long)g->oW, (long long)g->oH, (long long)g->pT,
                        (long long)g->pW, (long long)g->pH);
  /* each term below the input size first: the sums cannot overflow */
  if (g->oT >= g->iT || g->pT >= g->iT || g->oW >= g->iW || g->pW >= g->iW || g->oH >= g->iH ||
      g->pH >= g->iH || g->oT + g->pT - 1 >= g->iT || g->oW + g->pW - 1 >= g->iW ||
      g->oH + g->pH - 1 >= g->iH)
    return th_error_set("input %s (planes x H x W x T) is too small for output %lldx%lldx%lld with pool %lldx%lldx%lld (TxWxH): each input size must exceed output + pool - 1",
                        th_tensor_sizestr(input, a, sizeof a), (long long)g->oT, (long long)g->oW,
                        (long long)g->oH, (long long)g->pT, (long long)g->pW, (long long)g->pH);
  return TH_OK;
}

static int fmp_output_like(const th_tensor *input, const fgeom *g, int64_t *size) {
  const int64_t o[3] = {g->oH, g->oW, g->oT};
  return th_nn_sizes_like(input, 3, o, size);
}

#define TH_GENERIC_FILE "../nn/generic/volpool.c"
#include "../tensor/th_generic_floating.h"

int th_nn_volmaxpool_update_output(const th_tensor *input, th_tensor *output, th_tensor *indices,
                                   const th_nn_vol *v, int ceil_mode) {
  geom g;
  th_tensor in;
  int64_t size[5];
  int nd, rc = TH_ERR;
  if (check_geom(input, v, ceil_mode, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, output->dtype, "input") != TH_OK) return TH_ERR;
  if (th_nn_check_indices(indices) != TH_OK) return TH_ERR;
  nd = output_like(input, &g, size);
  th_tensor_init(&in, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK && th_tensor_resize(output, nd, size) == TH_OK &&
      th_tensor_resize(indices, nd, size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, volmax_forward, (&in, output, indices, &g, v),
                              "VolumetricMaxPooling");
  th_tensor_clear(&in);
  return rc;
}

int th_nn_volmaxpool_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                       th_tensor *gradInput, const th_tensor *indices,
                                       const th_nn_vol *v, int ceil_mode) {
  geom g;
  th_tensor go, ind;
  int rc = TH_ERR;
  if (check_geom(input, v, ceil_mode, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, gradInput->dtype, "input") != TH_OK) return TH_ERR;
  if (check_grad_output(gradOutput, input, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_indices(indices) != TH_OK) return TH_ERR;
  if (th_nn_check_same_size(indices, gradOutput, "indices", "the output size; run forward first") !=
      TH_OK)
    return TH_ERR;
  th_tensor_init(&go, input->dtype);
  th_tensor_init(&ind, TH_LONG);
  if (th_nn_contiguous(&go, gradOutput) == TH_OK && th_nn_contiguous(&ind, indices) == TH_OK &&
      th_tensor_resize(gradInput, input->ndim, input->size) == TH_OK) {
    int64_t bad = TH_DISPATCH_FLOATING(input->dtype, vol_scatter,
                                       (&go, gradInput, &ind, g.planes, g.oT * g.oH * g.oW,
                                        g.iT * g.iH * g.iW),
                                       "VolumetricMaxPooling");
    rc = bad < 0 ? TH_ERR : bad > 0 ? th_error_set("indices hold %lld positions outside the %lldx%lldx%lld input planes (were they computed for this input?)",
                                                   (long long)bad, (long long)g.iT,
                                                   (long long)g.iH, (long long)g.iW)
                                    : TH_OK;
  }
  th_tensor_clear(&go);
  th_tensor_clear(&ind);
  return rc;
}

int th_nn_volavgpool_update_output(const th_tensor *input, th_tensor *output, const th_nn_vol *v,
                                   int ceil_mode, int count_include_pad) {
  geom g;
  th_tensor in;
  int64_t size[5];
  int nd, rc = TH_ERR;
  if (check_geom(input, v, ceil_mode, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, output->dtype, "input") != TH_OK) return TH_ERR;
  nd = output_like(input, &g, size);
  th_tensor_init(&in, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK && th_tensor_resize(output, nd, size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, volavg, (&in, output, &g, v, count_include_pad, 0),
                              "VolumetricAveragePooling");
  th_tensor_clear(&in);
  return rc;
}

int th_nn_volavgpool_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                       th_tensor *gradInput, const th_nn_vol *v, int ceil_mode,
                                       int count_include_pad) {
  geom g;
  th_tensor go;
  int rc = TH_ERR;
  if (check_geom(input, v, ceil_mode, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, gradInput->dtype, "input") != TH_OK) return TH_ERR;
  if (check_grad_output(gradOutput, input, &g) != TH_OK) return TH_ERR;
  th_tensor_init(&go, input->dtype);
  if (th_nn_contiguous(&go, gradOutput) == TH_OK &&
      th_tensor_resize(gradInput, input->ndim, input->size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, volavg, (gradInput, &go, &g, v, count_include_pad, 1),
                              "VolumetricAveragePooling");
  th_tensor_clear(&go);
  return rc;
}

int th_nn_volfmp_update_output(const th_tensor *input, th_tensor *output, th_tensor *indices,
                               const th_tensor *samples, const int64_t *out, const int64_t *pool) {
  fgeom g;
  th_tensor in, sm;
  int64_t size[5];
  int nd, rc = TH_ERR;
  char a[128];
  if (fmp_geom(input, out, pool, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, output->dtype, "input") != TH_OK) return TH_ERR;
  if (th_nn_check_type(samples, input->dtype, "randomSamples") != TH_OK) return TH_ERR;
  if (th_nn_check_indices(indices) != TH_OK) return TH_ERR;
  if (th_tensor_numel(samples) != g.planes * 3)
    return th_error_set("randomSamples must hold 3 samples per plane (%lld), got %s",
                        (long long)(g.planes * 3), th_tensor_sizestr(samples, a, sizeof a));
  nd = fmp_output_like(input, &g, size);
  th_tensor_init(&in, input->dtype);
  th_tensor_init(&sm, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK && th_nn_contiguous(&sm, samples) == TH_OK) {
    int64_t i, n = g.planes * 3;
    int ok = 1;
    /* a sample outside [0, 1] would place regions outside the input */
    for (i = 0; i < n; i++) {
      double u = input->dtype == TH_FLOAT ? ((const float *)th_tensor_data(&sm))[i]
                                          : ((const double *)th_tensor_data(&sm))[i];
      if (!(u >= 0 && u <= 1)) ok = 0;
    }
    if (!ok)
      th_error_set("randomSamples must lie in [0, 1]");
    else if (th_tensor_resize(output, nd, size) == TH_OK &&
             th_tensor_resize(indices, nd, size) == TH_OK)
      rc = TH_DISPATCH_FLOATING(input->dtype, volfmp_forward, (&in, output, indices, &sm, &g),
                                "VolumetricFractionalMaxPooling");
  }
  th_tensor_clear(&in);
  th_tensor_clear(&sm);
  return rc;
}

int th_nn_volfmp_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                   th_tensor *gradInput, const th_tensor *indices,
                                   const int64_t *out) {
  fgeom g;
  th_tensor go, ind;
  int64_t pool[3] = {1, 1, 1}, size[5];
  int rc = TH_ERR;
  if (fmp_geom(input, out, pool, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, gradInput->dtype, "input") != TH_OK) return TH_ERR;
  if (th_nn_check_grad_sizes(gradOutput, input->dtype, fmp_output_like(input, &g, size), size) !=
      TH_OK)
    return TH_ERR;
  if (th_nn_check_indices(indices) != TH_OK) return TH_ERR;
  if (th_nn_check_same_size(indices, gradOutput, "indices", "the output size; run forward first") !=
      TH_OK)
    return TH_ERR;
  th_tensor_init(&go, input->dtype);
  th_tensor_init(&ind, TH_LONG);
  if (th_nn_contiguous(&go, gradOutput) == TH_OK && th_nn_contiguous(&ind, indices) == TH_OK &&
      th_tensor_resize(gradInput, input->ndim, input->size) == TH_OK) {
    int64_t bad = TH_DISPATCH_FLOATING(input->dtype, vol_scatter,
                                       (&go, gradInput, &ind, g.planes, g.oT * g.oH * g.oW,
                                        g.iT * g.iH * g.iW),
                                       "VolumetricFractionalMaxPooling");
    rc = bad < 0 ? TH_ERR : bad > 0 ? th_error_set("indices hold %lld positions outside the input planes (were they computed for this input?)",
                                                   (long long)bad)
                                    : TH_OK;
  }
  th_tensor_clear(&go);
  th_tensor_clear(&ind);
  return rc;
}
