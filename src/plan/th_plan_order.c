/*
** th_plan_order.c: the orders in which the greedy pass places tensors.
** Each is a total order (ties broken by the local index), so a plan
** depends only on its pool's tensors and never on qsort's whims.
**   greedy_size      larger first, then longer-lived (TFLite's arena planner)
**   greedy_conflict  more bytes alive alongside first: the most constrained
**   greedy_lifetime  longer-lived first, then larger
**   peak             highest load seen during the lifetime first, then larger:
**                    tensors alive at the peak get packed before the rest
*/
#include <stdlib.h>
#include "th_plan_internal.h"
#include "../tensor/th_error.h"

int th_plan_order(const th_plan_pool *pool, th_plan_method h, int *order) {
  int m = pool->m, i;
  th_plan_key *keys;
  int64_t *aux = NULL;
  if (m == 0) return TH_OK;
  keys = malloc((size_t)m * sizeof *keys);
  if (h == TH_PLAN_GREEDY_CONFLICT || h == TH_PLAN_PEAK) aux = malloc((size_t)m * sizeof *aux);
  if (keys == NULL || ((h == TH_PLAN_GREEDY_CONFLICT || h == TH_PLAN_PEAK) && aux == NULL)) {
    free(keys);
    free(aux);
    return th_error_set("th_plan_solve: out of memory ordering %d tensors", m);
  }
  if ((h == TH_PLAN_GREEDY_CONFLICT && th_plan_interval_conflicts(pool, aux) != TH_OK) ||
      (h == TH_PLAN_PEAK && th_plan_interval_peaks(pool, aux) != TH_OK)) {
    free(keys);
    free(aux);
    return TH_ERR;
  }
  for (i = 0; i < m; i++) {
    /* last - first in unsigned arithmetic cannot overflow; clamp it so its
       negation is an int64 */
    uint64_t span = (uint64_t)pool->last[i] - (uint64_t)pool->first[i];
    int64_t life = span > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)span;
    th_plan_key *k = &keys[i];
    k->idx = i;
    switch (h) {
      case TH_PLAN_GREEDY_CONFLICT:
        k->k[0] = -aux[i];
        k->k[1] = -pool->size[i];
        k->k[2] = -life;
        break;
      case TH_PLAN_GREEDY_LIFETIME:
        k->k[0] = -life;
        k->k[1] = -pool->size[i];
        k->k[2] = pool->first[i];
        break;
      case TH_PLAN_PEAK:
        k->k[0] = -aux[i];
        k->k[1] = -pool->size[i];
        k->k[2] = -life;
        break;
      default: /* TH_PLAN_GREEDY_SIZE */
        k->k[0] = -pool->size[i];
        k->k[1] = -life;
        k->k[2] = pool->first[i];
        break;
    }
  }
  th_plan_sort_keys(keys, m);
  for (i = 0; i < m; i++) order[i] = keys[i].idx;
  free(keys);
  free(aux);
  return TH_OK;
}
