/*
** th_pool.h: a small pool of helper threads for splitting one job (a
** product in th_sgemm, a layer's planes, features or images in src/nn)
** into chunks. Unlike an OpenMP parallel region, the caller
** never waits for a helper that has not started yet: chunks are claimed
** one by one, the caller claims too, and it waits only for chunks a helper
** has claimed. A helper woken late (a halted vCPU, a busy core) then costs
** nothing, and a process without helpers (after fork, or when threads
** cannot be created) runs every chunk on the caller. Helpers look for the
** next job for 2 ms before they sleep, so through a network step, whose
** layers follow each other within microseconds, they stay awake.
** A chunk must not open an OpenMP region (a helper is no OpenMP thread: it
** would start a team of its own); a job started inside a chunk runs
** serially on that thread.
*/
#ifndef TH_POOL_H
#define TH_POOL_H

#include <stdint.h>

/* how many threads a job may use: torch.setnumthreads's count (kept as
   OpenMP's setting, which bin/th and the libraries read too); 1 inside a
   chunk (a job started there runs serially) and without OpenMP */
int th_pool_threads(void);

/* runs fn(arg, i) for every i in [0, n), on the calling thread and up to
   nt - 1 helpers; returns when all n have returned. Calls from several
   threads at once are safe: a caller that finds the pool busy runs its
   chunks alone. */
void th_pool_run(int nt, int n, void (*fn)(void *arg, int i), void *arg);

/* th_pool_run telling each chunk which participant runs it: slot 0 is the
   caller (and every chunk when the job runs serially), 1 .. nt - 1 the
   helpers, so per-thread scratch can be indexed by slot */
void th_pool_run_slot(int nt, int n, void (*fn)(void *arg, int i, int slot), void *arg);

/* runs fn(arg, i) for every i in [0, n) like th_pool_run, any n >= 0:
   the items are cut into a few chunks of consecutive items per thread */
void th_pool_for(int nt, int64_t n, void (*fn)(void *arg, int64_t i), void *arg);

/* th_pool_for's chunks as ranges: fn(arg, lo, hi) runs items [lo, hi), for
   loops whose items are too cheap for a call each */
void th_pool_ranges(int nt, int64_t n, void (*fn)(void *arg, int64_t lo, int64_t hi),
                    void *arg);

#endif
