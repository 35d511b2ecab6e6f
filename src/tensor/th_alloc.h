/*
** th_alloc.h: the one place storages get memory.
** Every byte handed out is counted (live, peak, count), per category, so
** that torch.memoryStats() is exact and the Lua binding can tell the
** garbage collector how much memory its small userdata really hold.
*/
#ifndef TH_ALLOC_H
#define TH_ALLOC_H

#include <stddef.h>
#include <stdint.h>

/* who owns a storage's memory: for leak hunting (torch.memoryStats) */
typedef enum {
  TH_MEM_FREE = 0,  /* free-floating: owned by whoever holds a reference */
  TH_MEM_MODULE,    /* owned by an nn module (output, gradInput, params, buffers) */
  TH_MEM_SCOPED,    /* registered with a dispose scope */
  TH_MEM_NCATS
} th_memcat;

extern const char *const th_memcat_name[TH_MEM_NCATS];

typedef struct th_memstats {
  int64_t live_bytes, peak_bytes;   /* bytes held by live storages */
  int64_t live_count, total_count;  /* storages alive now / ever allocated */
  int64_t cat_live[TH_MEM_NCATS], cat_peak[TH_MEM_NCATS];
} th_memstats;

/* 64-byte aligned; NULL (with th_error set) on overflow or failure */
void *th_alloc(size_t bytes, th_memcat cat);
/* grows or shrinks a block, keeping min(old, new) bytes */
void *th_realloc(void *p, size_t oldbytes, size_t newbytes, th_memcat cat);
void th_free(void *p, size_t bytes, th_memcat cat);
/* moves accounting of 'bytes' from one category to another */
void th_alloc_recategorize(size_t bytes, th_memcat from, th_memcat to);

void th_alloc_stats(th_memstats *out);
void th_alloc_reset_peak(void);
/* bytes allocated by this thread since its last call: the binding feeds
   them to the GC of the Lua state running on this thread */
int64_t th_alloc_take_pending(void);
/* counts bytes this thread's Lua state took over from another thread (a
   storage shared by threads.sharedserialize) as if allocated here */
void th_alloc_add_pending(int64_t bytes);
/* largest single allocation accepted: physical memory */
size_t th_alloc_limit(void);
/* lowers (or, with 0, resets to physical memory) that limit: for harnesses
   that must not let a legitimate large request reach the machine */
void th_alloc_set_limit(size_t bytes);

#endif
