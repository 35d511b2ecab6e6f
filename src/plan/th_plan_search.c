/*
** th_plan_search.c: local search over the placement order.
** Hill climbing with sideways moves: change the order, rerun the greedy
** pass (th_plan_place), keep the new order if its arena is no larger. The
** pass gives up as soon as its arena passes the best one, so most bad
** moves cost a fraction of a pass. The arena is set by one tensor (the
** "top"), whose placement depends only on the tensors before it; so most
** moves pull the top tensor earlier, the rest swap or move a tensor placed
** no later than it.
** Deterministic: a fixed-seed PRNG of our own and a budget counted in the
** passes' work units (TH_PLAN_WORK_PER_MS per millisecond), never a clock.
** Stops at the lower bound (the plan is then optimal).
*/
#include <stdlib.h>
#include <string.h>
#include "th_plan_internal.h"
#include "../tensor/th_error.h"

/* splitmix64: small, fast and good enough to pick moves */
static uint64_t rnd(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int below(uint64_t *s, int n) {
  return (int)(rnd(s) % (uint64_t)n);
}

/* moves the element at position i to position j, shifting those between */
static void move(int *a, int i, int j) {
  int x = a[i];
  if (i > j)
    memmove(a + j + 1, a + j, (size_t)(i - j) * sizeof *a);
  else if (i < j)
    memmove(a + i, a + i + 1, (size_t)(j - i) * sizeof *a);
  a[j] = x;
}

static void mutate(int *a, int m, int top, uint64_t *s) {
  int r = below(s, 8), i, j, x;
  if (r < 4 && top > 0) { /* pull the top tensor earlier */
    move(a, top, below(s, top));
    return;
  }
  i = below(s, top + 1);
  j = below(s, m);
  if (r < 6) { /* swap a tensor placed up to the top with any other */
    x = a[i];
    a[i] = a[j];
    a[j] = x;
  } else { /* move any tensor to a position up to the top */
    move(a, j, i);
  }
}

int th_plan_search(th_plan_placer *pl, th_plan_pool *pool, int *order, int64_t *off,
                   const th_plan_opts *o, int top_pos) {
  int m = pool->m;
  int *cur = order, *cand;
  int64_t *curoff = off, *candoff, best = pool->arena, used = 0, budget;
  uint64_t state = o->seed;
  double b = o->budget_ms * TH_PLAN_WORK_PER_MS;
  pool->iterations = pool->improvements = pool->work = 0;
  budget = b >= 9.0e18 ? INT64_MAX : (int64_t)b;
  if (m < 2 || best <= pool->lower_bound || budget <= 0 || o->max_iters == 0) return TH_OK;
  cand = malloc((size_t)m * sizeof *cand);
  candoff = malloc((size_t)m * sizeof *candoff);
  if (cand == NULL || candoff == NULL) {
    free(cand);
    free(candoff);
    return th_error_set("th_plan_solve: out of memory for the search over %d tensors", m);
  }
  while (used < budget && best > pool->lower_bound &&
         (o->max_iters < 0 || pool->iterations < o->max_iters)) {
    th_plan_pass ps;
    memcpy(cand, cur, (size_t)m * sizeof *cand);
    mutate(cand, m, top_pos, &state);
    ps.cutoff = best;
    ps.work_limit = budget - used;
    ps.fit = o->fit;
    ps.log = NULL;
    if (th_plan_place(pl, pool, cand, candoff, &ps) != TH_OK) {
      if (cur != order) { /* a complete plan is in cur: hand it back */
        memcpy(order, cur, (size_t)m * sizeof *order);
        memcpy(off, curoff, (size_t)m * sizeof *off);
        cand = cur;
        candoff = curoff;
      }
      free(cand);
      free(candoff);
      return TH_ERR;
    }
    used += ps.work;
    pool->iterations++;
    if (ps.complete && ps.arena <= best) {
      int *t = cur;
      int64_t *to = curoff;
      if (ps.arena < best) pool->improvements++;
      best = ps.arena;
      top_pos = ps.top_pos;
      cur = cand;
      curoff = candoff;
      cand = t;
      candoff = to;
    }
  }
  if (cur != order) {
    memcpy(order, cur, (size_t)m * sizeof *order);
    memcpy(off, curoff, (size_t)m * sizeof *off);
    cand = cur;
    candoff = curoff;
  }
  free(cand);
  free(candoff);
  pool->arena = best;
  pool->work = used;
  return TH_OK;
}
