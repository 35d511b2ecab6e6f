/*
** th_tensor.c: tensor life cycle, resize and views.
** Views never allocate: they share the source's storage. Every function
** validates dims and ranges itself and leaves 'r' untouched on error.
*/
#include <stdio.h>
#include <string.h>
#include "th_checked.h"
#include "th_error.h"
#include "th_tensor.h"

void th_tensor_init(th_tensor *t, th_dtype dtype) {
  memset(t, 0, sizeof *t);
  t->dtype = dtype;
}

void th_tensor_clear(th_tensor *t) {
  th_storage_release(t->storage);
  t->storage = NULL;
  t->offset = 0;
  t->ndim = 0;
}

int64_t th_tensor_numel(const th_tensor *t) {
  int64_t n;
  if (t->ndim == 0) return 0;
  /* every view keeps its count within int64 (checked where sizes are made);
     an empty view may hold sizes whose product alone would not fit */
  if (th_numel_overflows(t->ndim, t->size, &n)) return INT64_MAX;
  return n;
}

int th_tensor_is_contiguous(const th_tensor *t) {
  int64_t expected = 1;
  int d;
  for (d = t->ndim - 1; d >= 0; d--) {
    if (t->size[d] != 1) {
      if (t->stride[d] != expected) return 0;
      /* an empty view's sizes may not multiply within int64 */
      if (th_mul_overflows(expected, t->size[d], &expected)) return 0;
    }
  }
  return 1;
}

int th_tensor_same_size(const th_tensor *a, const th_tensor *b) {
  int d;
  if (a->ndim != b->ndim) return 0;
  for (d = 0; d < a->ndim; d++)
    if (a->size[d] != b->size[d]) return 0;
  return 1;
}

void *th_tensor_data(const th_tensor *t) {
  if (t->storage == NULL) return NULL;
  return (char *)t->storage->data + t->offset * (int64_t)th_dtype_size[t->dtype];
}

int64_t th_tensor_extent(const th_tensor *t) {
  int64_t last = 0;
  int d;
  if (th_tensor_numel(t) == 0) return t->offset;
  for (d = 0; d < t->ndim; d++) last += (t->size[d] - 1) * t->stride[d];
  return t->offset + last + 1;
}

int th_tensor_check_extent(const th_tensor *t, const char *what) {
  /* one pass, in unsigned arithmetic: an empty view's other sizes may be
     anything (set() bounded only the non-empty dimensions), and its sum is
     then not used. Called for every tensor argument: kept to a loop */
  uint64_t last = (uint64_t)t->offset;
  int d, empty = t->ndim == 0;
  char buf[128];
  for (d = 0; d < t->ndim; d++) {
    empty |= t->size[d] == 0;
    last += (uint64_t)(t->size[d] - 1) * (uint64_t)t->stride[d];
  }
  if (empty || (t->storage != NULL && last < (uint64_t)t->storage->size)) return TH_OK;
  return th_error_set("%s of size %s extends past its storage (needs %lld elements, storage has %lld)",
                      what, th_tensor_sizestr(t, buf, sizeof buf), (long long)th_tensor_extent(t),
                      (long long)(t->storage != NULL ? t->storage->size : 0));
}

char *th_tensor_sizestr(const th_tensor *t, char *buf, size_t len) {
  return th_error_sizes(buf, len, t->ndim, t->size);
}

/* checks sizes and computes the element count, guarding against overflow */
static int check_sizes(int ndim, const int64_t *size, int64_t *numel) {
  int64_t n = 1, nz = 1;  /* nz: the product with zeros taken as 1, which
                            contiguous strides are made of */
  int d;
  if (ndim < 0 || ndim > TH_MAXDIM)
    return th_error_set("number of dimensions must be between 0 and %d, got %d", TH_MAXDIM, ndim);
  for (d = 0; d < ndim; d++) {
    if (size[d] < 0)
      return th_error_set("size must be non-negative, got %lld at dimension %d",
                          (long long)size[d], d + 1);
    if (size[d] > 0 && nz > INT64_MAX / size[d])
      return th_error_set("size overflows: more than 2^63 elements");
    n *= size[d];
    if (size[d] > 0) nz *= size[d];
  }
  *numel = ndim == 0 ? 0 : n;
  return TH_OK;
}

