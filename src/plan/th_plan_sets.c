/*
** th_plan_sets.c: OptNet's storage sets, for comparison.
** OptNet sorts tensors by last use; each joins the compatible set (all of
** whose members died before it starts) with the storage size closest to
** its own, or starts a new set. A set's storage is its largest member;
** the arena is the sum of the storages, laid end to end.
** OptNet scans every set for every tensor; here sets are kept by storage
** size rank in a segment tree whose leaves are leftist heaps keyed by the
** set's last step, and each node keeps the smallest last step below it.
** "The nearest size among sets that died before step f" is then two
** O(log n) descents, so n tensors take O(n log n).
** Invariant: the members of a set are pairwise disjoint in time (members
** join in order of last use, and only after the set's last member died).
*/
#include <stdlib.h>
#include <string.h>
#include "th_plan_internal.h"
#include "../tensor/th_error.h"

typedef struct sets_state {
  int Q;              /* leaves: size ranks, a power of two */
  int64_t *minlast;   /* per tree node */
  int *heap;          /* per leaf: root set of the heap, or -1 */
  int *left, *right, *dist;  /* leftist heap links, per set */
  int64_t *last;      /* per set: last step of its latest member */
  int64_t *size;      /* per set: storage bytes */
  int64_t *align;     /* per set: largest member alignment */
  int *rank;          /* per set: size rank */
} sets_state;

static int before(const sets_state *st, int a, int b) {
  return st->last[a] < st->last[b] || (st->last[a] == st->last[b] && a < b);
}

static int hmerge(sets_state *st, int a, int b) {
  int t;
  if (a < 0) return b;
  if (b < 0) return a;
  if (before(st, b, a)) {
    t = a;
    a = b;
    b = t;
  }
  st->right[a] = hmerge(st, st->right[a], b);
  if (st->left[a] < 0 || st->dist[st->left[a]] < st->dist[st->right[a]]) {
    t = st->left[a];
    st->left[a] = st->right[a];
    st->right[a] = t;
  }
  st->dist[a] = st->right[a] < 0 ? 0 : st->dist[st->right[a]] + 1;
  return a;
}

static void refresh(sets_state *st, int leaf) {
  int v = leaf + st->Q, h = st->heap[leaf];
  st->minlast[v] = h < 0 ? INT64_MAX : st->last[h];
  for (v >>= 1; v >= 1; v >>= 1)
    st->minlast[v] = st->minlast[2 * v] < st->minlast[2 * v + 1] ? st->minlast[2 * v] : st->minlast[2 * v + 1];
}

static void push(sets_state *st, int s) {
  int r = st->rank[s];
  st->left[s] = st->right[s] = -1;
  st->dist[s] = 0;
  st->heap[r] = hmerge(st, st->heap[r], s);
  refresh(st, r);
}

static void pop(sets_state *st, int r) {
  int h = st->heap[r];
  st->heap[r] = hmerge(st, st->left[h], st->right[h]);
  refresh(st, r);
}

