/*
** pool_test.c: th_pool_run, th_pool_run_slot, th_pool_for and
** th_pool_ranges (src/tensor/th_pool.c) under three threads that call them
** at once, with random chunk counts (1-64; th_pool_for and th_pool_ranges
** 0-5000 items), thread counts (1-4)
** and chunk lengths: every chunk or item of every job must run exactly once,
** and a job must be over when the call returns (its hit counters are
** checked right after); th_pool_run_slot's slots must lie in [0, nt) and
** never serve two chunks of one job at once. Callers that find the pool
** busy run alone, so all three paths (helpers, a lone caller, one chunk)
** are taken. `make test-pool`; built
** with -fsanitize=thread by `make test-pool POOL_TSAN=1`. Prints the number
** of bad chunks per caller and exits 1 if any.
*/
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "../src/tensor/th_pool.h"

#define JOBS 5000
#define MAX_CHUNKS 64
#define MAX_ITEMS 5000

typedef struct job {
  _Atomic int *hits;
  _Atomic int busy[4];   /* per slot: a chunk is running on it */
  _Atomic int badslot;
  int spin, nt;
} job;

static void spin(int n) {
  volatile double x = 0;
  int k;
  for (k = 0; k < n; k++) x += k;
}

static void chunk(void *p, int i) {
  job *j = p;
  spin(j->spin);
  atomic_fetch_add(&j->hits[i], 1);
}

static void slot_chunk(void *p, int i, int slot) {
  job *j = p;
  if (slot < 0 || slot >= j->nt || atomic_exchange(&j->busy[slot], 1) != 0) {
    atomic_fetch_add(&j->badslot, 1);
  } else {
    spin(j->spin);
    atomic_store(&j->busy[slot], 0);
  }
  atomic_fetch_add(&j->hits[i], 1);
}

static void item(void *p, int64_t i) {
  job *j = p;
  spin(j->spin / 64);
  atomic_fetch_add(&j->hits[i], 1);
}

static void range(void *p, int64_t lo, int64_t hi) {
  job *j = p;
  int64_t i;
  if (lo >= hi) atomic_fetch_add(&j->badslot, 1);  /* an empty range is a wasted chunk */
  for (i = lo; i < hi; i++) item(p, i);
}

static void *caller(void *arg) {
  unsigned seed = (unsigned)(uintptr_t)arg;
  static _Thread_local _Atomic int hits[MAX_ITEMS];
  intptr_t bad = 0;
  int t, i;
  for (t = 0; t < JOBS; t++) {
    const int kind = t % 4, nt = 1 + rand_r(&seed) % 4;
    const int n = kind >= 2 ? rand_r(&seed) % MAX_ITEMS : 1 + rand_r(&seed) % MAX_CHUNKS;
    job j;
    j.hits = hits;
    j.spin = rand_r(&seed) % 2000;
    j.nt = nt;
    for (i = 0; i < 4; i++) atomic_init(&j.busy[i], 0);
    atomic_init(&j.badslot, 0);
    for (i = 0; i < n; i++) atomic_store(&hits[i], 0);
    if (kind == 0) th_pool_run(nt, n, chunk, &j);
    else if (kind == 1) th_pool_run_slot(nt, n, slot_chunk, &j);
    else if (kind == 2) th_pool_for(nt, n, item, &j);
    else th_pool_ranges(nt, n, range, &j);
    for (i = 0; i < n; i++) bad += atomic_load(&hits[i]) != 1;
    bad += atomic_load(&j.badslot);
  }
  return (void *)bad;
}

int main(void) {
  pthread_t th[2];
  void *r[3];
  int i, fail = 0;
  for (i = 0; i < 2; i++)
    if (pthread_create(&th[i], NULL, caller, (void *)(uintptr_t)(i + 1)) != 0) {
      fprintf(stderr, "pool_test: pthread_create failed\n");
      return 1;
    }
  r[2] = caller((void *)(uintptr_t)3);
  for (i = 0; i < 2; i++) pthread_join(th[i], &r[i]);
  for (i = 0; i < 3; i++) {
    printf("caller %d: %d jobs, %ld chunks not run exactly once or on a wrong slot\n", i + 1, JOBS, (long)(intptr_t)r[i]);
    fail |= r[i] != NULL;
  }
  return fail;
}
