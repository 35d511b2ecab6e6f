/*
** th_index.c: index / indexCopy / indexAdd / indexFill, gather / scatter,
** the masked operations, nonzero and cat.
** Every index is checked before anything is written, so a bad index
** leaves the tensors as they were. Results are resized in place (their
** storage identity is kept, which the memory optimizer relies on); a
** result that shares a storage with an input, or is not contiguous after
** the resize, is computed in a temporary and copied in at the end.
** Views made here for the loops ('rowview', 'sliceview') borrow the
** storage without a reference: they live only inside one call.
*/
#include <stdlib.h>
#include <string.h>
#include "th_error.h"
#include "th_index.h"
#include "th_iter.h"

/* t with dimension dim cut to its first entry: walking it visits every row along dim */
static th_tensor rowview(const th_tensor *t, int dim) {
  th_tensor v = *t;
  v.size[dim] = 1;
  return v;
}

/* entry i of dimension dim, keeping the dimension (size 1) */
static th_tensor sliceview(const th_tensor *t, int dim, int64_t i) {
  th_tensor v = *t;
  v.offset += i * t->stride[dim];
  v.size[dim] = 1;
  return v;
}

#define TH_GENERIC_FILE "generic/index.c"
#include "th_generic_all.h"

/* slices of at least this many elements are copied whole, smaller ones row by row */
#define SLICE_MIN 16

