/*
** th_sort.c: sort, topk, kthvalue and median along one dimension.
** All four sort each row stably (see generic/sort.c) and keep a run of
** it, so ties always resolve to the lowest position, run after run.
** Results are resized in place; a source sharing a storage with a result
** is copied first, so torch.sort(x, idx, x) is well defined.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "th_error.h"
#include "th_index.h"
#include "th_iter.h"

/* short runs are insertion-sorted before merging */
#define SORT_RUN 16

static th_tensor rowview(const th_tensor *t, int dim) {
  th_tensor v = *t;
  v.size[dim] = 1;
  return v;
}

#define TH_GENERIC_FILE "generic/sort.c"
#include "th_generic_all.h"

/* sorts rows of src along dim into values/indices, keeping entries first..first+count
   of each sorted row; the results get src's sizes with 'count' at dim */
static int sort_select(th_tensor *values, th_tensor *indices, const th_tensor *src, int dim,
                       int desc, int64_t first, int64_t count) {
  if (th_dtype_need_kernels(src->dtype) != TH_OK) return TH_ERR;
  int64_t size[TH_MAXDIM];
  th_tensor copy;
  int rc = TH_OK;
  if (values->dtype != src->dtype)
    return th_error_set("values must be a %sTensor, got a %sTensor", th_dtype_name[src->dtype],
                        th_dtype_name[values->dtype]);
  if (indices->dtype != TH_LONG)
    return th_error_set("indices must be a LongTensor, got a %sTensor", th_dtype_name[indices->dtype]);
  if (values->storage != NULL && values->storage == indices->storage)
    return th_error_set("values and indices must not share a storage");
  th_tensor_init(&copy, src->dtype);
  if (src->storage != NULL && (src->storage == values->storage || src->storage == indices->storage)) {
    if (th_tensor_resize_as(&copy, src) != TH_OK || th_tensor_copy(&copy, src) != TH_OK) {
      th_tensor_clear(&copy);
      return TH_ERR;
    }
    src = &copy;
  }
  memcpy(size, src->size, sizeof size);
  if (src->ndim > 0) size[dim] = count;
  if (th_tensor_resize(values, src->ndim, size) != TH_OK ||
      th_tensor_resize(indices, src->ndim, size) != TH_OK) {
    th_tensor_clear(&copy);
    return TH_ERR;
  }
  if (count > 0 && th_tensor_numel(values) > 0)
    rc = TH_DISPATCH_ALL(src->dtype, sort_rows, (values, indices, src, dim, desc, first, count));
  th_tensor_clear(&copy);
  return rc;
}

static int check_dim(const th_tensor *t, int dim) {
  char b[128];
  if (dim < 0 || dim >= t->ndim) {
    if (t->ndim == 0) return th_error_set("dimension %d out of range: tensor is empty", dim + 1);
    return th_error_set("dimension %d out of range for a %dD tensor of size %s", dim + 1, t->ndim,
                        th_tensor_sizestr(t, b, sizeof b));
  }
  return TH_OK;
}

int th_tensor_sort(th_tensor *values, th_tensor *indices, const th_tensor *src, int dim,
                   int descending) {
  if (src->ndim == 0) return sort_select(values, indices, src, 0, descending, 0, 0);
  if (check_dim(src, dim) != TH_OK) return TH_ERR;
  return sort_select(values, indices, src, dim, descending, 0, src->size[dim]);
}

int th_tensor_topk(th_tensor *values, th_tensor *indices, const th_tensor *src, int64_t k,
                   int dim, int largest) {
  if (check_dim(src, dim) != TH_OK) return TH_ERR;
  if (k < 0 || k > src->size[dim])
    return th_error_set("k %lld out of range for dimension %d of size %lld (expected 0..%lld)",
                        (long long)k, dim + 1, (long long)src->size[dim], (long long)src->size[dim]);
  return sort_select(values, indices, src, dim, largest, 0, k);
}

int th_tensor_kthvalue(th_tensor *values, th_tensor *indices, const th_tensor *src, int64_t k,
                       int dim) {
  if (check_dim(src, dim) != TH_OK) return TH_ERR;
  if (k < 1 || k > src->size[dim])
    return th_error_set("k %lld out of range for dimension %d of size %lld (expected 1..%lld)",
                        (long long)k, dim + 1, (long long)src->size[dim], (long long)src->size[dim]);
  return sort_select(values, indices, src, dim, 0, k - 1, 1);
}

int th_tensor_median(th_tensor *values, th_tensor *indices, const th_tensor *src, int dim) {
  if (check_dim(src, dim) != TH_OK) return TH_ERR;
  if (src->size[dim] == 0)
    return th_error_set("median of dimension %d of size 0", dim + 1);
  return th_tensor_kthvalue(values, indices, src, (src->size[dim] + 1) / 2, dim);
}
