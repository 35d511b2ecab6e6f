/*
** th_plan.h: the memory planner.
** Input: tensors, each with an inclusive step interval [first, last], a
** byte size, a pool id and an alignment. Output: a byte offset per tensor
** into one arena per pool, such that two tensors of one pool that are
** alive at a common step never share a byte; the arena size of each pool;
** and its lower bound, the most (aligned) bytes alive at any one step.
** Pools are planned independently: a pool's plan depends only on its own
** tensors, in the order they were added.
** Plans are deterministic: the local search counts work units instead of
** reading a clock (see th_plan_opts.budget_ms).
** Plain C: no Lua. Failures return TH_ERR with a message (th_error.h).
*/
#ifndef TH_PLAN_H
#define TH_PLAN_H

#include <stdint.h>

typedef struct th_plan th_plan;

typedef enum {
  TH_PLAN_BEST = 0,        /* every greedy order below, keep the best, then local search */
  TH_PLAN_GREEDY_SIZE,     /* decreasing size, best fit: TFLite's arena planner */
  TH_PLAN_GREEDY_CONFLICT, /* decreasing bytes of the tensors alive at the same time */
  TH_PLAN_GREEDY_LIFETIME, /* longest lifetime first */
  TH_PLAN_PEAK,            /* highest load during the lifetime first: largest-at-peak */
  TH_PLAN_SETS,            /* OptNet's shared storages; arena = sum of the storages */
  TH_PLAN_NMETHODS
} th_plan_method;

/* "best", "greedy_size", "greedy_conflict", "greedy_lifetime", "peak", "sets" */
extern const char *const th_plan_method_name[TH_PLAN_NMETHODS];
/* the method called 'name', or -1 */
int th_plan_method_parse(const char *name);

typedef enum {
  TH_PLAN_FIT_BEST = 0,  /* the smallest gap that holds the tensor (TFLite) */
  TH_PLAN_FIT_FIRST,     /* the lowest gap that holds it: for comparison */
  TH_PLAN_NFITS
} th_plan_fit;

typedef struct th_plan_opts {
  th_plan_method method;
  th_plan_fit fit;
  int64_t alignment;  /* for tensors added with align 0; a power of two; default 64 */
  /* local search budget per pool ('best' only). Converted to a count of
     work units (TH_PLAN_WORK_PER_MS, calibrated on the project's build machine), so
     the same input always gives the same plan; 0 turns the search off */
  double budget_ms;
  int64_t max_iters;  /* extra cap on local search iterations; < 0: none */
  uint64_t seed;      /* of the search's own PRNG */
  int debug;          /* record why each tensor went where it did: th_plan_log */
} th_plan_opts;

#define TH_PLAN_WORK_PER_MS 100000

void th_plan_opts_init(th_plan_opts *o);

/* NULL (with th_error set) when out of memory */
th_plan *th_plan_new(void);
void th_plan_free(th_plan *p);

/* adds a tensor; returns its index (0, 1, ...) or TH_ERR for bytes < 0,
   last < first, an alignment that is not 0 or a power of two, or no memory */
int th_plan_add(th_plan *p, int64_t first, int64_t last, int64_t bytes, int64_t pool);
int th_plan_add_aligned(th_plan *p, int64_t first, int64_t last, int64_t bytes, int64_t pool,
                        int64_t align);
int th_plan_count(const th_plan *p);

/* plans every pool; may be called again with other options */
int th_plan_solve(th_plan *p, const th_plan_opts *o);

/* results, valid after a successful th_plan_solve */
int64_t th_plan_offset(const th_plan *p, int i);
int64_t th_plan_size(const th_plan *p, int i);  /* bytes rounded up to the alignment */
int th_plan_npools(const th_plan *p);
int64_t th_plan_pool_id(const th_plan *p, int k);  /* k-th pool in increasing id order */
int64_t th_plan_arena(const th_plan *p, int64_t pool);        /* 0 for an unknown pool */
int64_t th_plan_lower_bound(const th_plan *p, int64_t pool);  /* 0 for an unknown pool */
/* 'sets' only: the storage of tensor i (0-based, numbered across pools), else -1 */
int th_plan_set(const th_plan *p, int i);
int th_plan_nsets(const th_plan *p);
int64_t th_plan_set_bytes(const th_plan *p, int s);

typedef struct th_plan_stats {
  int64_t tensors, arena, lower_bound;
  th_plan_method heuristic;  /* the order that won (the method itself unless 'best') */
  int64_t iterations;        /* local search moves tried */
  int64_t improvements;      /* of which lowered the arena */
  int64_t work;              /* work units spent by the search */
  int nsets;                 /* 'sets' only */
} th_plan_stats;
/* TH_ERR for an unknown pool */
int th_plan_stats_get(const th_plan *p, int64_t pool, th_plan_stats *out);

/* with opts.debug: one line per tensor, tensors numbered from 1 ("#1"),
   saying where it went and, when it could not share, why. "" otherwise */
const char *th_plan_log(const th_plan *p);

#endif
