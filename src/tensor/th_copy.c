/*
** th_copy.c: copy (any type to any type, any layouts), fill, contiguous.
** Overlapping copies (src and dst views of one storage that overlap) go
** through a temporary, so a:copy(a:t()) is well defined.
*/
#include <string.h>
#include "th_error.h"
#include "th_iter.h"
#include "th_tensor.h"

#define TH_GENERIC_FILE "generic/copy.c"
#include "th_generic_all.h"

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
    TH_DISPATCH_ALL(src->dtype, copy, (&tmp, src));
    rc = TH_DISPATCH_ALL(dst->dtype, copy, (dst, &tmp));
    th_tensor_clear(&tmp);
    return rc;
  }
  return TH_DISPATCH_ALL(dst->dtype, copy, (dst, src));
}

int th_tensor_fill(th_tensor *t, double value) {
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
