/*
** th_scratch.h: the shared workspace of the kernels.
** A kernel's workspace (im2col columns, Winograd tiles, packed operands,
** per-thread partial sums) is needed only while the kernel runs. Kept in
** every module between calls, it multiplies by the number of layers; taken
** from one block per calling thread, it costs the largest single need.
** The block belongs to the thread that calls the kernel (the main Lua
** state's thread, each thread of the threads library); th_pool helpers
** work in the rows their caller sized for them (th_nn_scratch_rows), so a
** parallel kernel needs one block, not one per helper. The block grows on
** demand, is kept for the next call (no allocation per layer once the
** largest layer ran) and freed by th_scratch_release or when its thread
** exits. Its bytes are counted apart from storages (torch.memoryStats's
** 'scratch' category).
*/
#ifndef TH_SCRATCH_H
#define TH_SCRATCH_H

#include <stdint.h>
#include "th_tensor.h"

/* makes 't' (of its own dtype) a contiguous ndim x size view of this
   thread's block, grown first when too small; the contents are undefined.
   One view at a time per thread: until 't' is cleared (th_tensor_clear)
   another request on this thread is an error, never an overlap. A 't'
   that already views the block is re-sized in place. TH_ERR + th_error
   when memory cannot be had. */
int th_scratch_take(th_tensor *t, int ndim, const int64_t *size);
/* th_scratch_take of n elements */
int th_scratch_take1d(th_tensor *t, int64_t n);

/* frees this thread's block (TH_ERR while a view of it is alive) */
int th_scratch_release(void);
/* bytes of this thread's block */
int64_t th_scratch_bytes(void);

typedef struct th_scratch_stats {
  int64_t live_bytes, peak_bytes;  /* all threads' blocks */
  int64_t blocks;                  /* threads holding a block */
} th_scratch_stats;
void th_scratch_get_stats(th_scratch_stats *out);
/* starts the peak again from the live bytes (torch.resetPeakMemory) */
void th_scratch_reset_peak(void);

#endif
