/*
** th_plan_internal.h: what the planner's passes share.
** A pool is planned on its own, with local tensor numbers 0..m-1 and its
** time compressed to the distinct 'first' steps (see th_plan_interval.c):
** two tensors are alive at a common step iff their compressed intervals
** [ta, tb] intersect. Every pass reads a 'th_plan_pool' and writes offsets.
*/
#ifndef TH_PLAN_INTERNAL_H
#define TH_PLAN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "th_plan.h"

/* a byte range [lo, hi) */
typedef struct th_plan_span {
  int64_t lo, hi;
} th_plan_span;

/* growable text for the debug log; a failed growth drops text, never raises */
typedef struct th_plan_logbuf {
  char *s;
  size_t n, cap;
  int truncated;
} th_plan_logbuf;

void th_plan_logf(th_plan_logbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

typedef struct th_plan_pool {
  int64_t id;
  int m;              /* tensors */
  const int *gidx;    /* global index of each local tensor */
  int64_t *first, *last;  /* steps as given */
  int64_t *size;      /* bytes rounded up to 'align' */
  int64_t *align;     /* a power of two */
  int32_t *ta, *tb;   /* compressed interval */
  int T;              /* compressed steps */
  int64_t *load;      /* bytes alive at each compressed step */
  int64_t lower_bound;
  /* results */
  int64_t *off;
  int32_t *set;       /* 'sets' only */
  int nsets;
  int64_t *set_size, *set_off;
  int64_t arena;
  th_plan_method heuristic;
  int64_t iterations, improvements, work;
} th_plan_pool;

/* --- th_plan_interval.c: time compression, lower bound, ordering keys --- */
/* fills ta, tb, T, load and lower_bound from first, last, size */
int th_plan_interval_prepare(th_plan_pool *pool);
/* key[i] = bytes of all tensors alive at some step of tensor i (itself included) */
int th_plan_interval_conflicts(const th_plan_pool *pool, int64_t *key);
/* key[i] = the highest load during tensor i's lifetime */
int th_plan_interval_peaks(const th_plan_pool *pool, int64_t *key);

/* a sort key: ascending on k[0], k[1], k[2], then on idx (so a total order) */
typedef struct th_plan_key {
  int64_t k[3];
  int32_t idx;
} th_plan_key;
void th_plan_sort_keys(th_plan_key *keys, int n);

/* --- th_plan_order.c: the greedy placement orders --- */
/* order = a permutation of 0..m-1 for 'h' in GREEDY_SIZE..PEAK */
int th_plan_order(const th_plan_pool *pool, th_plan_method h, int *order);

/* --- th_plan_place.c: offsets for one order, best fit among live tensors --- */
/* a segment tree node over buckets of compressed time: 'own' holds the
   byte ranges of tensors whose interval covers the node's buckets (and not
   its parent's), 'sub' the union of byte ranges of every tensor meeting
   them; both sorted, disjoint and non-touching. 'stamp' marks the node as
   seen by the current query */
typedef struct th_plan_node {
  th_plan_span *own, *sub;
  int32_t nown, cown, nsub, csub;
  uint32_t stamp;
} th_plan_node;

/* a tensor that meets a bucket without covering it: exact steps kept */
typedef struct th_plan_entry {
  int32_t ta, tb;
  int64_t lo, hi;
} th_plan_entry;

typedef struct th_plan_bucket {
  th_plan_entry *v;  /* sorted by lo */
  int32_t n, cap;
} th_plan_bucket;

/* lists grow inside big chunks, never freed one by one */
typedef struct th_plan_chunk {
  struct th_plan_chunk *next;
  size_t used, cap;  /* in th_plan_span units */
  th_plan_span data[];
} th_plan_chunk;

typedef struct th_plan_placer {
  int T, L, NB;  /* steps, steps per bucket, buckets */
  int P;         /* leaves, a power of two >= NB */
  uint32_t query;
  th_plan_node *node;
  th_plan_bucket *bucket;
  th_plan_chunk *chunk;
  th_plan_span *buf, *tmp;
  int64_t bufcap;
} th_plan_placer;

typedef struct th_plan_pass {
  /* in */
  int64_t cutoff;      /* stop as soon as the arena would exceed it */
  int64_t work_limit;  /* stop once this much work is spent */
  th_plan_fit fit;
  th_plan_logbuf *log; /* NULL: no log */
  /* out */
  int64_t arena;       /* complete: the arena; else a value > cutoff or partial */
  int complete;
  int top_pos;         /* position in the order of the tensor that set the arena */
  int64_t work;
} th_plan_pass;

int th_plan_placer_init(th_plan_placer *pl, int T);
void th_plan_placer_free(th_plan_placer *pl);
int th_plan_place(th_plan_placer *pl, const th_plan_pool *pool, const int *order, int64_t *off,
                  th_plan_pass *ps);

/* --- th_plan_search.c: hill climbing on the order --- */
/* order/off hold a complete plan of arena pool->arena; on return they hold
   the best plan found and pool->arena, iterations, improvements, work are set */
int th_plan_search(th_plan_placer *pl, th_plan_pool *pool, int *order, int64_t *off,
                   const th_plan_opts *o, int top_pos);

/* --- th_plan_sets.c: OptNet's storage sets --- */
int th_plan_sets(th_plan_pool *pool, th_plan_logbuf *log);

static inline int64_t th_plan_roundup(int64_t x, int64_t align) {
  return (x + align - 1) & ~(align - 1);
}

#endif
