/*
** th_copy.c: copy (any type to any type, any layouts), fill, contiguous.
** Overlapping copies (src and dst views of one storage that overlap) go
** through a temporary, so a:copy(a:t()) is well defined.
*/
#include <math.h>
#include <string.h>
#include "th_error.h"
#include "th_iter.h"
#include "th_tensor.h"

#define TH_GENERIC_FILE "generic/copy.c"
#include "th_generic_all.h"

/* Half has no generic instance (th_dtype.h): copies into it convert
   through float, as Torch7's TH_float2half((float)x) did */
#define HALF_FROM_0(v) th_float_to_half((float)(v))
#define HALF_FROM_1(v) th_float_to_half((float)(v))
#define HALF_FROM_2(v) (v)
#define TO_HALF_(c, D)                                                          \
  case D(TH_DTF_ENUM):                                                          \
    TH_APPLY2(uint16_t, d, dst, const D(TH_DTF_CTYPE), s, src,                  \
              *d = TH_CAT(HALF_FROM, D(TH_DTF_FLOATING))(*s););                 \
    break;

static int copy_Half(th_tensor *dst, const th_tensor *src) {
  switch (src->dtype) {
    TH_DTYPES(TO_HALF_, ~)
    default: return th_error_set("copy: bad source dtype %d", (int)src->dtype);
  }
  return TH_OK;
}

static int fill_Half(th_tensor *t, double value) {
  const uint16_t v = th_float_to_half((float)value);
  TH_APPLY1(uint16_t, p, t, *p = v;);
  return TH_OK;
}

/* dst = src, any two types, layouts that do not overlap */
static int copy_any(th_tensor *dst, const th_tensor *src) {
  if (dst->dtype == TH_HALF) return copy_Half(dst, src);
  return TH_DISPATCH_ALL(dst->dtype, copy, (dst, src));
}

/* NaN and inf have no integer value: converting one is an error, not a
   silent 0 or INT64_MIN */
static int nonfinite_error(th_dtype to) {
  return th_error_set("cannot convert nan or inf to an integer (%sTensor)", th_dtype_name[to]);
}

static int has_nonfinite(const th_tensor *t) {
  int bad = 0;
  if (t->dtype == TH_FLOAT) TH_APPLY1(const float, p, t, if (!isfinite(*p)) bad = 1;);
  else if (t->dtype == TH_DOUBLE) TH_APPLY1(const double, p, t, if (!isfinite(*p)) bad = 1;);
  else if (t->dtype == TH_HALF) TH_APPLY1(const uint16_t, p, t, if ((*p & 0x7c00) == 0x7c00) bad = 1;);
  return bad;
}

static int overlaps(const th_tensor *a, const th_tensor *b) {
  size_t ea = th_dtype_size[a->dtype], eb = th_dtype_size[b->dtype];
  const char *a0, *a1, *b0, *b1;
  if (a->storage == NULL || b->storage == NULL) return 0;
  if (a->storage->data != b->storage->data) return 0;
  a0 = (const char *)a->storage->data + a->offset * (int64_t)ea;
  a1 = (const char *)a->storage->data + th_tensor_extent(a) * (int64_t)ea;
  b0 = (const char *)b->storage->data + b->offset * (int64_t)eb;
  b1 = (const char *)b->storage->data + th_tensor_extent(b) * (int64_t)eb;
  return a0 < b1 && b0 < a1;
}

static int same_view(const th_tensor *a, const th_tensor *b) {
  return a->storage == b->storage && a->offset == b->offset && a->dtype == b->dtype &&
         th_tensor_same_size(a, b) &&
         memcmp(a->stride, b->stride, sizeof(int64_t) * (size_t)a->ndim) == 0;
}

int th_tensor_copy(th_tensor *dst, const th_tensor *src) {
  char a[128], b[128];
  if (th_tensor_numel(dst) != th_tensor_numel(src))
    return th_error_set("element counts differ: destination of size %s has %lld, source of size %s has %lld",
                        th_tensor_sizestr(dst, a, sizeof a), (long long)th_tensor_numel(dst),
                        th_tensor_sizestr(src, b, sizeof b), (long long)th_tensor_numel(src));
  if (th_tensor_numel(dst) == 0 || same_view(dst, src)) return TH_OK;
  if (TH_IS_INTEGER(dst->dtype) && !TH_IS_INTEGER(src->dtype) && has_nonfinite(src))
    return nonfinite_error(dst->dtype);
  if (dst->dtype == src->dtype && th_tensor_is_contiguous(dst) && th_tensor_is_contiguous(src)) {
    memmove(th_tensor_data(dst), th_tensor_data(src),
            (size_t)th_tensor_numel(src) * th_dtype_size[src->dtype]);
    return TH_OK;
  }
  if (overlaps(dst, src)) {
    th_tensor tmp;
    int rc;
    th_tensor_init(&tmp, src->dtype);
    if (th_tensor_resize_as(&tmp, src) != TH_OK) return TH_ERR;
    rc = copy_any(&tmp, src);
    if (rc == TH_OK) rc = copy_any(dst, &tmp);
    th_tensor_clear(&tmp);
    return rc;
  }
  return copy_any(dst, src);
}

int th_tensor_fill(th_tensor *t, double value) {
  if (TH_IS_INTEGER(t->dtype) && !isfinite(value)) return nonfinite_error(t->dtype);
  if (t->dtype == TH_HALF) return fill_Half(t, value);
  return TH_DISPATCH_ALL(t->dtype, fill, (t, value));
}

int th_tensor_zero(th_tensor *t) {
  if (th_tensor_is_contiguous(t) && th_tensor_numel(t) > 0) {
    memset(th_tensor_data(t), 0, (size_t)th_tensor_numel(t) * th_dtype_size[t->dtype]);
    return TH_OK;
  }
  return th_tensor_fill(t, 0.0);
}

int th_tensor_contiguous(th_tensor *r, const th_tensor *src) {
  th_tensor tmp;
  /* r becomes a view of src (or of its copy): of another type it would
     read src's bytes as its own */
  if (r->dtype != src->dtype)
    return th_error_set("a torch.%sTensor cannot view a torch.%sTensor's elements",
                        th_dtype_name[r->dtype], th_dtype_name[src->dtype]);
  if (th_tensor_is_contiguous(src)) {
    th_tensor_set_tensor(r, src);
    return TH_OK;
  }
  th_tensor_init(&tmp, src->dtype);
  if (th_tensor_resize_as(&tmp, src) != TH_OK) return TH_ERR;
  if (th_tensor_copy(&tmp, src) != TH_OK) {
    th_tensor_clear(&tmp);
    return TH_ERR;
  }
  th_tensor_set_tensor(r, &tmp);
  th_tensor_clear(&tmp);
  return TH_OK;
}
