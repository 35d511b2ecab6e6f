/*
** th_plan_place.c: one greedy pass: offsets for tensors taken in a given
** order, each at the best-fitting gap left by the already placed tensors
** alive at some common step (TFLite's arena planner), or on top of them.
**
** Scanning every placed tensor is O(n) per tensor. Instead, compressed
** time is cut into buckets of L steps, and a segment tree over the buckets
** keeps, per node v,
**   own(v): byte ranges of placed tensors that cover all of v's buckets
**           (v is in the canonical cover of their full buckets), and
**   sub(v): the union of byte ranges of placed tensors meeting v's buckets;
** each bucket keeps the tensors that meet it without covering it, with
** their exact steps. A query [a, b] splits into the buckets it covers,
** [fa, fb], and at most two it meets in part. Tensors meeting it are then:
**   for [fa, fb]: sub(c) of its canonical nodes c, own(u) of their proper
**   ancestors u (the nodes it partly overlaps);
**   for a part bucket c: own(u) of leaf c and its ancestors (tensors
**   covering c), and the entries of bucket c whose steps meet [a, b].
** So a query merges O(log) lists; as unions coalesce they stay short in
** practice (a stack of long-lived tensors is one span), and short-lived
** tensors, most of any trace, mostly touch one bucket's flat array.
** Invariant: after placing tensor i at [o, o+size), no placed tensor j
** alive at a step of i overlaps it; sub(parent) contains sub(child).
*/
#include <stdlib.h>
#include <string.h>
#include "th_plan_internal.h"
#include "../tensor/th_error.h"

/* steps per bucket: a bucket's entries are scanned whole, a tree level costs a cache miss */
#define BUCKET 16
/* runs of a query: sub() of <= 2 canonical nodes per level, own() of the
   ancestors of <= 4 leaves, 2 part buckets; levels <= 31 */
#define MAXRUNS 200

int th_plan_placer_init(th_plan_placer *pl, int T) {
  int P = 1;
  memset(pl, 0, sizeof *pl);
  pl->T = T;
  pl->L = BUCKET;
  pl->NB = T > 0 ? (T + BUCKET - 1) / BUCKET : 1;
  while (P < pl->NB) P <<= 1;
  pl->P = P;
  pl->node = calloc(2 * (size_t)P, sizeof *pl->node);
  pl->bucket = calloc((size_t)pl->NB, sizeof *pl->bucket);
  pl->bufcap = 256;
  pl->buf = malloc((size_t)pl->bufcap * sizeof *pl->buf);
  pl->tmp = malloc((size_t)pl->bufcap * sizeof *pl->tmp);
  if (pl->node == NULL || pl->bucket == NULL || pl->buf == NULL || pl->tmp == NULL) {
    th_plan_placer_free(pl);
    return th_error_set("th_plan_solve: out of memory for a placer over %d steps", T);
  }
  return TH_OK;
}

void th_plan_placer_free(th_plan_placer *pl) {
  th_plan_chunk *c = pl->chunk, *next;
  for (; c != NULL; c = next) {
    next = c->next;
    free(c);
  }
  free(pl->node);
  free(pl->bucket);
  free(pl->buf);
  free(pl->tmp);
  memset(pl, 0, sizeof *pl);
}

/* room for 'bytes' from the current chunk, or a new one. A list that
   outgrows its room moves and leaves the old room unused: at most as much
   again as the lists hold, and no per-list malloc or free */
static void *room(th_plan_placer *pl, size_t bytes) {
  size_t n = (bytes + sizeof(th_plan_span) - 1) / sizeof(th_plan_span);
  th_plan_chunk *c = pl->chunk;
  if (c == NULL || c->cap - c->used < n) {
    size_t cap = n > ((size_t)1 << 16) ? n : ((size_t)1 << 16);
    c = malloc(sizeof *c + cap * sizeof(th_plan_span));
    if (c == NULL) {
      th_error_set("th_plan_solve: out of memory for %lld spans", (long long)cap);
      return NULL;
    }
    c->next = pl->chunk;
    c->used = 0;
    c->cap = cap;
    pl->chunk = c;
  }
  c->used += n;
  return c->data + c->used - n;
}

