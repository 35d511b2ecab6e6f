/*
** th_plan.c: the planner object: tensors in, per-pool plans out.
** th_plan_solve splits the tensors by pool (keeping their order), and for
** each pool: compresses time and computes the lower bound
** (th_plan_interval.c), then runs the method: one greedy order
** (th_plan_order.c) through the placement pass (th_plan_place.c); or for
** 'best' every order, keeping the smallest arena (the first on ties), then
** the local search (th_plan_search.c); or OptNet's sets (th_plan_sets.c).
** Invariants: results are only readable after a successful solve
** ('solved'); a failed solve leaves no result and no leak; the per-pool
** work arrays live only during solve.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "th_plan_internal.h"
#include "../tensor/th_error.h"

const char *const th_plan_method_name[TH_PLAN_NMETHODS] = {
    "best", "greedy_size", "greedy_conflict", "greedy_lifetime", "peak", "sets"};
_Static_assert(sizeof th_plan_method_name / sizeof th_plan_method_name[0] == TH_PLAN_NMETHODS,
               "a name per planner method");

/* sizes, offsets and arenas stay below this, so sums and roundings never overflow */
#define MAXBYTES ((int64_t)1 << 60)

typedef struct pool_result {
  int64_t id, arena, lower_bound, tensors;
  th_plan_method heuristic;
  int64_t iterations, improvements, work;
  int nsets;
} pool_result;

struct th_plan {
  int n, cap;
  int64_t *first, *last, *bytes, *pool, *align;
  /* results */
  int solved;
  int64_t *off, *size;
  int32_t *set;
  int npools, nsets;
  pool_result *pools;
  int64_t *set_bytes;
  th_plan_logbuf log;
};

int th_plan_method_parse(const char *name) {
  int k;
  for (k = 0; k < TH_PLAN_NMETHODS; k++)
    if (strcmp(name, th_plan_method_name[k]) == 0) return k;
  return -1;
}

void th_plan_opts_init(th_plan_opts *o) {
  memset(o, 0, sizeof *o);
  o->method = TH_PLAN_BEST;
  o->fit = TH_PLAN_FIT_BEST;
  o->alignment = 64;
  o->budget_ms = 50;
  o->max_iters = -1;
  o->seed = 0x7468706c616e0001ull;
  o->debug = 0;
}

void th_plan_logf(th_plan_logbuf *b, const char *fmt, ...) {
  va_list ap;
  int w;
  if (b->truncated) return;
  for (;;) {
    size_t room = b->cap - b->n;
    va_start(ap, fmt);
    w = b->s ? vsnprintf(b->s + b->n, room, fmt, ap) : -1;
    va_end(ap);
    if (w >= 0 && (size_t)w < room) {
      b->n += (size_t)w;
      return;
    }
    {
      size_t cap = b->cap ? 2 * b->cap : 4096;
      char *s;
      while (w >= 0 && cap < b->n + (size_t)w + 1) cap *= 2;
      s = realloc(b->s, cap);
      if (s == NULL) { /* keep what we have and say so */
        static const char msg[] = "(log truncated: out of memory)\n";
        if (b->s && b->cap - b->n > sizeof msg) {
          memcpy(b->s + b->n, msg, sizeof msg);
          b->n += sizeof msg - 1;
        }
        b->truncated = 1;
        return;
      }
      b->s = s;
      b->cap = cap;
      b->s[b->n] = '\0';
    }
  }
}

th_plan *th_plan_new(void) {
  th_plan *p = calloc(1, sizeof *p);
  if (p == NULL) th_error_set("th_plan_new: out of memory");
  return p;
}

static void clear_results(th_plan *p) {
  free(p->off);
  free(p->size);
  free(p->set);
  free(p->pools);
  free(p->set_bytes);
  free(p->log.s);
  p->off = p->size = p->set_bytes = NULL;
  p->set = NULL;
  p->pools = NULL;
  memset(&p->log, 0, sizeof p->log);
  p->npools = p->nsets = 0;
  p->solved = 0;
}

void th_plan_free(th_plan *p) {
  if (p == NULL) return;
  clear_results(p);
  free(p->first);
  free(p->last);
  free(p->bytes);
  free(p->pool);
  free(p->align);
  free(p);
}

