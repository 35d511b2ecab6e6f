/*
** th_thr_registry.c: ids and reference counts of the objects shared
** between threads (see th_thr.h). One lock guards everything: these
** operations happen per job or per handle, never per element.
*/
#include <pthread.h>
#include <stdlib.h>
#include "th_thr.h"

#define NBUCKETS 256

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static thr_obj *buckets[NBUCKETS];
static int64_t next_id = 1;
static int64_t live[THR_NKINDS];
static int64_t inflight;

static thr_obj **slot(int64_t id) { return &buckets[(uint64_t)id % NBUCKETS]; }

static thr_obj *find(int64_t id) {
  thr_obj *o;
  for (o = *slot(id); o != NULL; o = o->next)
    if (o->id == id) return o;
  return NULL;
}

int64_t thr_register(thr_obj *o, thr_kind kind, int isinflight) {
  int64_t id;
  pthread_mutex_lock(&lock);
  id = next_id++;
  o->kind = kind;
  o->id = id;
  o->refs = 1;
  o->transfers = isinflight ? 1 : 0;
  inflight += o->transfers;
  o->next = *slot(id);
  *slot(id) = o;
  live[kind]++;
  pthread_mutex_unlock(&lock);
  return id;
}

thr_obj *thr_lookup(int64_t id, thr_kind kind) {
  thr_obj *o;
  pthread_mutex_lock(&lock);
  o = find(id);
  if (o != NULL && (kind == 0 || o->kind == kind)) o->refs++;
  else o = NULL;
  pthread_mutex_unlock(&lock);
  return o;
}

void thr_retain(thr_obj *o) {
  pthread_mutex_lock(&lock);
  o->refs++;
  pthread_mutex_unlock(&lock);
}

void thr_release(thr_obj *o) {
  int dead;
  pthread_mutex_lock(&lock);
  dead = --o->refs == 0;
  if (dead) {
    thr_obj **p = slot(o->id);
    while (*p != o) p = &(*p)->next;
    *p = o->next;
    live[o->kind]--;
  }
  pthread_mutex_unlock(&lock);
  if (dead) thr_destroy(o);
}

int64_t thr_share(thr_obj *o) {
  pthread_mutex_lock(&lock);
  o->refs++;
  o->transfers++;
  inflight++;
  pthread_mutex_unlock(&lock);
  return o->id;
}

thr_obj *thr_adopt(int64_t id) {
  thr_obj *o;
  pthread_mutex_lock(&lock);
  o = find(id);
  if (o != NULL && o->transfers > 0) {
    o->transfers--;
    inflight--;
  } else {
    o = NULL;
  }
  pthread_mutex_unlock(&lock);
  return o;
}

int64_t thr_count(thr_kind kind) {
  int64_t n = 0;
  int k;
  pthread_mutex_lock(&lock);
  for (k = 1; k < THR_NKINDS; k++)
    if (kind == 0 || (int)kind == k) n += live[k];
  pthread_mutex_unlock(&lock);
  return n;
}

int64_t thr_count_inflight(void) {
  int64_t n;
  pthread_mutex_lock(&lock);
  n = inflight;
  pthread_mutex_unlock(&lock);
  return n;
}

void thr_destroy(thr_obj *o) {
  switch (o->kind) {
    case THR_MUTEX: thr_mutex_destroy(o); break;
    case THR_COND: thr_cond_destroy(o); break;
    case THR_QUEUE: thr_queue_destroy(o); break;
    case THR_TENSOR:
    case THR_STORAGE: thr_share_destroy(o); break;
    default: break;
  }
}
