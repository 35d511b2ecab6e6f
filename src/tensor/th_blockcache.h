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
** request of its class (or lent to one up to 1/4 smaller, and then only
** under the high-water mark below, counted at its true size); when a new
** block would take the large blocks out and cached above the most ever
** out at once plus a sixteenth of it, a cached block is resized for the
** request instead (th_blockcache_reshape) and older ones freed, so it
** raises the peak of large blocks by at most that sixteenth; it holds
** at most th_blockcache_limit() bytes, drops a block that no request reused within
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
/* a cached block for a request of class 'cbytes', taken out of the
   cache, or NULL */
void *th_blockcache_take(size_t cbytes);
/* a new large block of class 'cbytes' (an anonymous mapping), or NULL */
void *th_blockcache_map(size_t cbytes);
/* block p of class 'cbytes' (from th_blockcache_map, take or reshape) was
   freed: keeps it, or unmaps it (over the cap) */
void th_blockcache_put(void *p, size_t cbytes);
/* when take had no block for class 'cbytes' and a new block would take
   the large blocks handed out and cached above the most ever handed out
   at once plus a sixteenth of it: a cached block resized to 'cbytes' (its
   resident pages kept; the older cached blocks freed until the rest fits
   under that bound), or NULL (a new block fits, the cache is empty, or
   resizing failed). So resident large blocks stay within a sixteenth of
   what they would have reached without the cache. */
void *th_blockcache_reshape(size_t cbytes);
/* a new block of class 'cbytes' was mapped and handed out */
void th_blockcache_mapped(size_t cbytes);
/* frees every cached block; returns the bytes given back */
size_t th_blockcache_flush(void);
/* bytes and blocks cached now; large-block bytes handed out now and
   their high-water mark; blocks ever resized by th_blockcache_reshape */
void th_blockcache_stats(int64_t *bytes, int64_t *count, int64_t *out, int64_t *out_hwm, int64_t *resized);
size_t th_blockcache_limit(void);
/* sets the cap (0: no caching; what is cached above it is freed) */
void th_blockcache_set_limit(size_t bytes);

#endif
