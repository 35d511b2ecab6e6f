/*
** th_plan_interval.c: a pool's intervals: time compression, the load
** profile and lower bound, and the per-tensor keys the greedy orders sort on.
** Time is compressed to the distinct 'first' steps F[0] < ... < F[T-1]:
** ta = the rank of 'first' in F, tb = the rank of the last F[t] <= 'last'.
** Two inclusive intervals meet iff the later start is <= the earlier end,
** and the later start is some F[t], so [ta, tb] intersections are exactly
** the original ones. The load is piecewise constant and only rises at a
** 'first', so its maximum over all steps is its maximum over F: the lower
** bound.
*/
#include <stdlib.h>
#include <string.h>
#include "th_plan_internal.h"
#include "../tensor/th_error.h"

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int cmp_key(const void *a, const void *b) {
  const th_plan_key *x = a, *y = b;
  int j;
  for (j = 0; j < 3; j++)
    if (x->k[j] != y->k[j]) return x->k[j] < y->k[j] ? -1 : 1;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

void th_plan_sort_keys(th_plan_key *keys, int n) {
  if (n > 1) qsort(keys, (size_t)n, sizeof *keys, cmp_key);
}

/* index of the first element >= x */
static int lower(const int64_t *F, int T, int64_t x) {
  int a = 0, b = T;
  while (a < b) {
    int mid = a + (b - a) / 2;
    if (F[mid] < x)
      a = mid + 1;
    else
      b = mid;
  }
  return a;
}

int th_plan_interval_prepare(th_plan_pool *pool) {
  int m = pool->m, i, T = 0, t;
  int64_t *F, *diff, cur = 0, peak = 0;
  pool->T = 0;
  pool->lower_bound = 0;
  if (m == 0) return TH_OK;
  F = malloc((size_t)m * sizeof *F);
  if (F == NULL) return th_error_set("th_plan_solve: out of memory for %d intervals", m);
  memcpy(F, pool->first, (size_t)m * sizeof *F);
  qsort(F, (size_t)m, sizeof *F, cmp_i64);
  for (i = 0; i < m; i++)
    if (T == 0 || F[T - 1] != F[i]) F[T++] = F[i];
  for (i = 0; i < m; i++) {
    pool->ta[i] = (int32_t)lower(F, T, pool->first[i]);
    /* last >= first, so at least F[ta] is <= last */
    t = lower(F, T, pool->last[i]);
    pool->tb[i] = (int32_t)(t < T && F[t] == pool->last[i] ? t : t - 1);
  }
  free(F);
  pool->T = T;
  diff = calloc((size_t)T + 1, sizeof *diff);
  if (diff == NULL) return th_error_set("th_plan_solve: out of memory for %d steps", T);
  for (i = 0; i < m; i++) {
    diff[pool->ta[i]] += pool->size[i];
    diff[pool->tb[i] + 1] -= pool->size[i];
  }
  for (t = 0; t < T; t++) {
    cur += diff[t];
    pool->load[t] = cur;
    if (cur > peak) peak = cur;
  }
  free(diff);
  pool->lower_bound = peak;
  return TH_OK;
}

int th_plan_interval_conflicts(const th_plan_pool *pool, int64_t *key) {
  /* alive together with i = all - (ended before ta_i) - (started after tb_i);
     'ends[t]' = bytes of tensors with tb <= t, 'starts[t]' = with ta <= t */
  int m = pool->m, T = pool->T, i, t;
  int64_t total = 0;
  int64_t *ends = calloc((size_t)T + 1, sizeof *ends);
  int64_t *starts = calloc((size_t)T + 1, sizeof *starts);
  if (ends == NULL || starts == NULL) {
    free(ends);
    free(starts);
    return th_error_set("th_plan_solve: out of memory for %d steps", T);
  }
  for (i = 0; i < m; i++) {
    ends[pool->tb[i]] += pool->size[i];
    starts[pool->ta[i]] += pool->size[i];
    total += pool->size[i];
  }
  for (t = 1; t < T; t++) {
    ends[t] += ends[t - 1];
    starts[t] += starts[t - 1];
  }
  for (i = 0; i < m; i++) {
    int64_t before = pool->ta[i] > 0 ? ends[pool->ta[i] - 1] : 0;
    int64_t after = total - starts[pool->tb[i]];
    key[i] = total - before - after;
  }
  free(ends);
  free(starts);
  return TH_OK;
}

int th_plan_interval_peaks(const th_plan_pool *pool, int64_t *key) {
  /* range maximum over the load with a bottom-up segment tree */
  int m = pool->m, T = pool->T, P = 1, i;
  int64_t *tree;
  while (P < T) P <<= 1;
  tree = calloc(2 * (size_t)P, sizeof *tree);
  if (tree == NULL) return th_error_set("th_plan_solve: out of memory for %d steps", T);
  for (i = 0; i < T; i++) tree[P + i] = pool->load[i];
  for (i = P - 1; i >= 1; i--) tree[i] = tree[2 * i] > tree[2 * i + 1] ? tree[2 * i] : tree[2 * i + 1];
  for (i = 0; i < m; i++) {
    int64_t best = 0;
    int l = pool->ta[i] + P, r = pool->tb[i] + P + 1;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) {
        if (tree[l] > best) best = tree[l];
        l++;
      }
      if (r & 1) {
        r--;
        if (tree[r] > best) best = tree[r];
      }
    }
    key[i] = best;
  }
  free(tree);
  return TH_OK;
}