/* th_tensor_extent for a view not yet known to be sane: a set() with
   strides like 2^62 must fail here, not wrap around to a small extent
   that passes for "fits in the storage". Zero-size dimensions are skipped
   (not taken to empty the view), so the bound holds for empty views too. */
static int checked_extent(const th_tensor *t, int64_t *extent) {
  int64_t last = t->offset;
  int d;
  char buf[128];
  for (d = 0; d < t->ndim; d++) {
    int64_t n = t->size[d] - 1;
    if (n <= 0) continue;
    if (t->stride[d] > (INT64_MAX - 1 - last) / n)
      return th_error_set("view of size %s reaches past 2^63 elements (offset %lld, stride %lld at dimension %d)",
                          th_tensor_sizestr(t, buf, sizeof buf), (long long)t->offset,
                          (long long)t->stride[d], d + 1);
    last += n * t->stride[d];
  }
  if (last == INT64_MAX)
    return th_error_set("view of size %s at offset %lld reaches past 2^63 elements",
                        th_tensor_sizestr(t, buf, sizeof buf), (long long)t->offset);
  *extent = last + 1;
  return TH_OK;
}

/* grows (never shrinks) the storage so that the view fits */
static int ensure_storage(th_tensor *t) {
  int64_t need = th_tensor_extent(t);
  if (t->ndim == 0) return TH_OK;
  if (t->storage == NULL) {
    t->storage = th_storage_new(t->dtype, need);
    return t->storage ? TH_OK : TH_ERR;
  }
  if (need > t->storage->size) return th_storage_resize(t->storage, need);
  return TH_OK;
}

int th_tensor_resize(th_tensor *t, int ndim, const int64_t *size) {
  int64_t numel = 0, stride = 1;
  int d;
  if (check_sizes(ndim, size, &numel) != TH_OK) return TH_ERR;
  if (th_storage_checksize(t->dtype, numel) != TH_OK) return TH_ERR;
  if (t->offset > INT64_MAX - numel) return th_error_set("size overflows with the offset");
  if (t->limit > 0 && t->storage != NULL && t->offset + numel > t->limit)
    return th_error_set("this tensor lives in a planned memory slot of %lld elements (optnet); "
                        "%lld elements do not fit: call optnet.removeOptimization(net) or optimize again for this input",
                        (long long)(t->limit - t->offset), (long long)numel);
  if (ndim == t->ndim) {
    int same = 1;
    for (d = 0; d < ndim; d++) same = same && size[d] == t->size[d];
    if (same) return ensure_storage(t);
  }
  {
    th_tensor saved = *t;
    t->ndim = ndim;
    for (d = ndim - 1; d >= 0; d--) {
      t->size[d] = size[d];
      t->stride[d] = stride;
      stride *= size[d] > 0 ? size[d] : 1;
    }
    if (ensure_storage(t) != TH_OK) {
      th_storage *s = t->storage;
      *t = saved;
      t->storage = s;
      return TH_ERR;
    }
  }
  return TH_OK;
}

int th_tensor_resize_as(th_tensor *t, const th_tensor *src) {
  return th_tensor_resize(t, src->ndim, src->size);
}

int th_tensor_resize1d(th_tensor *t, int64_t n) { return th_tensor_resize(t, 1, &n); }

int th_tensor_resize2d(th_tensor *t, int64_t n0, int64_t n1) {
  int64_t s[2];
  s[0] = n0;
  s[1] = n1;
  return th_tensor_resize(t, 2, s);
}

