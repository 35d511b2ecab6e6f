/*
** th_blockcache.h: freed large blocks kept for a later request of a close
** size.
** Why: a training step frees its gradients as it consumes them and
** allocates the next ones, of the same sizes, at once. Blocks that large
** are mapped pages; freed, they go back to the system, and the next block
** is fresh pages, each faulted in on first touch. Kept here, the next
** request of the same size class gets the same, resident pages.
** Invariants: a large request is rounded up to its size class (eight
** classes per power of two, so at most 1/8 wasted, in pages never touched
** when the request is smaller); a cached block is reused only for a
** request of its class; before a request it cannot serve is mapped, it
** frees cached blocks until live plus cached bytes fit under the
** high-water mark of live bytes (th_blockcache_reclaim), so it never raises
** the peak; the cache holds at most
** th_blockcache_limit() bytes, drops a block that no request reused within
** a window of later large requests, and is emptied before an allocation
** is reported failed.
** Cached bytes are not live bytes: th_alloc counts what storages hold.
** Thread-safe (its own lock).
*/
#ifndef TH_BLOCKCACHE_H
#define TH_BLOCKCACHE_H

#include <stddef.h>
#include <stdint.h>

/* requests below this many bytes are neither rounded nor cached */
#define TH_BLOCKCACHE_MIN ((size_t)256 << 10)

/* the bytes actually allocated for a request of 'bytes' (its class) */
size_t th_blockcache_class(size_t bytes);
/* a cached block of class 'cbytes', taken out of the cache, or NULL */
void *th_blockcache_take(size_t cbytes);
/* keeps block p of class 'cbytes' (1) or declines (0: the caller frees) */
int th_blockcache_put(void *p, size_t cbytes);
/* before a new block of 'cbytes' is allocated (the cache had none of its
   class), 'live' bytes being held and 'hwm' the most ever held: frees the
   oldest cached blocks until live + cached + cbytes fits under hwm, or the
   cache is empty. So the cache never raises the peak: live plus cached
   bytes stay under the high-water mark of live bytes alone. */
void th_blockcache_reclaim(size_t cbytes, size_t live, size_t hwm);
/* frees every cached block; returns the bytes given back */
size_t th_blockcache_flush(void);
/* bytes and blocks cached now */
void th_blockcache_stats(int64_t *bytes, int64_t *count);
size_t th_blockcache_limit(void);
/* sets the cap (0: no caching; what is cached above it is freed) */
void th_blockcache_set_limit(size_t bytes);

#endif
