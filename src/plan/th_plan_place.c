/*
** th_plan_place.c: one greedy pass: offsets for tensors taken in a given
** order, each at the best-fitting gap left by the already placed tensors
** alive at some common step (TFLite's arena planner), or on top of them.
**
** Finding those tensors by scanning is O(n) per tensor; instead a segment
** tree over compressed time keeps, per node v,
**   own(v): byte ranges of placed tensors whose interval covers v's steps
**           (v is in the interval's canonical cover), and
**   sub(v): the union of byte ranges of placed tensors meeting v's steps.
** Both are sorted lists of disjoint, non-touching spans. The nodes that
** meet a query interval are its canonical nodes and their descendants (all
** in sub() of the canonical nodes) plus the nodes it partly overlaps, which
** are ancestors of canonical nodes (their own() lists). So the bytes in use
** during [ta, tb] are exactly: union of sub(c) over canonical c, and own(v)
** over partly overlapped v: O(log T) lists. Because unions coalesce, these
** lists stay short in practice (a long-lived stack of tensors is one span),
** which makes a pass about O(n log T) instead of O(n^2).
** Invariant: after placing tensor i at [o, o+size), no placed tensor j with
** [ta_j, tb_j] meeting [ta_i, tb_i] overlaps it.
*/
#include <stdlib.h>
#include <string.h>
#include "th_plan_internal.h"
#include "../tensor/th_error.h"

/* queries meet at most 2 nodes per level for each kind: runs of the merge */
#define MAXRUNS 132

int th_plan_placer_init(th_plan_placer *pl, int T) {
  int P = 1;
  memset(pl, 0, sizeof *pl);
  while (P < T) P <<= 1;
  pl->P = P;
  pl->own = calloc(2 * (size_t)P, sizeof *pl->own);
  pl->sub = calloc(2 * (size_t)P, sizeof *pl->sub);
  pl->bufcap = 256;
  pl->buf = malloc((size_t)pl->bufcap * sizeof *pl->buf);
  pl->tmp = malloc((size_t)pl->bufcap * sizeof *pl->tmp);
  if (pl->own == NULL || pl->sub == NULL || pl->buf == NULL || pl->tmp == NULL) {
    th_plan_placer_free(pl);
    return th_error_set("th_plan_solve: out of memory for a placer over %d steps", T);
  }
  return TH_OK;
}

void th_plan_placer_free(th_plan_placer *pl) {
  int v;
  if (pl->own != NULL)
    for (v = 0; v < 2 * pl->P; v++) free(pl->own[v].v);
  if (pl->sub != NULL)
    for (v = 0; v < 2 * pl->P; v++) free(pl->sub[v].v);
  free(pl->own);
  free(pl->sub);
  free(pl->buf);
  free(pl->tmp);
  memset(pl, 0, sizeof *pl);
}

/* adds [lo, hi) to a sorted list of disjoint, non-touching spans */
static int spanset_add(th_plan_spanset *s, int64_t lo, int64_t hi, int64_t *work) {
  int n = s->n, a = 0, b = n, i, j;
  while (a < b) { /* first span that ends at or after lo */
    int mid = a + (b - a) / 2;
    if (s->v[mid].hi < lo)
      a = mid + 1;
    else
      b = mid;
  }
  i = j = a;
  while (j < n && s->v[j].lo <= hi) j++;
  *work += 2 + (n - i) / 8;
  if (j > i) { /* overlaps or touches spans i..j-1: merge them into one */
    if (s->v[i].lo < lo) lo = s->v[i].lo;
    if (s->v[j - 1].hi > hi) hi = s->v[j - 1].hi;
    s->v[i].lo = lo;
    s->v[i].hi = hi;
    memmove(&s->v[i + 1], &s->v[j], (size_t)(n - j) * sizeof *s->v);
    s->n = n - (j - i) + 1;
    return TH_OK;
  }
  if (n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 4;
    th_plan_span *v = realloc(s->v, (size_t)cap * sizeof *v);
    if (v == NULL) return th_error_set("th_plan_solve: out of memory for %d spans", cap);
    s->v = v;
    s->cap = cap;
  }
  memmove(&s->v[i + 1], &s->v[i], (size_t)(n - i) * sizeof *s->v);
  s->v[i].lo = lo;
  s->v[i].hi = hi;
  s->n = n + 1;
  return TH_OK;
}