int th_tensor_set(th_tensor *t, th_storage *s, int64_t offset, int ndim,
                  const int64_t *size, const int64_t *stride) {
  th_tensor v;
  int64_t numel = 0, cstride = 1, extent = 0;
  int d;
  if (s != NULL && s->dtype != t->dtype)
    return th_error_set("storage type %s does not match tensor type %s",
                        th_dtype_name[s->dtype], th_dtype_name[t->dtype]);
  if (offset < 0) return th_error_set("storage offset must be non-negative, got %lld", (long long)offset);
  if (check_sizes(ndim, size, &numel) != TH_OK) return TH_ERR;
  th_tensor_init(&v, t->dtype);
  v.flags = t->flags;
  v.storage = s;
  v.offset = offset;
  v.ndim = ndim;
  for (d = ndim - 1; d >= 0; d--) {
    v.size[d] = size[d];
    if (stride && stride[d] < 0)
      return th_error_set("stride must be non-negative, got %lld", (long long)stride[d]);
    v.stride[d] = stride ? stride[d] : cstride;
    cstride *= size[d] > 0 ? size[d] : 1;  /* check_sizes bounded this product */
  }
  /* checked for empty views too: narrow and select of any view then add
     offsets that stay below this bound */
  if (checked_extent(&v, &extent) != TH_OK) return TH_ERR;
  if (s == NULL && numel > 0) {
    /* no storage but elements to hold: make one, as resize would */
    v.storage = th_storage_new(t->dtype, extent);
    if (v.storage == NULL) return TH_ERR;
    th_storage_release(t->storage);
    *t = v;
    return TH_OK;
  }
  th_storage_retain(s);
  if (s != NULL && numel > 0 && extent > s->size) {
    /* Torch7 grows the storage to fit, as resize does */
    if (th_storage_resize(s, extent) != TH_OK) {
      th_storage_release(s);
      return TH_ERR;
    }
  }
  th_storage_release(t->storage);
  *t = v;
  return TH_OK;
}

void th_tensor_set_tensor(th_tensor *t, const th_tensor *src) {
  if (t == src) return;
  th_storage_retain(src->storage);
  th_storage_release(t->storage);
  t->storage = src->storage;
  t->offset = src->offset;
  t->limit = src->limit;
  t->ndim = src->ndim;
  memcpy(t->size, src->size, sizeof t->size);
  memcpy(t->stride, src->stride, sizeof t->stride);
}

/* a 0-based index as messages print it; saturates rather than overflow */
static long long one_based(int64_t i) { return i == INT64_MAX ? (long long)i : (long long)i + 1; }

static int check_dim(const th_tensor *t, int dim, int extra) {
  if (dim < 0 || dim >= t->ndim + extra) {
    if (t->ndim + extra == 0) return th_error_set("tensor is empty: no dimension %d", dim + 1);
    return th_error_set("dimension %d out of range for a %dD tensor (expected 1..%d)",
                        dim + 1, t->ndim, t->ndim + extra);
  }
  return TH_OK;
}

int th_tensor_narrow(th_tensor *r, const th_tensor *src, int dim, int64_t first, int64_t len) {
  th_tensor v;
  if (check_dim(src, dim, 0) != TH_OK) return TH_ERR;
  if (first < 0 || first > src->size[dim] - (len != 0))
    return th_error_set("start index %lld out of range for dimension %d of size %lld",
                        one_based(first), dim + 1, (long long)src->size[dim]);
  if (len < 0 || len > src->size[dim] - first)
    return th_error_set("length %lld from index %lld exceeds dimension %d of size %lld",
                        (long long)len, one_based(first), dim + 1, (long long)src->size[dim]);
  v = *src;
  /* an empty narrow may start one past the end: its offset is never read,
     and size * stride is beyond the bound set() checked for (size-1) * stride */
  if (first < src->size[dim]) v.offset += first * src->stride[dim];
  v.size[dim] = len;
  th_tensor_set_tensor(r, &v);
  return TH_OK;
}