/* leftmost leaf >= r (rightmost leaf < r if !up) whose minlast < f, or -1 */
static int find(const sets_state *st, int v, int l, int h, int r, int64_t f, int up) {
  int mid = l + (h - l) / 2, x;
  if (st->minlast[v] >= f) return -1;
  if (up ? h < r : l >= r) return -1;
  if (l == h) return l;
  if (up) {
    x = find(st, 2 * v, l, mid, r, f, up);
    return x >= 0 ? x : find(st, 2 * v + 1, mid + 1, h, r, f, up);
  }
  x = find(st, 2 * v + 1, mid + 1, h, r, f, up);
  return x >= 0 ? x : find(st, 2 * v, l, mid, r, f, up);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int size_rank(const int64_t *S, int R, int64_t x) {
  int a = 0, b = R;
  while (a < b) {
    int mid = a + (b - a) / 2;
    if (S[mid] < x)
      a = mid + 1;
    else
      b = mid;
  }
  return a;
}

int th_plan_sets(th_plan_pool *pool, th_plan_logbuf *log) {
  int m = pool->m, i, k, R = 0, ns = 0, Q = 1;
  th_plan_key *keys = NULL;
  int64_t *S = NULL, cursor = 0;
  sets_state st;
  int rc = TH_ERR;
  memset(&st, 0, sizeof st);
  pool->nsets = 0;
  pool->arena = 0;
  if (m == 0) return TH_OK;
  keys = malloc((size_t)m * sizeof *keys);
  S = malloc((size_t)m * sizeof *S);
  if (keys == NULL || S == NULL) goto oom;
  memcpy(S, pool->size, (size_t)m * sizeof *S);
  qsort(S, (size_t)m, sizeof *S, cmp_i64);
  for (i = 0; i < m; i++)
    if (R == 0 || S[R - 1] != S[i]) S[R++] = S[i];
  while (Q < R) Q <<= 1;
  st.Q = Q;
  st.minlast = malloc(2 * (size_t)Q * sizeof *st.minlast);
  st.heap = malloc((size_t)Q * sizeof *st.heap);
  st.left = malloc((size_t)m * sizeof(int));
  st.right = malloc((size_t)m * sizeof(int));
  st.dist = malloc((size_t)m * sizeof(int));
  st.rank = malloc((size_t)m * sizeof(int));
  st.last = malloc((size_t)m * sizeof(int64_t));
  st.size = malloc((size_t)m * sizeof(int64_t));
  st.align = malloc((size_t)m * sizeof(int64_t));
  if (!st.minlast || !st.heap || !st.left || !st.right || !st.dist || !st.rank || !st.last ||
      !st.size || !st.align)
    goto oom;
  for (k = 0; k < 2 * Q; k++) st.minlast[k] = INT64_MAX;
  for (k = 0; k < Q; k++) st.heap[k] = -1;
  /* OptNet's order: by last use */
  for (i = 0; i < m; i++) {
    keys[i].k[0] = pool->last[i];
    keys[i].k[1] = pool->first[i];
    keys[i].k[2] = 0;
    keys[i].idx = i;
  }
  th_plan_sort_keys(keys, m);
  for (k = 0; k < m; k++) {
    int t = keys[k].idx, r = size_rank(S, R, pool->size[t]), up, dn, s, leaf;
    int64_t f = pool->first[t];
    up = find(&st, 1, 0, Q - 1, r, f, 1);
    dn = find(&st, 1, 0, Q - 1, r, f, 0);
    /* the nearest storage size; on a tie the one that need not grow */
    if (up >= 0 && (dn < 0 || S[up] - pool->size[t] <= pool->size[t] - S[dn]))
      leaf = up;
    else
      leaf = dn;
    if (leaf >= 0) {
      s = st.heap[leaf];
      pop(&st, leaf);
      if (log)
        th_plan_logf(log, "#%d (%lld bytes, steps %lld..%lld): joins set %d (%lld bytes%s)\n",
                     pool->gidx[t] + 1, (long long)pool->size[t], (long long)pool->first[t],
                     (long long)pool->last[t], s, (long long)st.size[s],
                     st.size[s] < pool->size[t] ? ", grows" : "");
      if (pool->size[t] > st.size[s]) st.size[s] = pool->size[t];
      if (pool->align[t] > st.align[s]) st.align[s] = pool->align[t];
    } else {
      s = ns++;
      st.size[s] = pool->size[t];
      st.align[s] = pool->align[t];
      if (log)
        th_plan_logf(log, "#%d (%lld bytes, steps %lld..%lld): new set %d, cannot share: "
                     "every set has a member alive at step %lld\n",
                     pool->gidx[t] + 1, (long long)pool->size[t], (long long)pool->first[t],
                     (long long)pool->last[t], s, (long long)f);
    }
    st.last[s] = pool->last[t];
    st.rank[s] = size_rank(S, R, st.size[s]);
    push(&st, s);
    pool->set[t] = s;
  }
  /* storages end to end, each aligned for its most demanding member */
  pool->set_size = malloc((size_t)ns * sizeof *pool->set_size);
  pool->set_off = malloc((size_t)ns * sizeof *pool->set_off);
  if (pool->set_size == NULL || pool->set_off == NULL) goto oom;
  for (k = 0; k < ns; k++) {
    pool->set_off[k] = th_plan_roundup(cursor, st.align[k]);
    pool->set_size[k] = st.size[k];
    cursor = pool->set_off[k] + st.size[k];
  }
  for (i = 0; i < m; i++) pool->off[i] = pool->set_off[pool->set[i]];
  pool->nsets = ns;
  pool->arena = cursor;
  rc = TH_OK;
  goto done;
oom:
  th_error_set("th_plan_solve: out of memory assigning %d tensors to sets", m);
done:
  free(keys);
  free(S);
  free(st.minlast);
  free(st.heap);
  free(st.left);
  free(st.right);
  free(st.dist);
  free(st.rank);
  free(st.last);
  free(st.size);
  free(st.align);
  return rc;
}
