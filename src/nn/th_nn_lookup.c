/*
** th_nn_lookup.c: nn.LookupTable's kernels (row gather, gradient
** scatter-add, max-norm renormalisation) and the index reader they share
** with ClassNLLCriterion; float and double from generic/lookup.c.
** Indices arrive 1-based in tensors of any type (Torch7 accepts Long and
** Double index tensors) and are checked once, in th_nn_read_indices, so
** the loops never read outside the weight. Weight and gradWeight are used
** through their strides (they may be views of a flattened parameter
** vector); the output is resized, hence contiguous.
*/
#include <math.h>
#include <stdlib.h>
#include "th_nn_layers.h"
#include "th_nn_internal.h"
#include "../tensor/th_error.h"
#include "../tensor/th_generic.h"

#define TH_GENERIC_FILE "../nn/generic/lookup.c"
#include "../tensor/th_generic_floating.h"

/* element i of t, of any type (TH_DTYPES), as a double */
#define ELEMV_0(v) (double)(v)
#define ELEMV_1(v) (double)(v)
#define ELEMV_2(v) (double)th_half_to_float(v)
#define ELEMENT_(c, D) \
  case D(TH_DTF_ENUM): return TH_CAT(ELEMV, D(TH_DTF_FLOATING))(((const D(TH_DTF_CTYPE) *)d)[i]);
static double element(const th_tensor *t, int64_t i) {
  const void *d = th_tensor_data(t);
  switch (t->dtype) {
    TH_DTYPES(ELEMENT_, ~)
    default: return NAN;
  }
}

int th_nn_read_indices(const th_tensor *t, int64_t n, int64_t skip, int has_skip, th_tensor *out,
                       const char *what) {
  th_tensor c;
  int64_t i, m = th_tensor_numel(t);
  int64_t *o;
  int rc = TH_OK;
  if (out->dtype != TH_LONG) return th_error_set("index buffer must be a torch.LongTensor");
  th_tensor_init(&c, t->dtype);
  if (th_tensor_contiguous(&c, t) != TH_OK) return TH_ERR;
  if (th_tensor_resize1d(out, m) != TH_OK) {
    th_tensor_clear(&c);
    return TH_ERR;
  }
  o = th_tensor_data(out);
  for (i = 0; i < m && rc == TH_OK; i++) {
    double v = element(&c, i);
    /* converted only once known to fit: (int64_t)2^63 is undefined */
    int64_t k = (v >= -9.0e18 && v <= 9.0e18) ? (int64_t)v : 0;
    if (!isfinite(v) || floor(v) != v) {
      rc = th_error_set("%s %g at position %lld is not an integer", what, v, (long long)i + 1);
    } else if (!(v >= -9.0e18 && v <= 9.0e18)) {
      /* an integer far out of range (a LongTensor's INT64_MIN): not converted */
      rc = th_error_set("%s %.0f at position %lld out of range (expected 1..%lld)", what, v, (long long)i + 1,
                        (long long)n);
    } else if ((k < 1 || k > n) && !(has_skip && k == skip)) {
      if (m == 1)
        rc = th_error_set("%s %lld out of range (expected 1..%lld)", what, (long long)k,
                          (long long)n);
      else
        rc = th_error_set("%s %lld at position %lld out of range (expected 1..%lld)", what,
                          (long long)k, (long long)i + 1, (long long)n);
    }
    o[i] = k;
  }
  th_tensor_clear(&c);
  return rc;
}

