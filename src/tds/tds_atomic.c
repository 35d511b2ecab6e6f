/*
** tds_atomic.c: tds.AtomicCounter, a 64-bit counter shared between
** threads (each thread's Lua state holds a box on the same tds_atomic).
** Sequentially consistent C11 atomics: a value set before a job is
** handed to another thread is the value that thread reads.
*/
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
