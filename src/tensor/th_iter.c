/*
** th_iter.c: the strided walk behind TH_APPLY*.
** Invariant after init: the product of size[0..ndim-1] equals the common
** element count, and stride[k][d] is tensor k's step along merged dim d.
*/
#include <string.h>
#include "th_checked.h"
#include "th_error.h"
#include "th_iter.h"

static int all_same_shape(int nt, const th_tensor *const *ts) {
  int k;
  for (k = 1; k < nt; k++)
    if (!th_tensor_same_size(ts[0], ts[k])) return 0;
  return 1;
}

static int all_contiguous(int nt, const th_tensor *const *ts) {
  int k;
  for (k = 0; k < nt; k++)
    if (!th_tensor_is_contiguous(ts[k])) return 0;
  return 1;
}

/* one shape for all: drop size-1 dims, merge dims contiguous in every tensor */
static void merge_dims(th_iter *it, const th_tensor *const *ts) {
  const th_tensor *t0 = ts[0];
  int d, k, n = 0;
  for (d = 0; d < t0->ndim; d++) {
    if (t0->size[d] == 1) continue;
    if (n > 0) {
      int mergeable = 1;
      for (k = 0; k < it->nt; k++) {
        int64_t reach;  /* a stride-0 or huge-stride view may not multiply within int64 */
        mergeable = mergeable && !th_mul_overflows(ts[k]->stride[d], t0->size[d], &reach) &&
                    it->stride[k][n - 1] == reach;
      }
      if (mergeable) {
        it->size[n - 1] *= t0->size[d];
        for (k = 0; k < it->nt; k++) it->stride[k][n - 1] = ts[k]->stride[d];
        continue;
      }
    }
    it->size[n] = t0->size[d];
    for (k = 0; k < it->nt; k++) it->stride[k][n] = ts[k]->stride[d];
    n++;
  }
  if (n == 0) {  /* a single element */
    it->size[0] = 1;
    for (k = 0; k < it->nt; k++) it->stride[k][0] = 1;
    n = 1;
  }
  it->ndim = n;
}

int th_iter_init(th_iter *it, int nt, const th_tensor *const *ts) {
  int64_t numel = th_tensor_numel(ts[0]);
  int k;
  memset(it, 0, sizeof *it);
  it->nt = nt;
  for (k = 0; k < nt; k++) {
    if (th_tensor_numel(ts[k]) != numel)
      return th_error_set("element counts differ: %lld and %lld",
                          (long long)numel, (long long)th_tensor_numel(ts[k]));
    it->base[k] = th_tensor_data(ts[k]);
    it->esize[k] = th_dtype_size[ts[k]->dtype];
    it->t[k] = ts[k];
  }
  if (numel == 0) {
    it->rows_left = 0;
    return TH_OK;
  }
  if (all_same_shape(nt, ts)) {
    merge_dims(it, ts);
  } else if (all_contiguous(nt, ts)) {
    it->ndim = 1;
    it->size[0] = numel;
    for (k = 0; k < nt; k++) it->stride[k][0] = 1;
  } else {
    it->mismatched = 1;
    it->inner = 1;
    it->rows_left = numel;
    return TH_OK;
  }
  it->inner = it->size[it->ndim - 1];
  for (k = 0; k < nt; k++) it->istride[k] = it->stride[k][it->ndim - 1];
  it->rows_left = numel / it->inner;
  return TH_OK;
}

/* element offset of linear (row-major) index 'lin' in tensor t */
static int64_t offset_of(const th_tensor *t, int64_t lin) {
  int64_t off = 0;
  int d;
  for (d = t->ndim - 1; d >= 0; d--) {
    off += (lin % t->size[d]) * t->stride[d];
    lin /= t->size[d];
  }
  return off;
}

int th_iter_next(th_iter *it) {
  int k, d;
  if (it->rows_left <= 0) return 0;
  if (it->mismatched) {
    for (k = 0; k < it->nt; k++)
      it->p[k] = it->base[k] + offset_of(it->t[k], it->lin) * (int64_t)it->esize[k];
    it->lin++;
    it->rows_left--;
    return 1;
  }
  for (k = 0; k < it->nt; k++) {
    int64_t off = 0;
    for (d = 0; d < it->ndim - 1; d++) off += it->counter[d] * it->stride[k][d];
    it->p[k] = it->base[k] + off * (int64_t)it->esize[k];
  }
  /* advance the outer counters, last outer dim fastest */
  for (d = it->ndim - 2; d >= 0; d--) {
    if (++it->counter[d] < it->size[d]) break;
    it->counter[d] = 0;
  }
  it->rows_left--;
  return 1;
}