int th_tensor_select(th_tensor *r, const th_tensor *src, int dim, int64_t index) {
  th_tensor v;
  int d;
  if (check_dim(src, dim, 0) != TH_OK) return TH_ERR;
  if (src->ndim == 1)
    return th_error_set("cannot select on a 1D tensor (use t[i] for a number)");
  if (index < 0 || index >= src->size[dim])
    return th_error_set("index %lld out of range for dimension %d of size %lld",
                        one_based(index), dim + 1, (long long)src->size[dim]);
  v = *src;
  v.offset += index * src->stride[dim];
  for (d = dim; d < src->ndim - 1; d++) {
    v.size[d] = src->size[d + 1];
    v.stride[d] = src->stride[d + 1];
  }
  v.ndim--;
  th_tensor_set_tensor(r, &v);
  return TH_OK;
}

int th_tensor_transpose(th_tensor *r, const th_tensor *src, int d1, int d2) {
  th_tensor v;
  int64_t tmp;
  if (check_dim(src, d1, 0) != TH_OK || check_dim(src, d2, 0) != TH_OK) return TH_ERR;
  v = *src;
  tmp = v.size[d1], v.size[d1] = v.size[d2], v.size[d2] = tmp;
  tmp = v.stride[d1], v.stride[d1] = v.stride[d2], v.stride[d2] = tmp;
  th_tensor_set_tensor(r, &v);
  return TH_OK;
}

int th_tensor_permute(th_tensor *r, const th_tensor *src, const int *perm) {
  th_tensor v;
  int seen[TH_MAXDIM] = {0};
  int d;
  v = *src;
  for (d = 0; d < src->ndim; d++) {
    if (perm[d] < 0 || perm[d] >= src->ndim || seen[perm[d]])
      return th_error_set("permutation must hold each of 1..%d once", src->ndim);
    seen[perm[d]] = 1;
    v.size[d] = src->size[perm[d]];
    v.stride[d] = src->stride[perm[d]];
  }
  th_tensor_set_tensor(r, &v);
  return TH_OK;
}

int th_tensor_unfold(th_tensor *r, const th_tensor *src, int dim, int64_t size, int64_t step) {
  th_tensor v;
  if (check_dim(src, dim, 0) != TH_OK) return TH_ERR;
  if (src->ndim >= TH_MAXDIM) return th_error_set("too many dimensions (at most %d)", TH_MAXDIM);
  if (size < 0 || size > src->size[dim])
    return th_error_set("unfold size %lld out of range for dimension %d of size %lld",
                        (long long)size, dim + 1, (long long)src->size[dim]);
  if (step <= 0) return th_error_set("unfold step must be positive, got %lld", (long long)step);
  v = *src;
  v.ndim = src->ndim + 1;
  v.size[dim] = (src->size[dim] - size) / step + 1;
  /* one window: its stride is never used, and step * stride may not fit */
  if (v.size[dim] == 1) {
    v.stride[dim] = src->stride[dim];
  } else if (__builtin_mul_overflow(step, src->stride[dim], &v.stride[dim])) {
    /* only an empty view (another dimension of size 0) gets here: a
       non-empty one has step * stride within its own extent */
    return th_error_set("unfold step %lld times stride %lld overflows", (long long)step,
                        (long long)src->stride[dim]);
  }
  v.size[src->ndim] = size;
  v.stride[src->ndim] = src->stride[dim];
  {
    /* windows x size may exceed the source's count (overlapping windows,
       stride-0 dimensions): the result's count must still fit */
    int64_t n;
    if (th_numel_overflows(v.ndim, v.size, &n))
      return th_error_set("unfold of dimension %d (size %lld, step %lld) gives more than 2^63 elements",
                          dim + 1, (long long)size, (long long)step);
  }
  th_tensor_set_tensor(r, &v);
  return TH_OK;
}