static int grow(th_plan *p) {
  int cap = p->cap ? 2 * p->cap : 64;
  int64_t **arrays[5];
  int k;
  arrays[0] = &p->first;
  arrays[1] = &p->last;
  arrays[2] = &p->bytes;
  arrays[3] = &p->pool;
  arrays[4] = &p->align;
  if (p->cap > (1 << 28)) return th_error_set("th_plan_add: more than %d tensors", 1 << 29);
  for (k = 0; k < 5; k++) {
    int64_t *a = realloc(*arrays[k], (size_t)cap * sizeof *a);
    if (a == NULL) return th_error_set("th_plan_add: out of memory for %d tensors", cap);
    *arrays[k] = a;
  }
  p->cap = cap;
  return TH_OK;
}

int th_plan_add_aligned(th_plan *p, int64_t first, int64_t last, int64_t bytes, int64_t pool,
                        int64_t align) {
  int i;
  if (bytes < 0) return th_error_set("th_plan_add: bytes must be >= 0, got %lld", (long long)bytes);
  if (bytes > MAXBYTES)
    return th_error_set("th_plan_add: bytes must be <= 2^60, got %lld", (long long)bytes);
  if (last < first)
    return th_error_set("th_plan_add: last step (%lld) is before first step (%lld)", (long long)last,
                        (long long)first);
  if (align < 0 || align > ((int64_t)1 << 30) || (align & (align - 1)) != 0)
    return th_error_set("th_plan_add: alignment must be 0 (default) or a power of two up to 2^30, got %lld",
                        (long long)align);
  if (p->n == p->cap && grow(p) != TH_OK) return TH_ERR;
  i = p->n++;
  p->first[i] = first;
  p->last[i] = last;
  p->bytes[i] = bytes;
  p->pool[i] = pool;
  p->align[i] = align;
  p->solved = 0;
  return i;
}

int th_plan_add(th_plan *p, int64_t first, int64_t last, int64_t bytes, int64_t pool) {
  return th_plan_add_aligned(p, first, last, bytes, pool, 0);
}

int th_plan_count(const th_plan *p) {
  return p->n;
}

/* the pool's arrays: one block, carved up */
typedef struct pool_mem {
  void *block;
  int *order;
} pool_mem;

static int pool_alloc(th_plan_pool *pl, pool_mem *mem, int m) {
  size_t n = (size_t)(m > 0 ? m : 1);
  size_t bytes = n * (6 * sizeof(int64_t) + 3 * sizeof(int32_t) + sizeof(int));
  char *b = malloc(bytes);
  if (b == NULL) return th_error_set("th_plan_solve: out of memory for a pool of %d tensors", m);
  mem->block = b;
  pl->first = (int64_t *)b;
  pl->last = pl->first + n;
  pl->size = pl->last + n;
  pl->align = pl->size + n;
  pl->load = pl->align + n;
  pl->off = pl->load + n;
  pl->ta = (int32_t *)(pl->off + n);
  pl->tb = pl->ta + n;
  pl->set = pl->tb + n;
  mem->order = (int *)(pl->set + n);
  return TH_OK;
}

static int solve_greedy(th_plan_pool *pool, int *order, const th_plan_opts *o, th_plan_logbuf *log) {
  th_plan_placer pl;
  int64_t *off2 = NULL;
  int *order2 = NULL, m = pool->m, top = -1, rc = TH_ERR;
  th_plan_method h, h0 = o->method, h1 = o->method;
  if (th_plan_placer_init(&pl, pool->T) != TH_OK) return TH_ERR;
  if (o->method == TH_PLAN_BEST) {
    h0 = TH_PLAN_GREEDY_SIZE;
    h1 = TH_PLAN_PEAK;
    off2 = malloc((size_t)(m > 0 ? m : 1) * sizeof *off2);
    order2 = malloc((size_t)(m > 0 ? m : 1) * sizeof *order2);
    if (off2 == NULL || order2 == NULL) {
      th_error_set("th_plan_solve: out of memory for a pool of %d tensors", m);
      goto done;
    }
  }
  pool->arena = INT64_MAX;
  for (h = h0; h <= h1; h++) {
    th_plan_pass ps;
    int *ord = h == h0 ? order : order2;
    int64_t *off = h == h0 ? pool->off : off2;
    if (th_plan_order(pool, h, ord) != TH_OK) goto done;
    ps.cutoff = pool->arena == INT64_MAX ? INT64_MAX : pool->arena - 1;
    ps.work_limit = INT64_MAX;
    ps.fit = o->fit;
    ps.log = o->method == TH_PLAN_BEST ? NULL : log;
    if (th_plan_place(&pl, pool, ord, off, &ps) != TH_OK) goto done;
    if (ps.complete && ps.arena < pool->arena) {
      pool->arena = ps.arena;
      pool->heuristic = h;
      top = ps.top_pos;
      if (h != h0) {
        memcpy(order, ord, (size_t)m * sizeof *order);
        memcpy(pool->off, off, (size_t)m * sizeof *off);
      }
    }
    if (pool->arena <= pool->lower_bound) break;
  }
  if (o->method == TH_PLAN_BEST) {
    if (th_plan_search(&pl, pool, order, pool->off, o, top) != TH_OK) goto done;
    if (log) { /* replay the winner, this time saying why */
      th_plan_pass ps;
      ps.cutoff = INT64_MAX;
      ps.work_limit = INT64_MAX;
      ps.fit = o->fit;
      ps.log = log;
      if (th_plan_place(&pl, pool, order, pool->off, &ps) != TH_OK) goto done;
    }
  }
  rc = TH_OK;
done:
  th_plan_placer_free(&pl);
  free(off2);
  free(order2);
  return rc;
}