static int insert(th_plan_placer *pl, int v, int l, int r, int a, int b, int64_t lo, int64_t hi,
                  int64_t *work) {
  int mid = l + (r - l) / 2;
  if (spanset_add(&pl->sub[v], lo, hi, work) != TH_OK) return TH_ERR;
  if (a <= l && r <= b) return spanset_add(&pl->own[v], lo, hi, work);
  if (a <= mid && insert(pl, 2 * v, l, mid, a, b, lo, hi, work) != TH_OK) return TH_ERR;
  if (b > mid && insert(pl, 2 * v + 1, mid + 1, r, a, b, lo, hi, work) != TH_OK) return TH_ERR;
  return TH_OK;
}

typedef struct gather_state {
  int64_t n;
  int nruns;
  int64_t run[MAXRUNS + 1];
} gather_state;

static int append(th_plan_placer *pl, gather_state *g, const th_plan_spanset *s) {
  if (s->n == 0) return TH_OK;
  if (g->n + s->n > pl->bufcap) {
    int64_t cap = 2 * (g->n + s->n);
    th_plan_span *b = realloc(pl->buf, (size_t)cap * sizeof *b);
    th_plan_span *t;
    if (b == NULL) return th_error_set("th_plan_solve: out of memory for %lld spans", (long long)cap);
    pl->buf = b;
    t = realloc(pl->tmp, (size_t)cap * sizeof *t);
    if (t == NULL) return th_error_set("th_plan_solve: out of memory for %lld spans", (long long)cap);
    pl->tmp = t;
    pl->bufcap = cap;
  }
  memcpy(pl->buf + g->n, s->v, (size_t)s->n * sizeof *s->v);
  g->run[g->nruns++] = g->n;
  g->n += s->n;
  return TH_OK;
}

static int gather(th_plan_placer *pl, gather_state *g, int v, int l, int r, int a, int b) {
  int mid = l + (r - l) / 2;
  if (a <= l && r <= b) return append(pl, g, &pl->sub[v]);
  /* nothing below v was ever placed: skip the walk */
  if (pl->sub[v].n == 0) return TH_OK;
  if (append(pl, g, &pl->own[v]) != TH_OK) return TH_ERR;
  if (a <= mid && gather(pl, g, 2 * v, l, mid, a, b) != TH_OK) return TH_ERR;
  if (b > mid && gather(pl, g, 2 * v + 1, mid + 1, r, a, b) != TH_OK) return TH_ERR;
  return TH_OK;
}

/* merges the sorted runs of buf pairwise; returns the sorted array */
static th_plan_span *merge_runs(th_plan_placer *pl, gather_state *g) {
  th_plan_span *src = pl->buf, *dst = pl->tmp, *t;
  int nr = g->nruns, k;
  g->run[nr] = g->n;
  while (nr > 1) {
    int out = 0;
    for (k = 0; k < nr; k += 2) {
      int64_t i = g->run[k], ie = g->run[k + 1], j, je, o = g->run[k];
      g->run[out++] = g->run[k];
      if (k + 1 == nr) { /* odd run out: copy */
        memcpy(dst + i, src + i, (size_t)(ie - i) * sizeof *src);
        break;
      }
      j = ie;
      je = g->run[k + 2];
      while (i < ie && j < je) dst[o++] = src[i].lo <= src[j].lo ? src[i++] : src[j++];
      while (i < ie) dst[o++] = src[i++];
      while (j < je) dst[o++] = src[j++];
    }
    nr = out;
    g->run[nr] = g->n;
    t = src;
    src = dst;
    dst = t;
  }
  return src;
}

