/*
** th_nn_indexlinear.c: nn.IndexLinear's kernels (forward with Torch7's
** per-feature max-abs normalisation, dense per-key gradient rows, the sparse
** update, the direct update); float and double from generic/indexlinear.c.
** All checks happen in check_batch/check_weight before a loop runs, so a
** loop never reads or writes outside its tensors: each key's row is checked
** against the weight, the sizes against the number of keys.
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "th_nn_products.h"
#include "../tensor/th_error.h"
#include "../tensor/th_generic.h"

#define TH_GENERIC_FILE "../nn/generic/indexlinear.c"
#include "../tensor/th_generic_floating.h"

static int contiguous(const th_tensor *t, const char *what) {
  if (!th_tensor_is_contiguous(t)) return th_error_set("%s must be contiguous", what);
  return TH_OK;
}

static int vector(const th_tensor *t, th_dtype dt, const char *what) {
  char a[128];
  if (t->dtype != dt)
    return th_error_set("%s must be a torch.%sTensor, got torch.%sTensor", what, th_dtype_name[dt],
                        th_dtype_name[t->dtype]);
  if (t->ndim != 1)
    return th_error_set("%s must be 1D, got %dD %s", what, t->ndim, th_tensor_sizestr(t, a, sizeof a));
  return contiguous(t, what);
}

/* weight (inputSize x (outDim + norm)) and bias (outDim); sets *norm */
static int check_weight(const th_tensor *weight, const th_tensor *bias, int64_t *norm) {
  char a[128];
  if (!TH_IS_FLOATING(weight->dtype))
    return th_error_set("weight must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[weight->dtype]);
  if (weight->ndim != 2)
    return th_error_set("weight must be 2D (inputSize x outputSize), got %s",
                        th_tensor_sizestr(weight, a, sizeof a));
  if (contiguous(weight, "weight") != TH_OK || vector(bias, weight->dtype, "bias") != TH_OK)
    return TH_ERR;
  *norm = weight->size[1] - bias->size[0];
  if (*norm != 0 && *norm < 4)
    return th_error_set("weight must have outputSize (%lld) columns, or 4 more with normalisation; got %lld",
                        (long long)bias->size[0], (long long)weight->size[1]);
  return TH_OK;
}

/* keys, values, sizes: consistent, every key's row inside the weight */
static int check_batch(const th_tensor *keys, int64_t off, const th_tensor *values,
                       const th_tensor *sizes, const th_tensor *weight) {
  const int64_t *k, *s;
  int64_t i, n, total = 0, rows = weight->size[0];
  if (vector(keys, TH_LONG, "keys") != TH_OK || vector(sizes, TH_LONG, "sizes") != TH_OK) return TH_ERR;
  if (values && vector(values, weight->dtype, "values") != TH_OK) return TH_ERR;
  n = keys->size[0];
  if (values && values->size[0] != n)
    return th_error_set("keys and values must have the same number of elements, got %lld and %lld",
                        (long long)n, (long long)values->size[0]);
  s = th_tensor_data(sizes);
  for (i = 0; i < sizes->size[0]; i++) {
    if (s[i] < 0 || s[i] > n - total)
      return th_error_set("sizes must be non-negative and sum to the %lld keys, got %lld at sample %lld",
                          (long long)n, (long long)s[i], (long long)i + 1);
    total += s[i];
  }
  if (total != n)
    return th_error_set("sizes must sum to the %lld keys, got %lld", (long long)n, (long long)total);
  k = th_tensor_data(keys);
  for (i = 0; i < n; i++) {
    if (k[i] + off < 0 || k[i] + off >= rows)
      return th_error_set("key %lld at position %lld out of range (expected %lld..%lld)",
                          (long long)k[i], (long long)i + 1, (long long)-off, (long long)(rows - 1 - off));
  }
  return TH_OK;
}

static int check_grad_output(const th_tensor *go, const th_tensor *sizes, int64_t outDim,
                             th_dtype dt) {
  char a[128];
  if (go->dtype != dt)
    return th_error_set("gradOutput must be a torch.%sTensor like the weight, got torch.%sTensor",
                        th_dtype_name[dt], th_dtype_name[go->dtype]);
  if (th_tensor_numel(go) != sizes->size[0] * outDim)
    return th_error_set("gradOutput must have %lld x %lld elements, got %s", (long long)sizes->size[0],
                        (long long)outDim, th_tensor_sizestr(go, a, sizeof a));
  return contiguous(go, "gradOutput");
}

int th_nn_indexlinear_update_output(const th_tensor *keys, int64_t keysOffset,
                                    const th_tensor *values, const th_tensor *sizes,
                                    th_tensor *output, th_tensor *weight, const th_tensor *bias,
                                    th_tensor *normalizedValues, int train) {
  int64_t norm, outDim;
  if (check_weight(weight, bias, &norm) != TH_OK ||
      check_batch(keys, keysOffset, values, sizes, weight) != TH_OK)
    return TH_ERR;
  if (output->dtype != weight->dtype || normalizedValues->dtype != weight->dtype)
    return th_error_set("output and normalizedValues must be torch.%sTensor like the weight",
                        th_dtype_name[weight->dtype]);
  outDim = bias->size[0];
  if (th_tensor_resize2d(output, sizes->size[0], outDim) != TH_OK) return TH_ERR;
  if (norm && th_tensor_resize1d(normalizedValues, keys->size[0]) != TH_OK) return TH_ERR;
  return TH_DISPATCH_FLOATING(
      weight->dtype, il_output,
      (th_tensor_data(keys), keysOffset, th_tensor_data(values), th_tensor_data(sizes),
       sizes->size[0], th_tensor_data(output), th_tensor_data(weight), weight->size[1],
       th_tensor_data(bias), outDim, norm, norm ? th_tensor_data(normalizedValues) : NULL, train),
      "IndexLinear");
}

int th_nn_indexlinear_acc_grad_params(const th_tensor *keys, int64_t keysOffset,
                                      const th_tensor *values, const th_tensor *sizes,
                                      const th_tensor *gradOutput, th_tensor *gradWeight,
                                      th_tensor *gradBias, const th_tensor *weight,
                                      const th_tensor *bias, double scale) {
  int64_t norm, outDim;
  if (check_weight(weight, bias, &norm) != TH_OK ||
      check_batch(keys, keysOffset, values, sizes, weight) != TH_OK)
    return TH_ERR;
  outDim = bias->size[0];
  if (check_grad_output(gradOutput, sizes, outDim, weight->dtype) != TH_OK ||
      vector(gradBias, weight->dtype, "gradBias") != TH_OK)
    return TH_ERR;
  if (gradBias->size[0] != outDim)
    return th_error_set("gradBias must have %lld elements, got %lld", (long long)outDim,
                        (long long)gradBias->size[0]);
  if (gradWeight->dtype != weight->dtype)
    return th_error_set("gradWeight must be a torch.%sTensor like the weight",
                        th_dtype_name[weight->dtype]);
  if (th_tensor_resize2d(gradWeight, keys->size[0], outDim * (norm ? 2 : 1)) != TH_OK) return TH_ERR;
  return TH_DISPATCH_FLOATING(weight->dtype, il_grad,
                              (th_tensor_data(sizes), sizes->size[0], th_tensor_data(values),
                               th_tensor_data(gradOutput), th_tensor_data(gradWeight),
                               th_tensor_data(gradBias), outDim, norm != 0, scale),
                              "IndexLinear");
}

int th_nn_indexlinear_update_params(const th_tensor *gradWeight, const th_tensor *gradBias,
                                    th_tensor *weight, th_tensor *bias, const th_tensor *keys,
                                    int64_t keysOffset, double weightDecay, double lr) {
  int64_t norm, outDim, n, i;
  const int64_t *k;
  char a[128];
  if (check_weight(weight, bias, &norm) != TH_OK || vector(keys, TH_LONG, "keys") != TH_OK ||
      vector(gradBias, weight->dtype, "gradBias") != TH_OK)
    return TH_ERR;
  outDim = bias->size[0];
  n = keys->size[0];
  if (gradBias->size[0] != outDim)
    return th_error_set("gradBias must have %lld elements, got %lld", (long long)outDim,
                        (long long)gradBias->size[0]);
  /* n rows of outDim (2 outDim) elements: the product cannot overflow when it
     fits in the gradWeight the caller holds */
  if (outDim > 0 && n > INT64_MAX / (2 * outDim))
    return th_error_set("%lld keys of %lld outputs are too many", (long long)n, (long long)outDim);
  if (gradWeight->dtype != weight->dtype || th_tensor_numel(gradWeight) != n * outDim * (norm ? 2 : 1))
    return th_error_set("gradWeight must hold one row of %lld per key (%lld keys) like the weight, got %s",
                        (long long)(outDim * (norm ? 2 : 1)), (long long)n,
                        th_tensor_sizestr(gradWeight, a, sizeof a));
  if (contiguous(gradWeight, "gradWeight") != TH_OK) return TH_ERR;
  k = th_tensor_data(keys);
  for (i = 0; i < n; i++) {
    if (k[i] + keysOffset < 0 || k[i] + keysOffset >= weight->size[0])
      return th_error_set("key %lld at position %lld out of range (expected %lld..%lld)",
                          (long long)k[i], (long long)i + 1, (long long)-keysOffset,
                          (long long)(weight->size[0] - 1 - keysOffset));
  }
  return TH_DISPATCH_FLOATING(weight->dtype, il_update,
                              (th_tensor_data(gradWeight), th_tensor_data(gradBias),
                               th_tensor_data(weight), weight->size[1], th_tensor_data(bias), k, n,
                               keysOffset, outDim, norm, weightDecay, lr),
                              "IndexLinear");
}

int th_nn_indexlinear_acc_update_params(const th_tensor *keys, int64_t keysOffset,
                                        const th_tensor *values, const th_tensor *sizes,
                                        const th_tensor *gradOutput, th_tensor *weight,
                                        th_tensor *bias, double weightDecay, double scale) {
  int64_t norm, outDim;
  if (check_weight(weight, bias, &norm) != TH_OK ||
      check_batch(keys, keysOffset, values, sizes, weight) != TH_OK)
    return TH_ERR;
  outDim = bias->size[0];
  if (check_grad_output(gradOutput, sizes, outDim, weight->dtype) != TH_OK) return TH_ERR;
  return TH_DISPATCH_FLOATING(
      weight->dtype, il_acc_update,
      (th_tensor_data(keys), keysOffset, th_tensor_data(values), th_tensor_data(sizes),
       sizes->size[0], th_tensor_data(gradOutput), th_tensor_data(weight), weight->size[1],
       th_tensor_data(bias), outDim, norm, weightDecay, scale),
      "IndexLinear");
}
