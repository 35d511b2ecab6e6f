/*
** th_pool.c: the helper threads behind th_pool_run (see th_pool.h).
** One job at a time: its chunks are claimed through one atomic word that
** holds the job's generation, its chunk count and the next chunk, so a
** helper that wakes after the job is over (or during a later one) cannot
** claim a chunk of the wrong job; the job's function and argument are
** read only after a successful claim, when the job cannot end before the
** claimed chunk is done. A helper that finishes a job watches for the next
** one for spin_us (TH_POOL_SPIN_US, default 2000), calling sched_yield
** between looks so that on a busy core it gives way at once, then sleeps
** on a futex. 2 ms because a vCPU that idled long takes most of a
** millisecond to run a woken thread, so a helper woken by a step's first
** job must stay awake for the rest of the step (measurements:
** docs/dev/benchmark-notes.md, section th_pool.c). Linux only; elsewhere
** th_pool_run runs every chunk on the caller.
*/
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#ifdef __linux__
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
#include "th_pool.h"

/* nonzero while this thread runs a chunk: a job it starts then runs on it alone */
static _Thread_local int in_chunk;

int th_pool_threads(void) {
#ifdef _OPENMP
  const int n = omp_get_max_threads();
  return in_chunk || n < 1 ? 1 : n;
#else
  return 1;
#endif
}

static void serial(int n, void (*fn)(void *, int, int), void *arg) {
  const int was = in_chunk;
  int i;
  in_chunk = 1;
  for (i = 0; i < n; i++) fn(arg, i, 0);
  in_chunk = was;
}

#ifdef __linux__

#define MAX_HELPERS 63
/* the job word: generation (24 bits) | chunk count (20) | next chunk (20) */
#define IDX_BITS 20
#define IDX_MASK ((UINT64_C(1) << IDX_BITS) - 1)
#define GEN_SHIFT (2 * IDX_BITS)
/* how long the caller polls for the helpers' last chunks before it sleeps */
#define WAIT_US 50

static pthread_mutex_t busy = PTHREAD_MUTEX_INITIALIZER; /* one caller's job at a time */
static _Atomic uint64_t word;
static _Atomic uint32_t seq;   /* bumped per job: what idle helpers wait on */
static _Atomic int sleepers;   /* helpers in (or entering) futex_wait */
static _Atomic int done;       /* chunks of the job finished */
static _Atomic int caller_waits; /* the caller sleeps on 'done' */
static _Atomic int allowed;    /* helpers 0 .. allowed - 1 take part in the job */
static void (*job_fn)(void *, int, int);
static void *job_arg;
static uint64_t gen;
static int helpers;            /* started so far (only the job's caller changes it) */
static int spin_us = -1;

/* FUTEX_WAIT (returns at once unless *addr == val) or FUTEX_WAKE (val
   waiters) on a 32-bit atomic */
