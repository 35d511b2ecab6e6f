/*
** th_nn_vol2col.c: vol2col and col2vol, the lowering that turns a 3D
** convolution (strided, padded, dilated) into one matrix product per image
** (column layout in th_nn_volumetric.h). Per kernel offset the valid
** output range is computed once per dimension, so the inner loop runs over
** a contiguous output row without bounds tests.
*/
#include <limits.h>
#include <string.h>
#include "th_nn_internal.h"
#include "th_nn_volumetric.h"

/* valid positions [*lo, *hi) of kernel offset j: 0 <= o*d - pad + j*dil < n */
static void valid_range(int64_t n, int64_t on, int64_t d, int64_t pad, int64_t off, int64_t *lo,
                        int64_t *hi) {
  int64_t a = pad - off, b = n - 1 + pad - off;
  *lo = a <= 0 ? 0 : (a + d - 1) / d;
  *hi = b < 0 ? 0 : b / d + 1;
  if (*hi > on) *hi = on;
  if (*lo > *hi) *lo = *hi;
}

int th_nn_vol_check(const th_nn_vol *v) {
  if (v->kT < 1 || v->kW < 1 || v->kH < 1)
    return th_error_set("kernel size must be positive, got %lldx%lldx%lld (TxWxH)",
                        (long long)v->kT, (long long)v->kW, (long long)v->kH);
  if (v->dT < 1 || v->dW < 1 || v->dH < 1)
    return th_error_set("stride must be positive, got %lld,%lld,%lld (T,W,H)", (long long)v->dT,
                        (long long)v->dW, (long long)v->dH);
  if (v->padT < 0 || v->padW < 0 || v->padH < 0)
    return th_error_set("padding must be non-negative, got %lld,%lld,%lld (T,W,H)",
                        (long long)v->padT, (long long)v->padW, (long long)v->padH);
  if (v->dilT < 1 || v->dilW < 1 || v->dilH < 1)
    return th_error_set("dilation must be positive, got %lld,%lld,%lld (T,W,H)",
                        (long long)v->dilT, (long long)v->dilW, (long long)v->dilH);
  /* bounded so that every size computed from them fits in 64 bits */
  if (v->kT > INT_MAX || v->kW > INT_MAX || v->kH > INT_MAX || v->dT > INT_MAX ||
      v->dW > INT_MAX || v->dH > INT_MAX || v->padT > INT_MAX || v->padW > INT_MAX ||
      v->padH > INT_MAX || v->dilT > INT_MAX || v->dilW > INT_MAX || v->dilH > INT_MAX ||
      v->kT * v->kH > INT_MAX || v->kT * v->kH * v->kW > INT_MAX)
    return th_error_set("kernel %lldx%lldx%lld (TxWxH), its stride, padding or dilation is too large",
                        (long long)v->kT, (long long)v->kW, (long long)v->kH);
  return TH_OK;
}

#define TH_GENERIC_FILE "../nn/generic/vol2col.c"
#include "../tensor/th_generic_floating.h"