/* adds [lo, hi) to a sorted list of disjoint, non-touching spans */
static int spanset_add(th_plan_placer *pl, th_plan_span **vp, int32_t *np, int32_t *capp, int64_t lo,
                       int64_t hi, int64_t *work) {
  th_plan_span *v = *vp;
  int n = *np, a = 0, b = n, i, j;
  while (a < b) { /* first span that ends at or after lo */
    int mid = a + (b - a) / 2;
    if (v[mid].hi < lo)
      a = mid + 1;
    else
      b = mid;
  }
  i = j = a;
  while (j < n && v[j].lo <= hi) j++;
  *work += 2 + (n - i) / 8;
  if (j > i) { /* overlaps or touches spans i..j-1: merge them into one */
    if (v[i].lo < lo) lo = v[i].lo;
    if (v[j - 1].hi > hi) hi = v[j - 1].hi;
    v[i].lo = lo;
    v[i].hi = hi;
    memmove(&v[i + 1], &v[j], (size_t)(n - j) * sizeof *v);
    *np = n - (j - i) + 1;
    return TH_OK;
  }
  if (n == *capp) {
    int32_t cap = *capp ? 2 * *capp : 2;
    th_plan_span *w = room(pl, (size_t)cap * sizeof *w);
    if (w == NULL) return TH_ERR;
    if (n > 0) memcpy(w, v, (size_t)n * sizeof *v);
    *vp = v = w;
    *capp = cap;
  }
  memmove(&v[i + 1], &v[i], (size_t)(n - i) * sizeof *v);
  v[i].lo = lo;
  v[i].hi = hi;
  *np = n + 1;
  return TH_OK;
}

/* is [lo, hi) inside one span of the list? */
static int contains(const th_plan_span *v, int32_t n, int64_t lo, int64_t hi) {
  int a = 0, b = n;
  while (a < b) {
    int mid = a + (b - a) / 2;
    if (v[mid].hi < hi)
      a = mid + 1;
    else
      b = mid;
  }
  return a < n && v[a].lo <= lo;
}

/* sub() of v and its ancestors, bottom up, until one already holds the
   range: sub(parent) contains sub(child), so all above hold it too */
static int sub_up(th_plan_placer *pl, int v, int64_t lo, int64_t hi, int64_t *work) {
  for (; v >= 1; v >>= 1) {
    th_plan_node *x = &pl->node[v];
    (*work)++;
    if (contains(x->sub, x->nsub, lo, hi)) break;
    if (spanset_add(pl, &x->sub, &x->nsub, &x->csub, lo, hi, work) != TH_OK) return TH_ERR;
  }
  return TH_OK;
}

/* an entry of a bucket, kept sorted by lo */
static int bucket_add(th_plan_placer *pl, int c, int ta, int tb, int64_t lo, int64_t hi, int64_t *work) {
  th_plan_bucket *bk = &pl->bucket[c];
  int a = 0, b = bk->n;
  while (a < b) {
    int mid = a + (b - a) / 2;
    if (bk->v[mid].lo < lo)
      a = mid + 1;
    else
      b = mid;
  }
  if (bk->n == bk->cap) {
    int32_t cap = bk->cap ? 2 * bk->cap : 4;
    th_plan_entry *w = room(pl, (size_t)cap * sizeof *w);
    if (w == NULL) return TH_ERR;
    if (bk->n > 0) memcpy(w, bk->v, (size_t)bk->n * sizeof *w);
    bk->v = w;
    bk->cap = cap;
  }
  memmove(&bk->v[a + 1], &bk->v[a], (size_t)(bk->n - a) * sizeof *bk->v);
  bk->v[a].ta = ta;
  bk->v[a].tb = tb;
  bk->v[a].lo = lo;
  bk->v[a].hi = hi;
  bk->n++;
  *work += 2 + (bk->n - a) / 8;
  return sub_up(pl, c + pl->P, lo, hi, work);
}

/* a bucket the interval meets but does not cover: ba or bb outside [fa, fb] */
#define PARTIAL(c) ((c) < fa || (c) > fb)

/* the buckets [fa, fb] a step interval covers whole; fa > fb if none */
static void full_buckets(const th_plan_placer *pl, int a, int b, int *ba, int *bb, int *fa, int *fb) {
  int L = pl->L, end;
  *ba = a / L;
  *bb = b / L;
  end = *bb * L + L - 1;
  if (end > pl->T - 1) end = pl->T - 1;
  *fa = a == *ba * L ? *ba : *ba + 1;
  *fb = b == end ? *bb : *bb - 1;
}

