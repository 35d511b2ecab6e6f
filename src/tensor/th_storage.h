/*
** th_storage.h: refcounted, typed, contiguous blocks of memory.
** A storage is the unit of memory: tensors are views over one storage,
** and the memory optimizer shares storages between tensors.
*/
#ifndef TH_STORAGE_H
#define TH_STORAGE_H

#include <stdint.h>
#include "th_alloc.h"
#include "th_dtype.h"

typedef struct th_storage {
  void *data;       /* size * th_dtype_size[dtype] bytes (never NULL) */
  int64_t size;     /* in elements */
  th_dtype dtype;
  int refcount;     /* views and Lua handles holding it (changed atomically) */
  th_memcat cat;    /* accounting category of 'data' */
  struct th_storage *base; /* a view's parent (retained): 'data' points into it */
  int nviews;       /* storages viewing this one: its block must not move (atomic) */
  size_t mapped;    /* bytes of a file mapping 'data' is (0: heap memory) */
  uint64_t serial;  /* never reused in the process: an identity that outlives the
                       struct (a freed storage's address comes back for a new one) */
} th_storage;

/* the next storage serial (atomic; starts at 1) */
uint64_t th_storage_next_serial(void);

/* a new storage with refcount 1; contents uninitialised. NULL + th_error on failure */
th_storage *th_storage_new(th_dtype dtype, int64_t size);
void th_storage_retain(th_storage *s);
/* drops one reference; frees at zero. NULL is ignored */
void th_storage_release(th_storage *s);
/* elements [offset, offset + size) of 'base' (0-based) as a storage of
   its own sharing the memory (Torch7's Storage(s, offset, size)) */
th_storage *th_storage_new_view(th_storage *base, int64_t offset, int64_t size);
/* a storage over the file 'filename' (th_storage_map.c): shared maps it
   and writes through to the file (created or grown to 'size' elements as
   needed; a file cut shorter while mapped is caught by th_map_guard.c),
   else a copy of the first 'size' elements of an existing file that holds
   that many at least. size 0: the whole file. */
th_storage *th_storage_new_mapped(th_dtype dtype, const char *filename, int shared, int64_t size);
void th_storage_unmap(th_storage *s);
/* grows or shrinks in place (the block may move), keeping the common prefix */
int th_storage_resize(th_storage *s, int64_t size);
void th_storage_set_category(th_storage *s, th_memcat cat);
size_t th_storage_bytes(const th_storage *s);
/* checks that n elements of 'dtype' fit in a size_t byte count */
int th_storage_checksize(th_dtype dtype, int64_t n);

#endif
