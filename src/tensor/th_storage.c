/*
** th_storage.c: storage life cycle.
** Invariant: 'data' always points at a live block of at least one byte,
** so views never see NULL and empty storages still have an identity.
*/
#include <stdlib.h>
#include "th_error.h"
#include "th_storage.h"

int th_storage_checksize(th_dtype dtype, int64_t n) {
  if (n < 0) return th_error_set("size must be non-negative, got %lld", (long long)n);
  if ((uint64_t)n > (uint64_t)(SIZE_MAX / 2) / th_dtype_size[dtype])
    return th_error_set("size %lld is too large for %s elements", (long long)n,
                        th_dtype_name[dtype]);
  return TH_OK;
}

size_t th_storage_bytes(const th_storage *s) {
  return (size_t)s->size * th_dtype_size[s->dtype];
}

uint64_t th_storage_next_serial(void) {
  static uint64_t last;
  return __atomic_add_fetch(&last, 1, __ATOMIC_RELAXED);
}

th_storage *th_storage_new(th_dtype dtype, int64_t size) {
  th_storage *s;
  if (th_storage_checksize(dtype, size) != TH_OK) return NULL;
  s = malloc(sizeof *s);
  if (s == NULL) {
    th_error_set("out of memory allocating a storage");
    return NULL;
  }
  s->dtype = dtype;
  s->size = size;
  s->refcount = 1;
  s->cat = TH_MEM_FREE;
  s->base = NULL;
  s->nviews = 0;
  s->mapped = 0;
  s->serial = th_storage_next_serial();
  s->data = th_alloc((size_t)size * th_dtype_size[dtype], s->cat);
  if (s->data == NULL) {
    free(s);
    return NULL;
  }
  return s;
}

th_storage *th_storage_new_view(th_storage *base, int64_t offset, int64_t size) {
  th_storage *s;
  if (offset < 0 || size < 0 || offset > base->size || size > base->size - offset) {
    th_error_set("%lld elements from position %lld do not fit a storage of %lld elements",
                 (long long)size, (long long)offset + 1, (long long)base->size);
    return NULL;
  }
  s = malloc(sizeof *s);
  if (s == NULL) {
    th_error_set("out of memory allocating a storage");
    return NULL;
  }
  s->dtype = base->dtype;
  s->size = size;
  s->refcount = 1;
  s->cat = TH_MEM_FREE;
  s->base = base;
  s->nviews = 0;
  s->mapped = 0;
  s->serial = th_storage_next_serial();
  s->data = (char *)base->data + (size_t)offset * th_dtype_size[base->dtype];
  th_storage_retain(base);
  __atomic_add_fetch(&base->nviews, 1, __ATOMIC_RELAXED);
  return s;
}

/* atomic: a storage may be shared by the Lua states of several threads
   (threads.sharedserialize); the last release must see every write made
   through the other references, hence acq_rel on the way down */
void th_storage_retain(th_storage *s) {
  if (s) __atomic_add_fetch(&s->refcount, 1, __ATOMIC_RELAXED);
}

void th_storage_release(th_storage *s) {
  if (s == NULL || __atomic_sub_fetch(&s->refcount, 1, __ATOMIC_ACQ_REL) > 0) return;
  if (s->base != NULL) {
    __atomic_sub_fetch(&s->base->nviews, 1, __ATOMIC_RELAXED);
    th_storage_release(s->base);
  } else if (s->mapped > 0) {
    th_storage_unmap(s);
  } else {
    th_free(s->data, th_storage_bytes(s), s->cat);
  }
  free(s);
}

int th_storage_resize(th_storage *s, int64_t size) {
  void *p;
  if (size == s->size) return TH_OK;
  /* a view's memory is its parent's, a mapping's is the file's, and a
     parent's block cannot move under its views */
  if (s->base != NULL) return th_error_set("cannot resize a storage that views another");
  if (s->mapped > 0) return th_error_set("cannot resize a storage mapped from a file");
  if (s->nviews > 0)
    return th_error_set("cannot resize a storage viewed by %d other storage(s)", s->nviews);
  if (th_storage_checksize(s->dtype, size) != TH_OK) return TH_ERR;
  p = th_realloc(s->data, th_storage_bytes(s), (size_t)size * th_dtype_size[s->dtype], s->cat);
  if (p == NULL) return TH_ERR;
  s->data = p;
  s->size = size;
  return TH_OK;
}

void th_storage_set_category(th_storage *s, th_memcat cat) {
  /* views and mappings hold no heap bytes of their own */
  if (s->base == NULL && s->mapped == 0) th_alloc_recategorize(th_storage_bytes(s), s->cat, cat);
  s->cat = cat;
}