static int insert(th_plan_placer *pl, int a, int b, int64_t lo, int64_t hi, int64_t *work) {
  int ba, bb, fa, fb;
  full_buckets(pl, a, b, &ba, &bb, &fa, &fb);
  if (fa <= fb) {
    int l = fa + pl->P, r = fb + pl->P + 1;
    for (; l < r; l >>= 1, r >>= 1) {
      int c = -1, d = -1;
      if (l & 1) c = l++;
      if (r & 1) d = --r;
      if (c >= 0) {
        th_plan_node *x = &pl->node[c];
        if (spanset_add(pl, &x->own, &x->nown, &x->cown, lo, hi, work) != TH_OK) return TH_ERR;
        if (sub_up(pl, c, lo, hi, work) != TH_OK) return TH_ERR;
      }
      if (d >= 0) {
        th_plan_node *x = &pl->node[d];
        if (spanset_add(pl, &x->own, &x->nown, &x->cown, lo, hi, work) != TH_OK) return TH_ERR;
        if (sub_up(pl, d, lo, hi, work) != TH_OK) return TH_ERR;
      }
    }
  }
  if (PARTIAL(ba) && bucket_add(pl, ba, a, b, lo, hi, work) != TH_OK) return TH_ERR;
  if (bb != ba && PARTIAL(bb) && bucket_add(pl, bb, a, b, lo, hi, work) != TH_OK) return TH_ERR;
  return TH_OK;
}

typedef struct gather_state {
  int64_t n;
  int nruns;
  int64_t run[MAXRUNS + 1];
} gather_state;

static int reserve(th_plan_placer *pl, int64_t need) {
  int64_t cap = 2 * need;
  th_plan_span *b, *t;
  if (need <= pl->bufcap) return TH_OK;
  b = realloc(pl->buf, (size_t)cap * sizeof *b);
  if (b == NULL) return th_error_set("th_plan_solve: out of memory for %lld spans", (long long)cap);
  pl->buf = b;
  t = realloc(pl->tmp, (size_t)cap * sizeof *t);
  if (t == NULL) return th_error_set("th_plan_solve: out of memory for %lld spans", (long long)cap);
  pl->tmp = t;
  pl->bufcap = cap;
  return TH_OK;
}

static int append(th_plan_placer *pl, gather_state *g, const th_plan_span *v, int32_t n) {
  if (n == 0) return TH_OK;
  if (g->nruns == MAXRUNS) return th_error_set("th_plan_solve: internal error: more than %d runs", MAXRUNS);
  if (reserve(pl, g->n + n) != TH_OK) return TH_ERR;
  memcpy(pl->buf + g->n, v, (size_t)n * sizeof *v);
  g->run[g->nruns++] = g->n;
  g->n += n;
  return TH_OK;
}

/* own() of v and its ancestors not yet seen by this query */
static int own_up(th_plan_placer *pl, gather_state *g, int v) {
  for (; v >= 1; v >>= 1) {
    th_plan_node *x = &pl->node[v];
    if (x->stamp == pl->query) break; /* so is every node above */
    x->stamp = pl->query;
    if (append(pl, g, x->own, x->nown) != TH_OK) return TH_ERR;
  }
  return TH_OK;
}

/* the entries of bucket c alive at some step of [a, b]: one sorted run */
static int scan_bucket(th_plan_placer *pl, gather_state *g, int c, int a, int b) {
  const th_plan_bucket *bk = &pl->bucket[c];
  int k;
  int64_t start = g->n;
  if (bk->n == 0) return TH_OK;
  if (g->nruns == MAXRUNS) return th_error_set("th_plan_solve: internal error: more than %d runs", MAXRUNS);
  if (reserve(pl, g->n + bk->n) != TH_OK) return TH_ERR;
  for (k = 0; k < bk->n; k++)
    if (bk->v[k].ta <= b && a <= bk->v[k].tb) {
      pl->buf[g->n].lo = bk->v[k].lo;
      pl->buf[g->n++].hi = bk->v[k].hi;
    }
  if (g->n > start) g->run[g->nruns++] = start;
  return TH_OK;
}

static int gather(th_plan_placer *pl, gather_state *g, int a, int b, int64_t *work) {
  int ba, bb, fa, fb, P = pl->P;
  full_buckets(pl, a, b, &ba, &bb, &fa, &fb);
  if (++pl->query == 0) { /* the stamps wrapped: forget them */
    int v;
    for (v = 1; v < 2 * P; v++) pl->node[v].stamp = 0;
    pl->query = 1;
  }
  if (fa <= fb) {
    int l = fa + P, r = fb + P + 1, k, nc = 0, canon[64];
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) canon[nc++] = l++;
      if (r & 1) canon[nc++] = --r;
    }
    for (k = 0; k < nc; k++) {
      const th_plan_node *x = &pl->node[canon[k]];
      if (append(pl, g, x->sub, x->nsub) != TH_OK) return TH_ERR;
    }
    /* the partly overlapped nodes: proper ancestors of canonical ones */
    for (k = 0; k < nc; k++)
      if (own_up(pl, g, canon[k] >> 1) != TH_OK) return TH_ERR;
    *work += nc;
  }
  if (PARTIAL(ba) && (own_up(pl, g, ba + P) != TH_OK || scan_bucket(pl, g, ba, a, b) != TH_OK)) return TH_ERR;
  if (bb != ba && PARTIAL(bb) && (own_up(pl, g, bb + P) != TH_OK || scan_bucket(pl, g, bb, a, b) != TH_OK))
    return TH_ERR;
  *work += 8 + g->n + pl->bucket[ba].n + (bb != ba ? pl->bucket[bb].n : 0);
  return TH_OK;
}