static int shares(const th_tensor *a, const th_tensor *b) {
  return a->storage != NULL && b != NULL && a->storage == b->storage;
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

static int check_same_type(const th_tensor *a, const th_tensor *b, const char *what) {
  if (a->dtype != b->dtype)
    return th_error_set("%s must be a %sTensor, got a %sTensor", what, th_dtype_name[a->dtype],
                        th_dtype_name[b->dtype]);
  return TH_OK;
}

static int check_long(const th_tensor *idx) {
  if (idx->dtype != TH_LONG)
    return th_error_set("index must be a LongTensor, got a %sTensor", th_dtype_name[idx->dtype]);
  return TH_OK;
}

/* --- results ------------------------------------------------------------ */

typedef struct result {
  th_tensor *r;    /* the caller's result */
  th_tensor *out;  /* where the kernel writes: r or &tmp */
  th_tensor tmp;
  int ndim;        /* the result's shape */
  int64_t size[TH_MAXDIM];
} result;

/* picks r or a temporary as the output (see the banner) and resizes it.
   When r shares a storage with an input, r may even be that input, so r
   is left alone until result_end: resizing it now could change the input. */
static int result_begin(result *res, th_tensor *r, int ndim, const int64_t *size,
                        const th_tensor *const *inputs, int ninputs) {
  int i, alias = 0;
  res->r = r;
  res->out = r;
  res->ndim = ndim;
  memcpy(res->size, size, sizeof(int64_t) * (size_t)ndim);
  th_tensor_init(&res->tmp, r->dtype);
  for (i = 0; i < ninputs; i++) alias = alias || r == inputs[i] || shares(r, inputs[i]);
  if (!alias) {
    if (th_tensor_resize(r, ndim, size) != TH_OK) return TH_ERR;
    if (th_tensor_is_contiguous(r)) return TH_OK;
  }
  if (th_tensor_resize(&res->tmp, ndim, size) != TH_OK) return TH_ERR;
  res->out = &res->tmp;
  return TH_OK;
}

static int result_end(result *res, int rc) {
  if (res->out != res->r && rc == TH_OK) {
    rc = th_tensor_resize(res->r, res->ndim, res->size);
    if (rc == TH_OK) rc = th_tensor_copy(res->r, res->out);
  }
  th_tensor_clear(&res->tmp);
  return rc;
}

/* a private contiguous copy of t, when t shares a storage with 'other' */
static int unshare(th_tensor *copy, const th_tensor **t, const th_tensor *other) {
  th_tensor_init(copy, (*t)->dtype);
  if (!shares(other, *t)) return TH_OK;
  if (th_tensor_resize_as(copy, *t) != TH_OK || th_tensor_copy(copy, *t) != TH_OK) {
    th_tensor_clear(copy);
    return TH_ERR;
  }
  *t = copy;
  return TH_OK;
}

/* --- index, indexCopy, indexAdd, indexFill ------------------------------ */

/* idx (1D LongTensor, or empty) as checked 0-based entries for a dimension
   of size 'bound'; *n gets the count. Free with free(). */
static int64_t *read_indices(const th_tensor *idx, int64_t bound, int dim, int64_t *n) {
  char b[128];
  int64_t *ix, k = 0;
  if (check_long(idx) != TH_OK) return NULL;
  if (idx->ndim > 1) {
    th_error_set("index must be a 1D LongTensor, got %dD %s", idx->ndim,
                 th_tensor_sizestr(idx, b, sizeof b));
    return NULL;
  }
  *n = th_tensor_numel(idx);
  ix = malloc(sizeof(int64_t) * (size_t)(*n > 0 ? *n : 1));
  if (ix == NULL) {
    th_error_set("out of memory reading %lld indices", (long long)*n);
    return NULL;
  }
  if (*n > 0) TH_APPLY1(const int64_t, p, idx, ix[k++] = *p;);
  /* range-checked before the base is subtracted: an index of INT64_MIN must not wrap */
  for (k = 0; k < *n; k++) {
    if (ix[k] < TH_INDEX_BASE || ix[k] - TH_INDEX_BASE >= bound) {
      th_error_set("index %lld out of range for dimension %d of size %lld (entry %lld of the index)",
                   (long long)ix[k], dim + 1, (long long)bound, (long long)k + 1);
      free(ix);
      return NULL;
    }
    ix[k] -= TH_INDEX_BASE;
  }
  return ix;
}

/* src must have t's shape, except n entries along dim */
static int check_index_source(const th_tensor *t, int dim, int64_t n, const th_tensor *src) {
  char a[128], b[128];
  int d, ok = src->ndim == t->ndim;
  for (d = 0; ok && d < t->ndim; d++) ok = src->size[d] == (d == dim ? n : t->size[d]);
  if (!ok) {
    int64_t want[TH_MAXDIM];
    memcpy(want, t->size, sizeof want);
    want[dim] = n;
    return th_error_set("source must be of size %s (%lld indices along dimension %d), got %s",
                        th_error_sizes(a, sizeof a, t->ndim, want), (long long)n, dim + 1,
                        th_tensor_sizestr(src, b, sizeof b));
  }
  return check_same_type(t, src, "source");
}

/* elements in one slice of t along dim (0 if t has none) */
static int64_t slice_numel(const th_tensor *t, int dim) {
  return t->size[dim] == 0 ? 0 : th_tensor_numel(t) / t->size[dim];
}

int th_tensor_index(th_tensor *r, const th_tensor *src, int dim, const th_tensor *idx) {
  if (th_dtype_need_kernels(src->dtype) != TH_OK) return TH_ERR;
  int64_t n = 0, size[TH_MAXDIM], *ix, i;
  const th_tensor *inputs[2];
  result res;
  int rc = TH_OK;
  if (check_dim(src, dim) != TH_OK || check_same_type(src, r, "result") != TH_OK) return TH_ERR;
  if ((ix = read_indices(idx, src->size[dim], dim, &n)) == NULL) return TH_ERR;
  memcpy(size, src->size, sizeof size);
  size[dim] = n;
  inputs[0] = src, inputs[1] = idx;
  if (result_begin(&res, r, src->ndim, size, inputs, 2) != TH_OK) {
    free(ix);
    return result_end(&res, TH_ERR);
  }
  if (th_tensor_numel(res.out) > 0) {
    if (slice_numel(src, dim) >= SLICE_MIN) {
      for (i = 0; i < n && rc == TH_OK; i++) {
        th_tensor o = sliceview(res.out, dim, i), s = sliceview(src, dim, ix[i]);
        rc = th_tensor_copy(&o, &s);
      }
    } else {
      TH_DISPATCH_ALL(src->dtype, index_rows, (res.out, src, dim, ix, n));
    }
  }
  free(ix);
  return result_end(&res, rc);
}

enum { OP_COPY, OP_ADD, OP_FILL };

static int index_update(th_tensor *t, int dim, const th_tensor *idx, const th_tensor *src,
                        double value, int op) {
  if (th_dtype_need_kernels(t->dtype) != TH_OK) return TH_ERR;
  int64_t n = 0, *ix, i;
  th_tensor copy;
  int rc = TH_OK;
  if (check_dim(t, dim) != TH_OK) return TH_ERR;
  if ((ix = read_indices(idx, t->size[dim], dim, &n)) == NULL) return TH_ERR;
  if (op != OP_FILL && check_index_source(t, dim, n, src) != TH_OK) {
    free(ix);
    return TH_ERR;
  }
  if (op != OP_FILL && unshare(&copy, &src, t) != TH_OK) {
    free(ix);
    return TH_ERR;
  }
  if (n > 0 && th_tensor_numel(t) > 0) {
    if (slice_numel(t, dim) >= SLICE_MIN) {
      for (i = 0; i < n && rc == TH_OK; i++) {
        th_tensor o = sliceview(t, dim, ix[i]), s;
        if (op == OP_FILL) {
          rc = th_tensor_fill(&o, value);
          continue;
        }
        s = sliceview(src, dim, i);
        if (op == OP_COPY) rc = th_tensor_copy(&o, &s);
        else TH_DISPATCH_ALL(t->dtype, add_slice, (&o, &s));
      }
    } else if (op == OP_COPY) {
      TH_DISPATCH_ALL(t->dtype, index_copy_rows, (t, dim, ix, n, src));
    } else if (op == OP_ADD) {
      TH_DISPATCH_ALL(t->dtype, index_add_rows, (t, dim, ix, n, src));
    } else {
      TH_DISPATCH_ALL(t->dtype, index_fill_rows, (t, dim, ix, n, value));
    }
  }
  free(ix);
  if (op != OP_FILL) th_tensor_clear(&copy);
  return rc;
}

int th_tensor_index_copy(th_tensor *t, int dim, const th_tensor *idx, const th_tensor *src) {
  return index_update(t, dim, idx, src, 0.0, OP_COPY);
}

int th_tensor_index_add(th_tensor *t, int dim, const th_tensor *idx, const th_tensor *src) {
  return index_update(t, dim, idx, src, 0.0, OP_ADD);
}

int th_tensor_index_fill(th_tensor *t, int dim, const th_tensor *idx, double value) {
  return index_update(t, dim, idx, NULL, value, OP_FILL);
}

/* --- gather, scatter ---------------------------------------------------- */

/* idx: a LongTensor shaped like t except along dim, every entry in 1..bound */
static int check_gather_index(const th_tensor *t, int dim, const th_tensor *idx, int64_t bound) {
  char a[128], b[128];
  int64_t k = 0, bad = -1, badval = 0;
  int d;
  if (check_dim(t, dim) != TH_OK || check_long(idx) != TH_OK) return TH_ERR;
  if (idx->ndim != t->ndim)
    return th_error_set("index must have %d dimensions like the tensor (size %s), got %dD %s",
                        t->ndim, th_tensor_sizestr(t, a, sizeof a), idx->ndim,
                        th_tensor_sizestr(idx, b, sizeof b));
  for (d = 0; d < t->ndim; d++)
    if (d != dim && idx->size[d] != t->size[d])
      return th_error_set("index of size %s does not match the tensor's size %s in dimension %d "
                          "(only dimension %d may differ)",
                          th_tensor_sizestr(idx, a, sizeof a), th_tensor_sizestr(t, b, sizeof b),
                          d + 1, dim + 1);
  if (th_tensor_numel(idx) == 0) return TH_OK;
  TH_APPLY1(const int64_t, p, idx, {
    if (bad < 0 && (*p < TH_INDEX_BASE || *p - TH_INDEX_BASE >= bound)) bad = k;
    if (bad == k) badval = *p;
    k++;
  });
  if (bad >= 0)
    return th_error_set("index %lld out of range for dimension %d of size %lld (entry %lld of the index)",
                        (long long)badval, dim + 1, (long long)bound, (long long)bad + 1);
  return TH_OK;
}

int th_tensor_gather(th_tensor *r, const th_tensor *src, int dim, const th_tensor *idx) {
  if (th_dtype_need_kernels(src->dtype) != TH_OK) return TH_ERR;
  const th_tensor *inputs[2];
  result res;
  if (check_same_type(src, r, "result") != TH_OK) return TH_ERR;
  if (check_gather_index(src, dim, idx, src->ndim > dim && dim >= 0 ? src->size[dim] : 0) != TH_OK)
    return TH_ERR;
  inputs[0] = src, inputs[1] = idx;
  if (result_begin(&res, r, idx->ndim, idx->size, inputs, 2) != TH_OK) return result_end(&res, TH_ERR);
  if (th_tensor_numel(idx) > 0) TH_DISPATCH_ALL(src->dtype, gather_rows, (res.out, src, dim, idx));
  return result_end(&res, TH_OK);
}

int th_tensor_scatter(th_tensor *t, int dim, const th_tensor *idx, const th_tensor *src, double value) {
  if (th_dtype_need_kernels(t->dtype) != TH_OK) return TH_ERR;
  char a[128], b[128];
  th_tensor scopy, xcopy;
  int d, ok;
  if (check_gather_index(t, dim, idx, t->ndim > dim && dim >= 0 ? t->size[dim] : 0) != TH_OK)
    return TH_ERR;
  if (src != NULL) {
    if (check_same_type(t, src, "source") != TH_OK) return TH_ERR;
    ok = src->ndim == idx->ndim;
    for (d = 0; ok && d < idx->ndim; d++)
      ok = d == dim ? src->size[d] >= idx->size[d] : src->size[d] == idx->size[d];
    if (!ok)
      return th_error_set("source of size %s does not fit the index of size %s (same sizes, "
                          "and at least as large in dimension %d)",
                          th_tensor_sizestr(src, a, sizeof a), th_tensor_sizestr(idx, b, sizeof b),
                          dim + 1);
  }
  if (th_tensor_numel(idx) == 0) return TH_OK;
  if (unshare(&xcopy, &idx, t) != TH_OK) return TH_ERR;
  if (src == NULL) {
    TH_DISPATCH_ALL(t->dtype, scatter_fill_rows, (t, dim, idx, value));
  } else {
    if (unshare(&scopy, &src, t) != TH_OK) {
      th_tensor_clear(&xcopy);
      return TH_ERR;
    }
    TH_DISPATCH_ALL(t->dtype, scatter_rows, (t, dim, idx, src));
    th_tensor_clear(&scopy);
  }
  th_tensor_clear(&xcopy);
  return TH_OK;
}

/* --- masks -------------------------------------------------------------- */

/* checks mask (ByteTensor of 0/1, n elements) and counts its ones */
static int check_mask(const th_tensor *mask, int64_t n, int64_t *ones) {
  char a[128];
  int64_t c = 0, bad = -1, k = 0;
  int badval = 0;
  if (mask->dtype != TH_BYTE)
    return th_error_set("mask must be a ByteTensor, got a %sTensor", th_dtype_name[mask->dtype]);
  if (th_tensor_numel(mask) != n)
    return th_error_set("mask of size %s has %lld elements, the tensor has %lld",
                        th_tensor_sizestr(mask, a, sizeof a), (long long)th_tensor_numel(mask),
                        (long long)n);
  if (n > 0)
    TH_APPLY1(const uint8_t, m, mask, {
      c += *m;
      if (*m > 1 && bad < 0) {
        bad = k;
        badval = *m;
      }
      k++;
    });
  if (bad >= 0)
    return th_error_set("mask may hold only 0 and 1, found %d at element %lld", badval,
                        (long long)bad + 1);
  *ones = c;
  return TH_OK;
}

int th_tensor_masked_fill(th_tensor *t, const th_tensor *mask, double value) {
  if (th_dtype_need_kernels(t->dtype) != TH_OK) return TH_ERR;
  int64_t ones;
  if (check_mask(mask, th_tensor_numel(t), &ones) != TH_OK) return TH_ERR;
  if (ones > 0) TH_DISPATCH_ALL(t->dtype, masked_fill, (t, mask, value));
  return TH_OK;
}

int th_tensor_masked_select(th_tensor *r, const th_tensor *src, const th_tensor *mask) {
  if (th_dtype_need_kernels(src->dtype) != TH_OK) return TH_ERR;
  const th_tensor *inputs[2];
  result res;
  int64_t ones;
  if (check_same_type(src, r, "result") != TH_OK) return TH_ERR;
  if (check_mask(mask, th_tensor_numel(src), &ones) != TH_OK) return TH_ERR;
  inputs[0] = src, inputs[1] = mask;
  if (result_begin(&res, r, 1, &ones, inputs, 2) != TH_OK) return result_end(&res, TH_ERR);
  if (ones > 0) TH_DISPATCH_ALL(src->dtype, masked_select, (res.out, src, mask));
  return result_end(&res, TH_OK);
}

int th_tensor_masked_copy(th_tensor *t, const th_tensor *mask, const th_tensor *src) {
  if (th_dtype_need_kernels(t->dtype) != TH_OK) return TH_ERR;
  th_tensor flat;
  int64_t ones;
  int rc;
  if (check_same_type(t, src, "source") != TH_OK) return TH_ERR;
  if (check_mask(mask, th_tensor_numel(t), &ones) != TH_OK) return TH_ERR;
  if (th_tensor_numel(src) < ones)
    return th_error_set("source has %lld elements, fewer than the %lld ones in the mask",
                        (long long)th_tensor_numel(src), (long long)ones);
  if (ones == 0) return TH_OK;
  th_tensor_init(&flat, src->dtype);
  if (shares(t, src) || !th_tensor_is_contiguous(src)) {
    rc = th_tensor_resize_as(&flat, src);
    if (rc == TH_OK) rc = th_tensor_copy(&flat, src);
  } else {
    th_tensor_set_tensor(&flat, src);
    rc = TH_OK;
  }
  if (rc == TH_OK) TH_DISPATCH_ALL(t->dtype, masked_copy, (t, mask, &flat));
  th_tensor_clear(&flat);
  return rc;
}

int th_tensor_nonzero(th_tensor *r, const th_tensor *src) {
  if (th_dtype_need_kernels(src->dtype) != TH_OK) return TH_ERR;
  const th_tensor *inputs[1];
  result res;
  int64_t size[2];
  if (r->dtype != TH_LONG)
    return th_error_set("result must be a LongTensor, got a %sTensor", th_dtype_name[r->dtype]);
  size[0] = th_tensor_numel(src) > 0 ? TH_DISPATCH_ALL(src->dtype, count_nonzero, (src)) : 0;
  size[1] = src->ndim;
  inputs[0] = src;
  if (result_begin(&res, r, src->ndim > 0 ? 2 : 0, size, inputs, 1) != TH_OK)
    return result_end(&res, TH_ERR);
  if (size[0] > 0) TH_DISPATCH_ALL(src->dtype, nonzero, (res.out, src));
  return result_end(&res, TH_OK);
}

/* --- cat ---------------------------------------------------------------- */

/* Torch7 skips empty inputs: no dimension, or a 1D tensor of size 0 */
static int cat_skips(const th_tensor *t) {
  return t->ndim == 0 || (t->ndim == 1 && t->size[0] == 0);
}

static int64_t cat_size(const th_tensor *t, int d) { return d < t->ndim ? t->size[d] : 1; }

int th_tensor_cat(th_tensor *r, int n, const th_tensor *const *ts, int dim) {
  char a[128], b[128];
  int64_t size[TH_MAXDIM], offset = 0;
  int i, d, maxdim = 0, first = -1, rc = TH_OK;
  result res;
  if (n <= 0) return th_error_set("at least one tensor expected");
  for (i = 0; i < n; i++) {
    if (ts[i]->dtype != r->dtype)
      return th_error_set("tensor %d is a %sTensor, expected a %sTensor", i + 1,
                          th_dtype_name[ts[i]->dtype], th_dtype_name[r->dtype]);
    if (cat_skips(ts[i])) continue;
    if (first < 0) first = i;
    if (ts[i]->ndim > maxdim) maxdim = ts[i]->ndim;
  }
  if (first < 0) {  /* only empty inputs: an empty result */
    th_tensor_clear(r);
    return TH_OK;
  }
  if (dim == -1) dim = maxdim - 1;
  /* Torch7's catArray: a dimension past the inputs' last adds dimensions
     of size 1 (two 3x3 along 3 make 3x3x2) */
  if (dim >= maxdim && dim < TH_MAXDIM) maxdim = dim + 1;
  if (dim < 0 || dim >= maxdim)
    return th_error_set("dimension %d out of range for tensors of at most %d dimensions", dim + 1,
                        maxdim);
  for (d = 0; d < maxdim; d++) {
    size[d] = d == dim ? 0 : cat_size(ts[first], d);
    for (i = first; i < n; i++) {
      if (cat_skips(ts[i])) continue;
      if (d == dim) {
        if (cat_size(ts[i], d) > INT64_MAX - size[d])
          return th_error_set("the result's dimension %d overflows (more than 2^63 elements)", dim + 1);
        size[d] += cat_size(ts[i], d);
      } else if (cat_size(ts[i], d) != size[d]) {
        return th_error_set("sizes do not match: tensor %d is %s, tensor %d is %s "
                            "(they may differ only in dimension %d)",
                            first + 1, th_tensor_sizestr(ts[first], a, sizeof a), i + 1,
                            th_tensor_sizestr(ts[i], b, sizeof b), dim + 1);
      }
    }
  }
  if (result_begin(&res, r, maxdim, size, ts, n) != TH_OK) return result_end(&res, TH_ERR);
  for (i = first; i < n && rc == TH_OK; i++) {
    th_tensor o;
    if (cat_skips(ts[i])) continue;
    o = *res.out;
    o.offset += offset * o.stride[dim];
    o.size[dim] = cat_size(ts[i], dim);
    offset += o.size[dim];
    rc = th_tensor_copy(&o, ts[i]);
  }
  return result_end(&res, rc);
}