int th_plan_place(th_plan_placer *pl, const th_plan_pool *pool, const int *order, int64_t *off,
                  th_plan_pass *ps) {
  int k, v, P = pl->P;
  int64_t arena = 0, work = 0;
  for (v = 1; v < 2 * P; v++) pl->own[v].n = pl->sub[v].n = 0;
  ps->complete = 0;
  ps->top_pos = -1;
  for (k = 0; k < pool->m; k++) {
    int i = order[k], j, nfit = 0;
    int64_t size = pool->size[i], al = pool->align[i], prev = 0, o = -1, bestgap = INT64_MAX;
    int64_t largest = 0;
    gather_state g;
    th_plan_span *s;
    if (size == 0) { /* holds no byte: conflicts with nothing */
      off[i] = 0;
      if (ps->log)
        th_plan_logf(ps->log, "#%d (0 bytes, steps %lld..%lld): offset 0, empty\n", pool->gidx[i] + 1,
                     (long long)pool->first[i], (long long)pool->last[i]);
      continue;
    }
    g.n = 0;
    g.nruns = 0;
    if (gather(pl, &g, 1, 0, P - 1, pool->ta[i], pool->tb[i]) != TH_OK) return TH_ERR;
    s = merge_runs(pl, &g);
    work += 8 + g.n + g.nruns;
    /* gaps between the merged ranges in use; the top above them all */
    for (j = 0; j < g.n; j++) {
      int64_t glo = prev, ghi = s[j].lo;
      if (ghi > glo) {
        int64_t c = th_plan_roundup(glo, al);
        if (ghi - glo > largest) largest = ghi - glo;
        if (c + size <= ghi) {
          nfit++;
          if (ghi - glo < bestgap) {
            bestgap = ghi - glo;
            o = c;
          }
          if (ps->fit == TH_PLAN_FIT_FIRST) break;
        }
      }
      if (s[j].hi > prev) prev = s[j].hi;
    }
    if (o < 0) o = th_plan_roundup(prev, al);
    off[i] = o;
    if (ps->log) {
      if (g.n == 0)
        th_plan_logf(ps->log, "#%d (%lld bytes, steps %lld..%lld): offset %lld, nothing else alive\n",
                     pool->gidx[i] + 1, (long long)size, (long long)pool->first[i],
                     (long long)pool->last[i], (long long)o);
      else if (nfit > 0)
        th_plan_logf(ps->log,
                     "#%d (%lld bytes, steps %lld..%lld): offset %lld, reuses a %lld-byte gap "
                     "(%s of %d that fit)\n",
                     pool->gidx[i] + 1, (long long)size, (long long)pool->first[i],
                     (long long)pool->last[i], (long long)o, (long long)bestgap,
                     ps->fit == TH_PLAN_FIT_FIRST ? "first" : "best", nfit);
      else
        th_plan_logf(ps->log,
                     "#%d (%lld bytes, steps %lld..%lld): offset %lld on top, cannot share: "
                     "the tensors alive with it leave no gap of %lld bytes below %lld "
                     "(largest %lld)\n",
                     pool->gidx[i] + 1, (long long)size, (long long)pool->first[i],
                     (long long)pool->last[i], (long long)o, (long long)size, (long long)prev,
                     (long long)largest);
    }
    if (o + size > arena) {
      arena = o + size;
      ps->top_pos = k;
      if (arena > ps->cutoff) break;
    }
    if (insert(pl, 1, 0, P - 1, pool->ta[i], pool->tb[i], o, o + size, &work) != TH_OK) return TH_ERR;
    if (work > ps->work_limit) break;
  }
  ps->complete = k == pool->m;
  ps->arena = arena;
  ps->work = work;
  return TH_OK;
}