int th_tensor_squeeze(th_tensor *r, const th_tensor *src) {
  th_tensor v = *src;
  int d, n = 0;
  for (d = 0; d < src->ndim; d++) {
    if (src->size[d] != 1) {
      v.size[n] = src->size[d];
      v.stride[n] = src->stride[d];
      n++;
    }
  }
  if (n == 0 && src->ndim > 0) {  /* all ones: keep one dimension, as Torch7 */
    v.size[0] = 1;
    v.stride[0] = 1;
    n = 1;
  }
  v.ndim = n;
  th_tensor_set_tensor(r, &v);
  return TH_OK;
}

int th_tensor_squeeze1d(th_tensor *r, const th_tensor *src, int dim) {
  th_tensor v = *src;
  int d;
  if (check_dim(src, dim, 0) != TH_OK) return TH_ERR;
  if (src->size[dim] == 1 && src->ndim > 1) {
    for (d = dim; d < src->ndim - 1; d++) {
      v.size[d] = src->size[d + 1];
      v.stride[d] = src->stride[d + 1];
    }
    v.ndim--;
  }
  th_tensor_set_tensor(r, &v);
  return TH_OK;
}

int th_tensor_unsqueeze(th_tensor *r, const th_tensor *src, int dim) {
  th_tensor v = *src;
  int d;
  if (check_dim(src, dim, 1) != TH_OK) return TH_ERR;
  if (src->ndim == 0) return th_error_set("cannot unsqueeze an empty tensor (it has no dimensions)");
  if (src->ndim >= TH_MAXDIM) return th_error_set("too many dimensions (at most %d)", TH_MAXDIM);
  for (d = src->ndim; d > dim; d--) {
    v.size[d] = src->size[d - 1];
    v.stride[d] = src->stride[d - 1];
  }
  v.size[dim] = 1;
  /* a size-1 dimension's stride is never multiplied by a nonzero index: when
     size * stride does not fit (views of no elements allow any stride) any
     value is correct */
  if (dim >= src->ndim || __builtin_mul_overflow(src->size[dim], src->stride[dim], &v.stride[dim]))
    v.stride[dim] = 1;
  v.ndim = src->ndim + 1;
  th_tensor_set_tensor(r, &v);
  return TH_OK;
}

int th_tensor_expand(th_tensor *r, const th_tensor *src, int ndim, const int64_t *size) {
  th_tensor v;
  char a[128], b[128];
  int d, shift = ndim - src->ndim;
  if (ndim < src->ndim || ndim > TH_MAXDIM || src->ndim == 0)
    return th_error_set("cannot expand size %s to %s", th_tensor_sizestr(src, a, sizeof a),
                        th_error_sizes(b, sizeof b, ndim, size));
  th_tensor_init(&v, src->dtype);
  v = *src;
  v.ndim = ndim;
  for (d = ndim - 1; d >= 0; d--) {
    int sd = d - shift;
    int64_t ssize = sd >= 0 ? src->size[sd] : 1;
    if (size[d] < 0)
      return th_error_set("cannot expand size %s to %s: size %lld at dimension %d must be non-negative",
                          th_tensor_sizestr(src, a, sizeof a), th_error_sizes(b, sizeof b, ndim, size),
                          (long long)size[d], d + 1);
    if (ssize != 1 && ssize != size[d])
      return th_error_set("cannot expand size %s to %s: dimension %d is %lld, not 1",
                          th_tensor_sizestr(src, a, sizeof a), th_error_sizes(b, sizeof b, ndim, size),
                          d + 1, (long long)ssize);
    v.size[d] = size[d];
    v.stride[d] = (ssize == 1 && size[d] != 1) ? 0 : (sd >= 0 ? src->stride[sd] : 0);
  }
  {
    int64_t numel;  /* stride 0 needs no memory, but every loop counts elements */
    if (check_sizes(ndim, size, &numel) != TH_OK) return TH_ERR;
  }
  th_tensor_set_tensor(r, &v);
  return TH_OK;
}

