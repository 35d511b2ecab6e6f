/*
** th_blockcache.c: the cache of freed large blocks (th_blockcache.h).
** A small array of entries {block, class bytes, tick}; 'tick' counts the
** large requests seen (th_blockcache_take), so an entry's age is the
** number of large requests since it was freed. Eviction order: the oldest
** first. The arrays are short (ENTRIES): a linear scan costs nothing
** next to the pages a hit saves.
** A request with no block of its class may take a cached block up to two
** classes larger (at most 1/4 more: a DenseNet's gradients shrink by a few
** channels from one layer to the next). Such a block is 'lent': its true
** size is kept in 'lent' until it comes back, since th_free only knows the
** size asked for.
** Large blocks are anonymous mappings of their own (th_blockcache_map), not
** malloc's: a cached block of another class can then be resized in place
** (mremap), keeping its resident pages, where freeing it and mapping a new
** block would fault every page of the new one in again.
*/
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "th_blockcache.h"

/* at most this many cached blocks */
#define ENTRIES 128
/* a block no request took within this many later large requests is freed:
   a training step reuses its sizes within one step; one that is not
   reused holds resident memory for nothing */
#define MAX_AGE 512
/* a request with no block of its class whose new block would take the
   large blocks out and cached above their high-water mark plus the slack
   is given a cached block resized (th_blockcache_reshape) instead, and
   older cached blocks are freed until the rest fits: the cache raises the
   peak of resident large blocks by at most the slack, a sixteenth of the
   mark, or up to SLACK_FLOOR bytes while that is under a quarter. (A
   quarter, the rule before resizing, cost DenseNet-BC b64 480 MiB of
   peak; no slack doubled the kernel time a DenseNet step spends faulting
   pages in, and a sixteenth alone cost ResNet-18 b16 8,000 faults a step
   where a quarter had none, docs/dev/densenet.md) */
#define SLACK_DIV 16
#define SLACK_FLOOR ((size_t)128 << 20)
/* the default cap (torch.blockCacheLimit changes it): the gradients of a
   training step of the bench's larger nets take several hundred MiB of
   blocks (docs/dev/gradrel.md); the high-water rule keeps the cache from
   raising the peak, the cap bounds what it holds after the steps end */
#define DEFAULT_LIMIT ((size_t)1 << 30)
/* blocks from this size on ask for huge pages (th_blockcache_map) */
#define HUGE_MIN ((size_t)4 << 20)

