/*
** th_storage_map.c: storages over a file (Torch7's
** torch.FloatStorage(filename, shared, size)).
** shared = true maps the file with MAP_SHARED: writes reach the file and
** other processes mapping it. The mapping lives as long as the storage;
** the descriptor is closed at once (a mapping outlives it). If the file
** is cut shorter while mapped, an access past its new end would raise
** SIGBUS: th_map_guard.c turns that into zeros and a Lua error.
** shared = false reads the file into memory at construction. Torch7
** mapped it copy-on-write (MAP_PRIVATE), which holds the same numbers and
** writes nothing back, but its untouched pages still read the file: a
** file cut shorter later killed the process at the next read. A copy is
** a snapshot no change to the file can reach; its memory is counted by
** the allocator (th_alloc), so a file beyond the memory limit is an error.
*/
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "th_error.h"
#include "th_map_guard.h"
#include "th_storage.h"

/* the file's length in elements, or grows it to 'size' (shared only) */
static int file_elements(int fd, const char *filename, th_dtype dtype, int shared, int64_t *size) {
  struct stat st;
  const int64_t esize = (int64_t)th_dtype_size[dtype];
  if (fstat(fd, &st) != 0) return th_error_set("cannot stat '%s': %s", filename, strerror(errno));
  if (S_ISDIR(st.st_mode)) return th_error_set("cannot map '%s': %s", filename, strerror(EISDIR));
  if (*size == 0) {
    *size = (int64_t)st.st_size / esize;
    return TH_OK;
  }
  if ((int64_t)st.st_size / esize >= *size) return TH_OK;
  if (!shared)
    return th_error_set("file '%s' holds %lld bytes, fewer than the %lld elements asked (%lld bytes)",
                        filename, (long long)st.st_size, (long long)*size, (long long)(*size * esize));
  /* a shared mapping past the end of the file would fault: grow it first */
  if (ftruncate(fd, (off_t)(*size * esize)) != 0)
    return th_error_set("cannot grow '%s' to %lld bytes: %s", filename, (long long)(*size * esize),
                        strerror(errno));
  return TH_OK;
}

/* shared = false: the first 'size' elements of the file, read */
static th_storage *read_copy(int fd, const char *filename, th_dtype dtype, int64_t size) {
  th_storage *s = th_storage_new(dtype, size);
  size_t want = (size_t)size * th_dtype_size[dtype], got = 0;
  if (s == NULL) return NULL;
  while (got < want) {
    ssize_t n = pread(fd, (char *)s->data + got, want - got, (off_t)got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      /* the file shrank between fstat and here, or cannot be read */
      th_error_set("cannot read '%s' (%zu of %zu bytes read): %s", filename, got, want,
                   n < 0 ? strerror(errno) : "the file ended early");
      th_storage_release(s);
      return NULL;
    }
    got += (size_t)n;
  }
  return s;
}

/* shared = true: a MAP_SHARED mapping under the SIGBUS guard */
static th_storage *map_shared(int fd, const char *filename, th_dtype dtype, int64_t size) {
  size_t bytes = (size_t)size * th_dtype_size[dtype];
  th_storage *s;
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    th_error_set("cannot map '%s' (%zu bytes): %s", filename, bytes, strerror(errno));
    return NULL;
  }
  s = malloc(sizeof *s);
  if (s == NULL || th_map_guard_add(p, bytes, filename) != TH_OK) {
    if (s == NULL) th_error_set("out of memory allocating a storage");
    free(s);
    munmap(p, bytes);
    return NULL;
  }
  s->data = p;
  s->size = size;
  s->dtype = dtype;
  s->refcount = 1;
  s->cat = TH_MEM_FREE;
  s->base = NULL;
  s->nviews = 0;
  s->mapped = bytes;
  s->serial = th_storage_next_serial();
  return s;
}

th_storage *th_storage_new_mapped(th_dtype dtype, const char *filename, int shared, int64_t size) {
  th_storage *s;
  int fd;
  if (th_storage_checksize(dtype, size) != TH_OK) return NULL;
  fd = shared ? open(filename, O_RDWR | O_CREAT, 0644) : open(filename, O_RDONLY);
  if (fd < 0) {
    th_error_set("cannot open '%s'%s: %s", filename, shared ? " for reading and writing" : "", strerror(errno));
    return NULL;
  }
  if (file_elements(fd, filename, dtype, shared, &size) != TH_OK) {
    close(fd);
    return NULL;
  }
  /* mmap cannot map nothing: an empty storage of its own */
  if (size == 0) s = th_storage_new(dtype, 0);
  else s = shared ? map_shared(fd, filename, dtype, size) : read_copy(fd, filename, dtype, size);
  close(fd);
  return s;
}

void th_storage_unmap(th_storage *s) {
  th_map_guard_remove(s->data);
  munmap(s->data, s->mapped);
  s->mapped = 0;
}