/* appends [lo, hi) to the coalesced list dst[o0..o) */
#define PUSH(lo_, hi_)                            \
  do {                                            \
    int64_t l_ = (lo_), h_ = (hi_);               \
    if (o > o0 && l_ <= dst[o - 1].hi) {          \
      if (h_ > dst[o - 1].hi) dst[o - 1].hi = h_; \
    } else {                                      \
      dst[o].lo = l_;                             \
      dst[o++].hi = h_;                           \
    }                                             \
  } while (0)

/* merges the sorted runs of buf pairwise into one sorted, coalesced list;
   a range seen through several nodes folds at the first merge, so rounds
   shrink. Returns the list, g->n its length. A single run is returned as
   is: sorted, maybe overlapping (a bucket's entries) */
static th_plan_span *merge_runs(th_plan_placer *pl, gather_state *g) {
  th_plan_span *src = pl->buf, *dst = pl->tmp, *t;
  int nr = g->nruns, k;
  g->run[nr] = g->n;
  while (nr > 1) {
    int out = 0;
    int64_t o = 0;
    for (k = 0; k < nr; k += 2) {
      int64_t i = g->run[k], ie = g->run[k + 1], j = ie, je = k + 1 < nr ? g->run[k + 2] : ie, o0 = o;
      g->run[out++] = o;
      while (i < ie && j < je) {
        if (src[i].lo <= src[j].lo) {
          PUSH(src[i].lo, src[i].hi);
          i++;
        } else {
          PUSH(src[j].lo, src[j].hi);
          j++;
        }
      }
      for (; i < ie; i++) PUSH(src[i].lo, src[i].hi);
      for (; j < je; j++) PUSH(src[j].lo, src[j].hi);
    }
    nr = out;
    g->n = o;
    g->run[nr] = o;
    t = src;
    src = dst;
    dst = t;
  }
  return src;
}
#undef PUSH

static void log_place(th_plan_logbuf *log, const th_plan_pool *pool, int i, int64_t o, int64_t n, int nfit,
                      int64_t gap, int64_t top, int64_t largest, th_plan_fit fit) {
  long long size = (long long)pool->size[i], first = (long long)pool->first[i], last = (long long)pool->last[i];
  int id = pool->gidx[i] + 1;
  if (n == 0)
    th_plan_logf(log, "#%d (%lld bytes, steps %lld..%lld): offset %lld, nothing else alive\n", id, size, first,
                 last, (long long)o);
  else if (nfit > 0)
    th_plan_logf(log, "#%d (%lld bytes, steps %lld..%lld): offset %lld, reuses a %lld-byte gap (%s of %d that fit)\n",
                 id, size, first, last, (long long)o, (long long)gap, fit == TH_PLAN_FIT_FIRST ? "first" : "best",
                 nfit);
  else
    th_plan_logf(log,
                 "#%d (%lld bytes, steps %lld..%lld): offset %lld on top, cannot share: the tensors alive "
                 "with it leave no gap of %lld bytes below %lld (largest %lld)\n",
                 id, size, first, last, (long long)o, size, (long long)top, (long long)largest);
}

int th_plan_place(th_plan_placer *pl, const th_plan_pool *pool, const int *order, int64_t *off,
                  th_plan_pass *ps) {
  int k, v, P = pl->P;
  int64_t arena = 0, work = 0;
  for (v = 1; v < 2 * P; v++) pl->node[v].nown = pl->node[v].nsub = 0;
  for (v = 0; v < pl->NB; v++) pl->bucket[v].n = 0;
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
    if (gather(pl, &g, pool->ta[i], pool->tb[i], &work) != TH_OK) return TH_ERR;
    s = merge_runs(pl, &g);
    work += g.n * (g.nruns > 1 ? 2 : 0);
    /* gaps between the ranges in use; the top above them all */
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
    if (ps->log) log_place(ps->log, pool, i, o, g.n, nfit, bestgap, prev, largest, ps->fit);
    if (o + size > arena) {
      arena = o + size;
      ps->top_pos = k;
      if (arena > ps->cutoff) break;
    }
    if (insert(pl, pool->ta[i], pool->tb[i], o, o + size, &work) != TH_OK) return TH_ERR;
    if (work > ps->work_limit) break;
  }
  ps->complete = k == pool->m;
  ps->arena = arena;
  ps->work = work;
  return TH_OK;
}
