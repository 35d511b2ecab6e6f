/*
** tds_atomic.c: tds.AtomicCounter, a 64-bit counter shared between
** threads (each thread's Lua state holds a box on the same tds_atomic).
** Sequentially consistent C11 atomics: a value set before a job is
** handed to another thread is the value that thread reads.
*/
#include <pthread.h>
#include "tds.h"

tds_atomic *tds_atomic_new(void) {
  tds_atomic *a = tds_mem_alloc(sizeof *a);
  if (a == NULL) return NULL;
  tds_obj_init(&a->hdr, TDS_ATOMIC);
  atomic_init(&a->value, 0);
  return a;
}

int64_t tds_atomic_inc(tds_atomic *a) { return atomic_fetch_add(&a->value, 1); }
int64_t tds_atomic_get(tds_atomic *a) { return atomic_load(&a->value); }
void tds_atomic_set(tds_atomic *a, int64_t value) { atomic_store(&a->value, value); }

/* --- a self-test: 'nthreads' OS threads each increment the counter 'n'
   times; with a plain long the total would come out short --- */
typedef struct hammer_job {
  tds_atomic *a;
  int64_t n;
} hammer_job;

static void *hammer(void *p) {
  hammer_job *job = p;
  int64_t i;
  for (i = 0; i < job->n; i++) tds_atomic_inc(job->a);
  return NULL;
}

int tds_atomic_selftest(tds_atomic *a, int nthreads, int64_t n) {
  pthread_t tid[64];
  hammer_job job = {a, n};
  int i, started = 0, rc = 0;
  if (nthreads < 1 || nthreads > 64) return -1;
  for (i = 0; i < nthreads; i++) {
    if (pthread_create(&tid[i], NULL, hammer, &job) != 0) { rc = -1; break; }
    started++;
  }
  for (i = 0; i < started; i++) pthread_join(tid[i], NULL);
  return rc;
}