static int check_weight(const th_tensor *w, const char *what) {
  char a[128];
  if (!TH_IS_FLOATING(w->dtype))
    return th_error_set("%s must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        what, th_dtype_name[w->dtype]);
  if (w->ndim != 2)
    return th_error_set("%s must be 2D (nIndex x nOutput), got %s", what,
                        th_tensor_sizestr(w, a, sizeof a));
  return TH_OK;
}

static int check_indices(const th_tensor *idx) {
  char a[128];
  if (idx->ndim != 1 && idx->ndim != 2)
    return th_error_set("input must be a 1D or 2D tensor of indices, got %dD %s", idx->ndim,
                        th_tensor_sizestr(idx, a, sizeof a));
  return TH_OK;
}

int th_nn_lookup_update_output(const th_tensor *weight, const th_tensor *indices,
                               th_tensor *output) {
  th_tensor idx;
  int64_t size[3];
  int rc;
  if (check_weight(weight, "weight") != TH_OK || check_indices(indices) != TH_OK) return TH_ERR;
  if (output->dtype != weight->dtype)
    return th_error_set("output must be a torch.%sTensor like the weight, got torch.%sTensor",
                        th_dtype_name[weight->dtype], th_dtype_name[output->dtype]);
  th_tensor_init(&idx, TH_LONG);
  rc = th_nn_read_indices(indices, weight->size[0], 0, 0, &idx, "index");
  if (rc == TH_OK) {
    size[0] = indices->size[0];
    size[1] = indices->ndim == 2 ? indices->size[1] : weight->size[1];
    size[2] = weight->size[1];
    rc = th_tensor_resize(output, indices->ndim + 1, size);
  }
  if (rc == TH_OK)
    rc = TH_DISPATCH_FLOATING(weight->dtype, lookup_gather, (weight, &idx, output), "LookupTable");
  th_tensor_clear(&idx);
  return rc;
}

int th_nn_lookup_acc_grad_params(const th_tensor *indices, const th_tensor *gradOutput,
                                 th_tensor *gradWeight, int64_t paddingValue, double scale) {
  th_tensor idx, go;
  char a[128], b[128];
  int rc;
  if (check_weight(gradWeight, "gradWeight") != TH_OK || check_indices(indices) != TH_OK)
    return TH_ERR;
  if (gradOutput->dtype != gradWeight->dtype)
    return th_error_set("gradOutput must be a torch.%sTensor like gradWeight, got torch.%sTensor",
                        th_dtype_name[gradWeight->dtype], th_dtype_name[gradOutput->dtype]);
  if (th_tensor_numel(gradOutput) != th_tensor_numel(indices) * gradWeight->size[1])
    return th_error_set("gradOutput must hold %lld rows of %lld (one per index of the %s input), got %s",
                        (long long)th_tensor_numel(indices), (long long)gradWeight->size[1],
                        th_tensor_sizestr(indices, a, sizeof a),
                        th_tensor_sizestr(gradOutput, b, sizeof b));
  th_tensor_init(&idx, TH_LONG);
  th_tensor_init(&go, gradOutput->dtype);
  rc = th_nn_read_indices(indices, gradWeight->size[0], paddingValue, 1, &idx, "index");
  if (rc == TH_OK) rc = th_tensor_contiguous(&go, gradOutput);
  if (rc == TH_OK)
    rc = TH_DISPATCH_FLOATING(gradWeight->dtype, lookup_scatter,
                              (&idx, &go, gradWeight, paddingValue, scale), "LookupTable");
  th_tensor_clear(&idx);
  th_tensor_clear(&go);
  return rc;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

int th_nn_lookup_renorm(th_tensor *weight, const th_tensor *indices, double maxNorm,
                        double normType) {
  th_tensor idx;
  int rc;
  if (check_weight(weight, "weight") != TH_OK || check_indices(indices) != TH_OK) return TH_ERR;
  if (!(maxNorm > 0)) return th_error_set("maxNorm must be positive, got %g", maxNorm);
  if (!(normType > 0)) return th_error_set("normType must be positive, got %g", normType);
  th_tensor_init(&idx, TH_LONG);
  rc = th_nn_read_indices(indices, weight->size[0], 0, 0, &idx, "index");
  if (rc == TH_OK) {
    /* each row once, however often it is named */
    qsort(th_tensor_data(&idx), (size_t)th_tensor_numel(&idx), sizeof(int64_t), cmp_i64);
    rc = TH_DISPATCH_FLOATING(weight->dtype, lookup_renorm, (weight, &idx, maxNorm, normType),
                              "LookupTable");
  }
  th_tensor_clear(&idx);
  return rc;
}
