/*
** th_storage_map.c: storages whose memory is a file mapped with mmap
** (Torch7's torch.FloatStorage(filename, shared, size)). The mapping lives
** as long as the storage and is unmapped when it is freed; the file
** descriptor is closed at once (a mapping outlives it).
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
#include "th_storage.h"

/* the file's length in elements, or grows it to 'size' (shared only) */
static int file_elements(int fd, const char *filename, th_dtype dtype, int shared, int64_t *size) {
  struct stat st;
  const int64_t esize = (int64_t)th_dtype_size[dtype];
  if (fstat(fd, &st) != 0) return th_error_set("cannot stat '%s': %s", filename, strerror(errno));
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

th_storage *th_storage_new_mapped(th_dtype dtype, const char *filename, int shared, int64_t size) {
  th_storage *s;
  void *p;
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
  if (size == 0) {  /* mmap cannot map nothing: an empty storage of its own */
    close(fd);
    return th_storage_new(dtype, 0);
  }
  p = mmap(NULL, (size_t)size * th_dtype_size[dtype], PROT_READ | PROT_WRITE,
           shared ? MAP_SHARED : MAP_PRIVATE, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    th_error_set("cannot map '%s' (%lld bytes): %s", filename,
                 (long long)size * (long long)th_dtype_size[dtype], strerror(errno));
    return NULL;
  }
  s = malloc(sizeof *s);
  if (s == NULL) {
    munmap(p, (size_t)size * th_dtype_size[dtype]);
    th_error_set("out of memory allocating a storage");
    return NULL;
  }
  s->data = p;
  s->size = size;
  s->dtype = dtype;
  s->refcount = 1;
  s->cat = TH_MEM_FREE;
  s->base = NULL;
  s->nviews = 0;
  s->mapped = (size_t)size * th_dtype_size[dtype];
  return s;
}

void th_storage_unmap(th_storage *s) {
  munmap(s->data, s->mapped);
  s->mapped = 0;
}