static void futex(void *addr, int op, int val) {
  syscall(SYS_futex, addr, op, val, NULL, NULL, 0);
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* the next chunk of job 'g', or -1 when it has none left (or is over) */
static int claim(uint64_t g) {
  uint64_t v = atomic_load(&word);
  for (;;) {
    const uint64_t n = (v >> IDX_BITS) & IDX_MASK, i = v & IDX_MASK;
    if ((v >> GEN_SHIFT) != g || i >= n) return -1;
    if (atomic_compare_exchange_weak(&word, &v, v + 1)) return (int)i;
  }
}

/* runs chunks of job g as participant 'slot' (0: the caller) */
static void work(uint64_t g, int slot) {
  const int was = in_chunk;
  int i;
  in_chunk = 1;
  while ((i = claim(g)) >= 0) {
    job_fn(job_arg, i, slot);
    atomic_fetch_add(&done, 1);
    if (atomic_load(&caller_waits)) futex((void *)&done, FUTEX_WAKE_PRIVATE, 1);
  }
  in_chunk = was;
}

/* returns once seq has moved past 'seen': polling with sched_yield, then the futex */
static void wait_job(uint32_t seen) {
  const double t0 = now_us();
  while (atomic_load(&seq) == seen && now_us() - t0 < spin_us) sched_yield();
  if (atomic_load(&seq) != seen) return;
  atomic_fetch_add(&sleepers, 1);
  while (atomic_load(&seq) == seen)
    futex((void *)&seq, FUTEX_WAIT_PRIVATE, (int)seen);
  atomic_fetch_sub(&sleepers, 1);
}

static void *helper(void *p) {
  const int id = (int)(intptr_t)p;
  uint32_t seen = atomic_load(&seq);
  for (;;) {
    wait_job(seen);
    seen = atomic_load(&seq);
    if (id < atomic_load(&allowed)) work(atomic_load(&word) >> GEN_SHIFT, id + 1);
  }
  return NULL;
}

/* starts helpers up to 'want' (fewer when the system refuses), with every
   signal blocked: signals stay with the threads that handle them */
static void start_helpers(int want) {
  sigset_t all, old;
  pthread_attr_t at;
  if (want > MAX_HELPERS) want = MAX_HELPERS;
  if (helpers >= want) return;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_attr_init(&at);
  pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
  while (helpers < want) {
    pthread_t t;
    if (pthread_create(&t, &at, helper, (void *)(intptr_t)helpers) != 0) break;
    helpers++;
  }
  pthread_attr_destroy(&at);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void th_pool_run_slot(int nt, int n, void (*fn)(void *arg, int i, int slot), void *arg) {
  if (nt <= 1 || n <= 1 || (uint64_t)n > IDX_MASK || pthread_mutex_trylock(&busy) != 0) {
    serial(n, fn, arg);
    return;
  }
  if (spin_us < 0) {
    const char *e = getenv("TH_POOL_SPIN_US");
    spin_us = e != NULL ? atoi(e) : 2000;
    if (spin_us < 0) spin_us = 0;
  }
  start_helpers(nt - 1);
  job_fn = fn, job_arg = arg;
  atomic_store(&done, 0);
  atomic_store(&allowed, nt - 1);
  gen = (gen + 1) & ((UINT64_C(1) << (64 - GEN_SHIFT)) - 1);
  atomic_store(&word, gen << GEN_SHIFT | (uint64_t)n << IDX_BITS);
  atomic_fetch_add(&seq, 1);
  if (atomic_load(&sleepers) > 0) futex((void *)&seq, FUTEX_WAKE_PRIVATE, INT_MAX);
  work(gen, 0);
  /* every chunk is claimed: wait for those a helper is still running, by
     polling for WAIT_US (a helper that started late ends a little after the
     caller), then on a futex: asleep, the caller frees its core for a
     helper that sits preempted behind another process (benchmark-notes.md,
     th_pool.c) */
  {
    const double t0 = now_us();
    int v;
    while (atomic_load(&done) < n && now_us() - t0 < WAIT_US) relax();
    while ((v = atomic_load(&done)) < n) {
      atomic_store(&caller_waits, 1);
      if ((v = atomic_load(&done)) >= n) break;
      futex((void *)&done, FUTEX_WAIT_PRIVATE, v);
    }
    atomic_store(&caller_waits, 0);
  }
  pthread_mutex_unlock(&busy);
}

#else

void th_pool_run_slot(int nt, int n, void (*fn)(void *arg, int i, int slot), void *arg) {
  (void)nt;
  serial(n, fn, arg);
}

#endif

typedef struct runjob {
  void (*fn)(void *, int);
  void *arg;
} runjob;

static void run_chunk(void *arg, int i, int slot) {
  const runjob *j = arg;
  (void)slot;
  j->fn(j->arg, i);
}

void th_pool_run(int nt, int n, void (*fn)(void *arg, int i), void *arg) {
  runjob j;
  j.fn = fn, j.arg = arg;
  th_pool_run_slot(nt, n, run_chunk, &j);
}

typedef struct forjob {
  int64_t n, chunks;
  void (*fn)(void *, int64_t);
  void (*range)(void *, int64_t, int64_t);
  void *arg;
} forjob;

static void for_chunk(void *arg, int c) {
  const forjob *j = arg;
  const int64_t lo = j->n * c / j->chunks, hi = j->n * (c + 1) / j->chunks;
  int64_t i;
  if (j->range != NULL) {
    j->range(j->arg, lo, hi);
    return;
  }
  for (i = lo; i < hi; i++) j->fn(j->arg, i);
}

/* FOR_CHUNKS chunks per participant: enough that a helper arriving late
   still finds some, few enough that claiming one (an atomic on a line the
   other core writes too) stays small against its items (measurements:
   docs/dev/benchmark-notes.md, th_pool.c) */
#define FOR_CHUNKS 16

static void for_run(int nt, int64_t n, forjob *j) {
  const int64_t most = nt > 1 ? (int64_t)nt * FOR_CHUNKS : 1;
  if (n <= 0) return;
  j->n = n, j->chunks = n < most ? n : most;
  th_pool_run(nt, (int)j->chunks, for_chunk, j);
}

void th_pool_for(int nt, int64_t n, void (*fn)(void *arg, int64_t i), void *arg) {
  forjob j;
  j.fn = fn, j.range = NULL, j.arg = arg;
  for_run(nt, n, &j);
}

void th_pool_ranges(int nt, int64_t n, void (*fn)(void *arg, int64_t lo, int64_t hi),
                    void *arg) {
  forjob j;
  j.fn = NULL, j.range = fn, j.arg = arg;
  for_run(nt, n, &j);
}
