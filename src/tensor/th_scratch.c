/*
** th_scratch.c: one workspace block per calling thread (th_scratch.h).
** The block is presented to kernels as a storage of its own, embedded in
** the thread's record, that the record always holds a reference to: a
** view of it is an ordinary tensor (kernels index it as they indexed a
** module's buffer), releasing the view never frees the block, and the
** storage's refcount above one says a view is alive. Its 'nviews' is kept
** at one so that th_storage_resize refuses it: the block moves only here.
** Memory comes from the C library, not th_alloc: storages and workspace
** are counted apart, and th_alloc's limit (torch._C.allocLimit) is
** honoured all the same.
*/
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "th_error.h"
#include "th_scratch.h"

/* blocks grow to a multiple of this: a few layers of nearly equal need
   then share one size instead of growing layer by layer */
#define SCRATCH_GRAIN ((size_t)1 << 16)
#define SCRATCH_ALIGN 64

typedef struct scratch {
  th_storage st;  /* data = the block; refcount 1 = ours, more = a live view */
  size_t cap;     /* bytes of the block (0: none) */
} scratch;

static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static __thread scratch *mine;
static int64_t live_bytes, peak_bytes, blocks;  /* atomics: all threads */

static void count(int64_t delta) {
  int64_t now = __atomic_add_fetch(&live_bytes, delta, __ATOMIC_RELAXED);
  int64_t peak = __atomic_load_n(&peak_bytes, __ATOMIC_RELAXED);
  while (now > peak &&
         !__atomic_compare_exchange_n(&peak_bytes, &peak, now, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

static void drop_block(scratch *s) {
  if (s->cap == 0) return;
  free(s->st.data);
  count(-(int64_t)s->cap);
  __atomic_sub_fetch(&blocks, 1, __ATOMIC_RELAXED);
  s->st.data = NULL;
  s->st.size = 0;
  s->cap = 0;
}

/* a thread that exits takes its block with it; a view still alive then
   would be a kernel's bug, and its memory is left rather than freed under it */
static void thread_gone(void *p) {
  scratch *s = p;
  if (s->st.refcount > 1) return;
  drop_block(s);
  free(s);
}

static void make_key(void) {
  if (pthread_key_create(&key, thread_gone) != 0) abort();  /* only at the key limit */
}

static scratch *get(void) {
  scratch *s;
  if (mine) return mine;
  pthread_once(&key_once, make_key);
  s = calloc(1, sizeof *s);
  if (s == NULL) {
    th_error_set("scratch: out of memory for this thread's record");
    return NULL;
  }
  s->st.refcount = 1;
  s->st.nviews = 1;
  s->st.cat = TH_MEM_FREE;
  if (pthread_setspecific(key, s) != 0) {
    free(s);
    th_error_set("scratch: cannot register this thread's workspace");
    return NULL;
  }
  mine = s;
  return s;
}

/* the block grown to at least 'bytes' (its contents are not kept) */
static int grow(scratch *s, size_t bytes) {
  size_t cap = (bytes + SCRATCH_GRAIN - 1) / SCRATCH_GRAIN * SCRATCH_GRAIN;
  void *p;
  if (cap <= s->cap) return TH_OK;
  if (cap > th_alloc_limit())
    return th_error_set("scratch: a kernel's workspace of %zu bytes exceeds the allocation limit "
                        "of %zu bytes", bytes, th_alloc_limit());
  drop_block(s);  /* before the new one: the old and the new are never both held */
  if (posix_memalign(&p, SCRATCH_ALIGN, cap) != 0)
    return th_error_set("scratch: out of memory allocating a kernel's workspace of %zu bytes",
                        cap);
  s->st.data = p;
  s->cap = cap;
  count((int64_t)cap);
  __atomic_add_fetch(&blocks, 1, __ATOMIC_RELAXED);
  return TH_OK;
}

int th_scratch_take(th_tensor *t, int ndim, const int64_t *size) {
  scratch *s = get();
  size_t esz = th_dtype_size[t->dtype], n = 1;
  int d;
  if (s == NULL) return TH_ERR;
  if (t->storage == &s->st) th_tensor_clear(t);
  if (s->st.refcount > 1)
    return th_error_set("scratch: this thread's workspace is already in use (one kernel "
                        "workspace at a time per thread)");
  for (d = 0; d < ndim; d++) {
    if (size[d] < 0) return th_error_set("scratch: size must be non-negative, got %lld",
                                         (long long)size[d]);
    if (size[d] > 0 && n > (SIZE_MAX / 2) / esz / (size_t)size[d])
      return th_error_set("scratch: a workspace of that size overflows");
    n *= (size_t)size[d];
  }
  if (grow(s, n * esz > 0 ? n * esz : 1) != TH_OK) return TH_ERR;
  s->st.dtype = t->dtype;
  s->st.size = (int64_t)(s->cap / esz);
  return th_tensor_set(t, &s->st, 0, ndim, size, NULL);
}

int th_scratch_take1d(th_tensor *t, int64_t n) {
  return th_scratch_take(t, 1, &n);
}

int th_scratch_release(void) {
  scratch *s = mine;
  if (s == NULL) return TH_OK;
  if (s->st.refcount > 1)
    return th_error_set("scratch: this thread's workspace is in use by a running kernel");
  drop_block(s);
  return TH_OK;
}

int64_t th_scratch_bytes(void) {
  return mine ? (int64_t)mine->cap : 0;
}

void th_scratch_get_stats(th_scratch_stats *out) {
  out->live_bytes = __atomic_load_n(&live_bytes, __ATOMIC_RELAXED);
  out->peak_bytes = __atomic_load_n(&peak_bytes, __ATOMIC_RELAXED);
  out->blocks = __atomic_load_n(&blocks, __ATOMIC_RELAXED);
}

void th_scratch_reset_peak(void) {
  __atomic_store_n(&peak_bytes, __atomic_load_n(&live_bytes, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}