typedef struct entry {
  void *p;
  size_t bytes;
  uint64_t tick;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry cache[ENTRIES];
static int n;                 /* entries in use: cache[0..n-1] */
static size_t cached;         /* sum of their bytes */
static size_t cap = DEFAULT_LIMIT;
static uint64_t tick;
static uint64_t reshaped;     /* blocks resized for another class, ever */
static entry lent[ENTRIES];   /* blocks handed out for a smaller class */
static int nlent;
/* bytes of large blocks handed out now (true sizes) and the most ever */
static size_t out, out_hwm;

/* under lock */
static void handed(size_t bytes) {
  out += bytes;
  if (out > out_hwm) out_hwm = out;
}

size_t th_blockcache_class(size_t bytes) {
  size_t step;
  int shift = 0;
  if (bytes < TH_BLOCKCACHE_MIN) return bytes;
  while ((bytes >> shift) > 15) shift++;
  /* bytes >> shift is in 8..15: classes are multiples of 2^shift */
  step = (size_t)1 << shift;
  if (bytes > SIZE_MAX - step) return bytes;
  return (bytes + step - 1) & ~(step - 1);
}

/* Blocks of HUGE_MIN and more start on a 2 MiB boundary and ask for
   transparent huge pages (Debian's setting gives them only on request):
   a block resized or lent faults its pages in 512 times less often
   (DenseNet-BC b64: 10,400 faults a step against 50,000 with 4 KiB pages,
   docs/dev/densenet.md), and activations and weights of tens of MiB take
   one TLB entry per 2 MiB (step times with and without: within the bench's
   spread, docs/dev/benchmark-notes.md). TH_HUGEPAGES=0 at start-up turns
   it off */
#define HUGE_PAGE ((size_t)2 << 20)

static int huge_on = -1;  /* -1 until the first large block reads TH_HUGEPAGES */

static int huge(size_t cbytes) {
  if (cbytes < HUGE_MIN) return 0;
  if (__atomic_load_n(&huge_on, __ATOMIC_RELAXED) < 0) {
    const char *e = getenv("TH_HUGEPAGES");
    __atomic_store_n(&huge_on, !(e && e[0] == '0'), __ATOMIC_RELAXED);
  }
  return __atomic_load_n(&huge_on, __ATOMIC_RELAXED);
}

void *th_blockcache_map(size_t cbytes) {
  const size_t extra = huge(cbytes) ? HUGE_PAGE : 0;
  char *p = mmap(NULL, cbytes + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  if (extra) {
    /* the 2 MiB boundary inside, the pages before it and past the block unmapped */
    char *q = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (q > p) munmap(p, (size_t)(q - p));
    if (q + cbytes < p + cbytes + extra) munmap(q + cbytes, (size_t)(p + cbytes + extra - (q + cbytes)));
    madvise(q, cbytes, MADV_HUGEPAGE);
    p = q;
  }
  return p;
}

static void unmap(void *p, size_t bytes) {
  munmap(p, bytes);
}

/* under lock: removes entry i, returns it */
static entry drop(int i) {
  entry e = cache[i];
  cached -= e.bytes;
  cache[i] = cache[--n];
  return e;
}

/* under lock: frees entry i */
static void discard(int i) {
  entry e = drop(i);
  unmap(e.p, e.bytes);
}

/* under lock, n > 0: the index of the entry freed longest ago */
static int oldest(void) {
  int i, o = 0;
  for (i = 1; i < n; i++)
    if (cache[i].tick < cache[o].tick) o = i;
  return o;
}

/* under lock: frees the oldest entries until 'extra' more bytes fit under
   the cap and a slot is free; and every entry older than MAX_AGE */
static void evict(size_t extra) {
  int i = 0;
  while (i < n) {
    if (tick - cache[i].tick > MAX_AGE) discard(i);
    else i++;
  }
  while (n > 0 && (cached + extra > cap || n == ENTRIES)) discard(oldest());
}

void *th_blockcache_take(size_t cbytes) {
  void *p = NULL;
  int i, best = -1;
  pthread_mutex_lock(&lock);
  tick++;
  /* the most recently freed block of the class: its pages are the likeliest resident */
  for (i = 0; i < n; i++)
    if (cache[i].bytes == cbytes && (best < 0 || cache[i].tick > cache[best].tick)) best = i;
  if (best < 0 && nlent < ENTRIES) {
    /* else the smallest block up to 1/4 larger, lent */
    for (i = 0; i < n; i++)
      if (cache[i].bytes > cbytes && cache[i].bytes - cbytes <= cbytes / 4
          && out + cache[i].bytes <= out_hwm   /* lending must not raise the peak */
          && (best < 0 || cache[i].bytes < cache[best].bytes)) best = i;
    if (best >= 0) lent[nlent++] = cache[best];
  }
  if (best >= 0) {
    /* a lent block keeps its pages past the request resident: they count
       in 'out' at its true size, so the bound on the resident blocks
       holds, and giving them back faulted them in again when the block
       next served its own class */
    handed(cache[best].bytes);
    p = drop(best).p;
  }
  if (n > 0) evict(0);
  pthread_mutex_unlock(&lock);
  return p;
}

void th_blockcache_put(void *p, size_t cbytes) {
  int i, kept = 0;
  pthread_mutex_lock(&lock);
  for (i = 0; i < nlent; i++)
    if (lent[i].p == p) {
      cbytes = lent[i].bytes;
      lent[i] = lent[--nlent];
      break;
    }
  if (cbytes >= TH_BLOCKCACHE_MIN) out -= cbytes;
  if (cbytes >= TH_BLOCKCACHE_MIN && cbytes <= cap) {
    evict(cbytes);
    cache[n].p = p;
    cache[n].bytes = cbytes;
    cache[n].tick = tick;
    n++;
    cached += cbytes;
    kept = 1;
  }
  pthread_mutex_unlock(&lock);
  if (!kept) unmap(p, cbytes);
}

static size_t slack(void) {
  size_t s = out_hwm / SLACK_DIV, q = out_hwm / 4;
  size_t floor = q < SLACK_FLOOR ? q : SLACK_FLOOR;
  return s > floor ? s : floor;
}

/* under lock, n > 0: the block to resize for class 'cbytes': the closest
   in size (a block grown faults its new pages in; one shrunk gives pages
   back that a later request may fault in again) */
static int reshape_candidate(size_t cbytes) {
  int i, best = 0;
  size_t d, bestd = SIZE_MAX;
  for (i = 0; i < n; i++) {
    d = cache[i].bytes > cbytes ? cache[i].bytes - cbytes : cbytes - cache[i].bytes;
    if (d < bestd) {
      best = i;
      bestd = d;
    }
  }
  return best;
}

void *th_blockcache_reshape(size_t cbytes) {
  entry e;
  void *q;
  pthread_mutex_lock(&lock);
  if (n == 0 || out + cached + cbytes <= out_hwm + slack()) {
    pthread_mutex_unlock(&lock);
    return NULL;
  }
  e = drop(reshape_candidate(cbytes));
  while (n > 0 && out + cached + cbytes > out_hwm + slack()) discard(oldest());
  handed(cbytes);
  reshaped++;
  pthread_mutex_unlock(&lock);
  q = mremap(e.p, e.bytes, cbytes, MREMAP_MAYMOVE);
  if (q != MAP_FAILED) return q;
  unmap(e.p, e.bytes);
  pthread_mutex_lock(&lock);
  out -= cbytes;
  pthread_mutex_unlock(&lock);
  return NULL;
}

void th_blockcache_mapped(size_t cbytes) {
  pthread_mutex_lock(&lock);
  handed(cbytes);
  pthread_mutex_unlock(&lock);
}

size_t th_blockcache_flush(void) {
  size_t freed;
  pthread_mutex_lock(&lock);
  freed = cached;
  while (n > 0) discard(n - 1);
  pthread_mutex_unlock(&lock);
  return freed;
}

void th_blockcache_stats(int64_t *bytes, int64_t *count, int64_t *outb, int64_t *hwm, int64_t *resized) {
  pthread_mutex_lock(&lock);
  *resized = (int64_t)reshaped;
  *bytes = (int64_t)cached;
  *count = n;
  *outb = (int64_t)out;
  *hwm = (int64_t)out_hwm;
  pthread_mutex_unlock(&lock);
}

size_t th_blockcache_limit(void) {
  size_t c;
  pthread_mutex_lock(&lock);
  c = cap;
  pthread_mutex_unlock(&lock);
  return c;
}

void th_blockcache_set_limit(size_t bytes) {
  pthread_mutex_lock(&lock);
  cap = bytes;
  evict(0);
  pthread_mutex_unlock(&lock);
}
