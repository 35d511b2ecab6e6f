/*
** th_alloc.c: counted, aligned allocation for storages.
** Invariant: stats.live_bytes == sum of the sizes of all blocks handed out
** and not yet freed; each category's live count sums to the same total.
** Sizes beyond physical memory are refused up front: on Linux an
** over-committed block would be granted and the process killed later.
** Large blocks are rounded to a size class and, freed, kept by the block
** cache (th_blockcache.c) for the next request of their class; live bytes
** count what was asked for, the cache's bytes are reported apart.
*/
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "th_alloc.h"
#include "th_blockcache.h"
#include "th_error.h"

#define ALIGNMENT 64

const char *const th_memcat_name[TH_MEM_NCATS] = {"free", "module", "scoped"};

/* the stats are the process's, changed by every thread that allocates
   (threads.Threads workers each run a Lua state): one lock keeps them
   exact. 'pending' feeds the GC of the Lua state that allocated, which
   runs on the allocating thread: one per thread. */
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static th_memstats stats;
static _Thread_local int64_t pending;

static size_t limit;  /* 0 until first asked: then physical memory (atomic) */

void th_alloc_set_limit(size_t bytes) { __atomic_store_n(&limit, bytes, __ATOMIC_RELAXED); }

size_t th_alloc_limit(void) {
  size_t l = __atomic_load_n(&limit, __ATOMIC_RELAXED);
  if (l == 0) {
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    l = (pages > 0 && psize > 0) ? (size_t)pages * (size_t)psize : ((size_t)1 << 40);
    __atomic_store_n(&limit, l, __ATOMIC_RELAXED);
  }
  return l;
}

/* under stats_lock */
static void account(int64_t delta, th_memcat cat) {
  stats.live_bytes += delta;
  if (stats.live_bytes > stats.peak_bytes) stats.peak_bytes = stats.live_bytes;
  stats.cat_live[cat] += delta;
  if (stats.cat_live[cat] > stats.cat_peak[cat]) stats.cat_peak[cat] = stats.cat_live[cat];
}

/* glibc serves a block above its mmap threshold from its own mapping,
   handed back to the system when freed; but freeing such a block raises
   the threshold to its size (up to 32 MiB), after which blocks that size
   come from the heap and, freed, stay resident. A net traced and then
   planned frees most of its buffers: with the sliding threshold the
   process kept hundreds of MiB it no longer used (resnet-110's traces:
   555 MiB resident against 162 with the threshold fixed). Fixing it once
   turns the sliding off; blocks of 128 KiB (glibc's own start) and more are mapped. */
#define MMAP_THRESHOLD (128 << 10)

static void set_policy(void) {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
#endif
}

static void policy_once(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, set_policy);
}

/* a large block of class 'cbytes': a cached one of its class, a cached
   one resized, else a new one (the cache emptied and the request tried
   again before giving up) */
static void *obtain_large(size_t cbytes) {
  void *p = th_blockcache_take(cbytes);
  if (p == NULL) p = th_blockcache_reshape(cbytes);
  if (p != NULL) return p;
  p = th_blockcache_map(cbytes);
  if (p == NULL && (th_blockcache_flush() == 0 || (p = th_blockcache_map(cbytes)) == NULL)) return NULL;
  th_blockcache_mapped(cbytes);
  return p;
}

/* a block for a request of 'bytes' */
static void *obtain(size_t bytes) {
  size_t cbytes = th_blockcache_class(bytes);
  void *p = NULL;
  if (cbytes >= TH_BLOCKCACHE_MIN) return obtain_large(cbytes);
  if (posix_memalign(&p, ALIGNMENT, cbytes) != 0) return NULL;
  return p;
}

void *th_alloc(size_t bytes, th_memcat cat) {
  void *p = NULL;
  policy_once();
  if (bytes == 0) bytes = 1;  /* a valid, unique pointer for empty storages */
  if (bytes > th_alloc_limit()) {
    th_error_set("cannot allocate %zu bytes: more than the machine's memory (%zu bytes)",
                 bytes, th_alloc_limit());
    return NULL;
  }
  p = obtain(bytes);
  if (p == NULL) {
    th_error_set("out of memory allocating %zu bytes", bytes);
    return NULL;
  }
  pending += (int64_t)bytes;
  pthread_mutex_lock(&stats_lock);
  account((int64_t)bytes, cat);
  stats.live_count++;
  stats.total_count++;
  pthread_mutex_unlock(&stats_lock);
  return p;
}

void *th_realloc(void *p, size_t oldbytes, size_t newbytes, th_memcat cat) {
  void *q;
  if (oldbytes == 0) oldbytes = 1;
  q = th_alloc(newbytes, cat);
  if (q == NULL) return NULL;
  if (p != NULL) {
    memcpy(q, p, oldbytes < newbytes ? oldbytes : newbytes);
    th_free(p, oldbytes, cat);
  }
  return q;
}

void th_free(void *p, size_t bytes, th_memcat cat) {
  if (p == NULL) return;
  if (bytes == 0) bytes = 1;
  if (th_blockcache_class(bytes) >= TH_BLOCKCACHE_MIN) th_blockcache_put(p, th_blockcache_class(bytes));
  else free(p);
  pthread_mutex_lock(&stats_lock);
  account(-(int64_t)bytes, cat);
  stats.live_count--;
  pthread_mutex_unlock(&stats_lock);
}

void th_alloc_recategorize(size_t bytes, th_memcat from, th_memcat to) {
  if (from == to) return;
  if (bytes == 0) bytes = 1;
  pthread_mutex_lock(&stats_lock);
  stats.cat_live[from] -= (int64_t)bytes;
  stats.cat_live[to] += (int64_t)bytes;
  if (stats.cat_live[to] > stats.cat_peak[to]) stats.cat_peak[to] = stats.cat_live[to];
  pthread_mutex_unlock(&stats_lock);
}

void th_alloc_stats(th_memstats *out) {
  pthread_mutex_lock(&stats_lock);
  *out = stats;
  pthread_mutex_unlock(&stats_lock);
}

void th_alloc_reset_peak(void) {
  int c;
  pthread_mutex_lock(&stats_lock);
  stats.peak_bytes = stats.live_bytes;
  for (c = 0; c < TH_MEM_NCATS; c++) stats.cat_peak[c] = stats.cat_live[c];
  pthread_mutex_unlock(&stats_lock);
}

void th_alloc_add_pending(int64_t bytes) { pending += bytes; }

int64_t th_alloc_take_pending(void) {
  int64_t p = pending;
  pending = 0;
  return p;
}