static int cmp_pool(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

static int check_opts(const th_plan_opts *o) {
  if (o->method < 0 || o->method >= TH_PLAN_NMETHODS)
    return th_error_set("th_plan_solve: unknown method %d", (int)o->method);
  if (o->fit < 0 || o->fit >= TH_PLAN_NFITS) return th_error_set("th_plan_solve: unknown fit %d", (int)o->fit);
  if (o->alignment < 1 || o->alignment > ((int64_t)1 << 30) || (o->alignment & (o->alignment - 1)))
    return th_error_set("th_plan_solve: alignment must be a power of two up to 2^30, got %lld",
                        (long long)o->alignment);
  if (!(o->budget_ms >= 0)) return th_error_set("th_plan_solve: budget_ms must be >= 0, got %g", o->budget_ms);
  return TH_OK;
}

/* the result arrays of p, the rounded sizes in them, and *gidx: the tensors
   ordered by pool (stable: in their order within a pool), which the caller
   frees */
static int start_results(th_plan *p, const th_plan_opts *o, int **gidx) {
  int n = p->n, i;
  size_t cap = (size_t)(n > 0 ? n : 1);
  int64_t(*byPool)[2] = malloc(cap * sizeof *byPool);
  p->off = malloc(cap * sizeof *p->off);
  p->size = malloc(cap * sizeof *p->size);
  p->set = malloc(cap * sizeof *p->set);
  p->pools = malloc(cap * sizeof *p->pools);
  *gidx = malloc(cap * sizeof **gidx);
  if (!p->off || !p->size || !p->set || !byPool || !*gidx || !p->pools) {
    free(byPool);
    return th_error_set("th_plan_solve: out of memory for %d tensors", n);
  }
  for (i = 0; i < n; i++) {
    p->size[i] = th_plan_roundup(p->bytes[i], p->align[i] ? p->align[i] : o->alignment);
    p->set[i] = -1;
    byPool[i][0] = p->pool[i];
    byPool[i][1] = i;
  }
  qsort(byPool, (size_t)n, sizeof *byPool, cmp_pool);
  for (i = 0; i < n; i++) (*gidx)[i] = (int)byPool[i][1];
  free(byPool);
  return TH_OK;
}

/* the pool's tensors copied from p, refused past 2^60 bytes */
static int load_pool(const th_plan *p, th_plan_pool *pool, const th_plan_opts *o) {
  int64_t total = 0;
  int k;
  for (k = 0; k < pool->m; k++) {
    int g = pool->gidx[k];
    pool->first[k] = p->first[g];
    pool->last[k] = p->last[g];
    pool->size[k] = p->size[g];
    pool->align[k] = p->align[g] ? p->align[g] : o->alignment;
    total += pool->size[k] + pool->align[k];
    if (total > MAXBYTES)
      return th_error_set("th_plan_solve: pool %lld holds more than 2^60 bytes", (long long)pool->id);
  }
  return TH_OK;
}

/* the solved pool's offsets, sets and summary into p */
static int store_pool(th_plan *p, const th_plan_pool *pool, const th_plan_opts *o) {
  pool_result *r;
  int k, m = pool->m;
  for (k = 0; k < m; k++) p->off[pool->gidx[k]] = pool->off[k];
  if (o->method == TH_PLAN_SETS) {
    int64_t *sb = realloc(p->set_bytes, (size_t)(p->nsets + pool->nsets + 1) * sizeof *sb);
    if (sb == NULL)
      return th_error_set("th_plan_solve: out of memory for %d sets", p->nsets + pool->nsets);
    p->set_bytes = sb;
    for (k = 0; k < m; k++) p->set[pool->gidx[k]] = p->nsets + pool->set[k];
    for (k = 0; k < pool->nsets; k++) p->set_bytes[p->nsets + k] = pool->set_size[k];
    p->nsets += pool->nsets;
  }
  r = &p->pools[p->npools++];
  r->id = pool->id;
  r->arena = pool->arena;
  r->lower_bound = pool->lower_bound;
  r->tensors = m;
  r->heuristic = pool->heuristic;
  r->iterations = pool->iterations;
  r->improvements = pool->improvements;
  r->work = pool->work;
  r->nsets = pool->nsets;
  return TH_OK;
}

/* solves the m tensors gidx[0..m) of one pool into p; the pool's work
   arrays are freed on every path */
static int solve_pool(th_plan *p, const th_plan_opts *o, const int *gidx, int m) {
  th_plan_pool pool;
  pool_mem mem = {NULL, NULL};
  th_plan_logbuf *log = o->debug ? &p->log : NULL;
  int rc;
  memset(&pool, 0, sizeof pool);
  pool.id = p->pool[gidx[0]];
  pool.m = m;
  pool.gidx = gidx;
  pool.heuristic = o->method;
  rc = pool_alloc(&pool, &mem, m);
  if (rc == TH_OK) rc = load_pool(p, &pool, o);
  if (rc == TH_OK) rc = th_plan_interval_prepare(&pool);
  if (rc == TH_OK)
    rc = o->method == TH_PLAN_SETS ? th_plan_sets(&pool, log) : solve_greedy(&pool, mem.order, o, log);
  if (rc == TH_OK) rc = store_pool(p, &pool, o);
  free(pool.set_size);
  free(pool.set_off);
  free(mem.block);
  return rc;
}

int th_plan_solve(th_plan *p, const th_plan_opts *o) {
  int *gidx = NULL, start, end, rc;
  if (check_opts(o) != TH_OK) return TH_ERR;  /* refused before anything changed */
  clear_results(p);
  rc = start_results(p, o, &gidx);
  for (start = 0; rc == TH_OK && start < p->n; start = end) {
    end = start;
    while (end < p->n && p->pool[gidx[end]] == p->pool[gidx[start]]) end++;
    rc = solve_pool(p, o, gidx + start, end - start);
  }
  free(gidx);
  if (rc == TH_OK) p->solved = 1;
  else clear_results(p); /* the message is set; drop the partial results */
  return rc;
}

static const pool_result *find_pool(const th_plan *p, int64_t pool) {
  int a = 0, b = p->npools;
  while (a < b) {
    int mid = a + (b - a) / 2;
    if (p->pools[mid].id < pool)
      a = mid + 1;
    else
      b = mid;
  }
  return p->solved && a < p->npools && p->pools[a].id == pool ? &p->pools[a] : NULL;
}

int64_t th_plan_offset(const th_plan *p, int i) {
  return p->solved && i >= 0 && i < p->n ? p->off[i] : -1;
}

int64_t th_plan_size(const th_plan *p, int i) {
  return p->solved && i >= 0 && i < p->n ? p->size[i] : -1;
}

int th_plan_npools(const th_plan *p) {
  return p->solved ? p->npools : 0;
}

int64_t th_plan_pool_id(const th_plan *p, int k) {
  return p->solved && k >= 0 && k < p->npools ? p->pools[k].id : 0;
}

int64_t th_plan_arena(const th_plan *p, int64_t pool) {
  const pool_result *r = find_pool(p, pool);
  return r ? r->arena : 0;
}

int64_t th_plan_lower_bound(const th_plan *p, int64_t pool) {
  const pool_result *r = find_pool(p, pool);
  return r ? r->lower_bound : 0;
}

int th_plan_set(const th_plan *p, int i) {
  return p->solved && i >= 0 && i < p->n ? p->set[i] : -1;
}

int th_plan_nsets(const th_plan *p) {
  return p->solved ? p->nsets : 0;
}

int64_t th_plan_set_bytes(const th_plan *p, int s) {
  return p->solved && s >= 0 && s < p->nsets ? p->set_bytes[s] : -1;
}

int th_plan_stats_get(const th_plan *p, int64_t pool, th_plan_stats *out) {
  const pool_result *r = find_pool(p, pool);
  if (r == NULL) return th_error_set("th_plan_stats_get: no pool %lld in the plan", (long long)pool);
  out->tensors = r->tensors;
  out->arena = r->arena;
  out->lower_bound = r->lower_bound;
  out->heuristic = r->heuristic;
  out->iterations = r->iterations;
  out->improvements = r->improvements;
  out->work = r->work;
  out->nsets = r->nsets;
  return TH_OK;
}

const char *th_plan_log(const th_plan *p) {
  return p->solved && p->log.s ? p->log.s : "";
}