int th_tensor_view(th_tensor *r, const th_tensor *src, int ndim, const int64_t *size) {
  th_tensor v;
  int64_t sz[TH_MAXDIM], known = 1, numel = th_tensor_numel(src);
  int d, infer = -1, sd, vd;
  char a[128], b[128];
  if (ndim <= 0 || ndim > TH_MAXDIM)
    return th_error_set("view needs 1 to %d sizes, got %d", TH_MAXDIM, ndim);
  for (d = 0; d < ndim; d++) {
    sz[d] = size[d];
    if (size[d] == -1) {
      if (infer >= 0) return th_error_set("only one size may be -1");
      infer = d;
    } else if (size[d] < 0) {
      return th_error_set("size must be non-negative or -1, got %lld", (long long)size[d]);
    } else {
      if (size[d] > 0 && known > INT64_MAX / size[d])
        return th_error_set("size overflows: more than 2^63 elements");
      known *= size[d];
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0)
      return th_error_set("cannot infer size -1: %lld elements do not divide by %lld",
                          (long long)numel, (long long)known);
    sz[infer] = numel / known;
    known *= sz[infer];
  }
  {
    int64_t unused;  /* the strides of an empty view multiply the non-zero sizes */
    if (check_sizes(ndim, sz, &unused) != TH_OK) return TH_ERR;
  }
  if (known != numel)
    return th_error_set("cannot view a tensor of size %s (%lld elements) as %s (%lld elements)",
                        th_tensor_sizestr(src, a, sizeof a), (long long)numel,
                        th_error_sizes(b, sizeof b, ndim, sz), (long long)known);
  /* match groups of source dims to groups of view dims with equal element counts;
     each source group must be contiguous in itself */
  v = *src;
  v.ndim = ndim;
  sd = 0;
  vd = 0;
  while (vd < ndim) {
    int64_t vn = 1, sn = 1, chunk_stride;
    int s0 = sd, v0 = vd, k;
    if (numel == 0) {
      for (k = ndim - 1; k >= 0; k--) v.stride[k] = (k == ndim - 1) ? 1 : v.stride[k + 1] * (sz[k + 1] ? sz[k + 1] : 1);
      break;
    }
    vn = sz[vd++];
    sn = src->size[sd++];
    while (vn != sn) {
      if (vn < sn) vn *= sz[vd++];
      else sn *= src->size[sd++];
    }
    /* absorb trailing size-1 dims into the groups */
    while (vd < ndim && sz[vd] == 1 && (sd >= src->ndim || src->size[sd] != 1)) vd++;
    while (sd < src->ndim && src->size[sd] == 1 && (vd >= ndim || sz[vd] != 1)) sd++;
    /* each dimension of size > 1 must step over the whole next one of
       size > 1: size-1 dimensions in between do not count, their strides
       are arbitrary (comparing with them let 6x1x6 with strides 6,6,6
       pass as contiguous) */
    for (k = s0; k < sd; k++) {
      int j;
      if (src->size[k] == 1) continue;
      for (j = k + 1; j < sd && src->size[j] == 1; j++) {}
      if (j < sd && src->stride[k] != src->stride[j] * src->size[j])
        return th_error_set("cannot view a non-contiguous tensor of size %s as %s (call :contiguous() first)",
                            th_tensor_sizestr(src, a, sizeof a), th_error_sizes(b, sizeof b, ndim, sz));
    }
    chunk_stride = 1;
    for (k = sd - 1; k >= s0; k--)
      if (src->size[k] != 1) { chunk_stride = src->stride[k]; break; }
    for (k = vd - 1; k >= v0; k--) {
      v.size[k] = sz[k];
      v.stride[k] = chunk_stride;
      if (k > v0) chunk_stride *= sz[k];  /* the group's last product is unused and may not fit */
    }
  }
  for (d = 0; d < ndim; d++) v.size[d] = sz[d];
  th_tensor_set_tensor(r, &v);
  return TH_OK;
}
