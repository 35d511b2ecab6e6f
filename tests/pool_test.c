/*
** pool_test.c: th_pool_run (src/tensor/th_pool.c) under three threads that
** call it at once, with random chunk counts (1-64), thread counts (1-4) and
** chunk lengths: every chunk of every job must run exactly once, and a job
** must be over when th_pool_run returns (its hit counters are checked right
** after). Callers that find the pool busy run alone, so all three paths
** (helpers, a lone caller, one chunk) are taken. `make test-pool`; built
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

typedef struct job {
  _Atomic int *hits;
  int spin;
} job;

static void chunk(void *p, int i) {
  const job *j = p;
  volatile double x = 0;
  int k;
  for (k = 0; k < j->spin; k++) x += k;
  atomic_fetch_add(&j->hits[i], 1);
}

static void *caller(void *arg) {
  unsigned seed = (unsigned)(uintptr_t)arg;
  _Atomic int hits[MAX_CHUNKS];
  intptr_t bad = 0;
  int t, i;
  for (t = 0; t < JOBS; t++) {
    const int n = 1 + rand_r(&seed) % MAX_CHUNKS, nt = 1 + rand_r(&seed) % 4;
    job j;
    j.hits = hits;
    j.spin = rand_r(&seed) % 2000;
    for (i = 0; i < n; i++) atomic_store(&hits[i], 0);
    th_pool_run(nt, n, chunk, &j);
    for (i = 0; i < n; i++) bad += atomic_load(&hits[i]) != 1;
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
    printf("caller %d: %d jobs, %ld chunks not run exactly once\n", i + 1, JOBS, (long)(intptr_t)r[i]);
    fail |= r[i] != NULL;
  }
  return fail;
}
