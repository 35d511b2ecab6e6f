/*
** plan_test.c: the memory planner (src/plan) tested in plain C.
** Property tests over thousands of random interval sets (no two tensors of
** one pool alive at a common step overlap; offsets aligned; arena >= lower
** bound; the lower bound matches a brute-force count; pools independent;
** same input, same plan), hand-made cases with known optimal answers,
** error cases, then (not asserted) timings on 100,000 tensors and the
** quality ratio arena / lower bound on network-shaped traces.
** Built and run by `make test-plan`; exits 1 on any failure.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../src/plan/th_plan.h"
#include "../src/tensor/th_error.h"

static int checks = 0, failures = 0;

/* allocation failure injection: the test links with -Wl,--wrap=malloc (and
   calloc, realloc), so the planner's allocations come here; the n-th one
   after 'fail_after = n' returns NULL */
static long fail_after = 0;
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
static int injected(void) {
  return fail_after > 0 && --fail_after == 0;
}
void *__wrap_malloc(size_t n) {
  return injected() ? NULL : __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t m) {
  return injected() ? NULL : __real_calloc(n, m);
}
void *__wrap_realloc(void *p, size_t n) {
  return injected() ? NULL : __real_realloc(p, n);
}

static int64_t round64(int64_t x) {
  return (x + 63) & ~(int64_t)63;
}

#define CHECK(cond, ...)                                \
  do {                                                  \
    checks++;                                           \
    if (!(cond)) {                                      \
      failures++;                                       \
      if (failures <= 20) {                             \
        fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                   \
        fprintf(stderr, "\n");                          \
      }                                                 \
    }                                                   \
  } while (0)

/* --- a fixed-seed generator --- */
static uint64_t rng_state = 12345;
static uint64_t rnd(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static int64_t uniform(int64_t lo, int64_t hi) { /* inclusive */
  return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* --- a tensor list, the input of every test --- */
typedef struct tlist {
  int n, cap;
  int64_t *first, *last, *bytes, *pool, *align;
} tlist;

static void tl_add(tlist *t, int64_t first, int64_t last, int64_t bytes, int64_t pool, int64_t align) {
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 64;
    t->first = realloc(t->first, t->cap * sizeof(int64_t));
    t->last = realloc(t->last, t->cap * sizeof(int64_t));
    t->bytes = realloc(t->bytes, t->cap * sizeof(int64_t));
    t->pool = realloc(t->pool, t->cap * sizeof(int64_t));
    t->align = realloc(t->align, t->cap * sizeof(int64_t));
    if (!t->first || !t->last || !t->bytes || !t->pool || !t->align) {
      fprintf(stderr, "plan_test: out of memory\n");
      exit(2);
    }
  }
  t->first[t->n] = first;
  t->last[t->n] = last;
  t->bytes[t->n] = bytes;
  t->pool[t->n] = pool;
  t->align[t->n] = align;
  t->n++;
}

static void tl_free(tlist *t) {
  free(t->first);
  free(t->last);
  free(t->bytes);
  free(t->pool);
  free(t->align);
  memset(t, 0, sizeof *t);
}

static th_plan *build(const tlist *t) {
  th_plan *p = th_plan_new();
  int i;
  if (p == NULL) exit(2);
  for (i = 0; i < t->n; i++)
    if (th_plan_add_aligned(p, t->first[i], t->last[i], t->bytes[i], t->pool[i], t->align[i]) != i) {
      fprintf(stderr, "plan_test: th_plan_add failed: %s\n", th_error_msg());
      exit(2);
    }
  return p;
}

static th_plan *solve(const tlist *t, th_plan_method method, th_plan_fit fit, int64_t alignment,
                      double budget) {
  th_plan *p = build(t);
  th_plan_opts o;
  th_plan_opts_init(&o);
  o.method = method;
  o.fit = fit;
  o.alignment = alignment;
  o.budget_ms = budget;
  if (th_plan_solve(p, &o) != TH_OK) {
    fprintf(stderr, "plan_test: th_plan_solve failed: %s\n", th_error_msg());
    exit(2);
  }
  return p;
}

static int64_t eff_align(const tlist *t, int i, int64_t alignment) {
  return t->align[i] ? t->align[i] : alignment;
}

/* every property a plan must have, checked by brute force */
static void verify(const tlist *t, th_plan *p, th_plan_method method, int64_t alignment, const char *what) {
  int i, j, k;
  for (i = 0; i < t->n; i++) {
    int64_t o = th_plan_offset(p, i), s = th_plan_size(p, i), al = eff_align(t, i, alignment);
    CHECK(s % al == 0 && s >= t->bytes[i] && s - t->bytes[i] < al, "%s: size of #%d", what, i);
    CHECK(o >= 0 && o % al == 0, "%s: offset %lld of #%d not aligned to %lld", what, (long long)o, i,
          (long long)al);
    CHECK(o + s <= th_plan_arena(p, t->pool[i]), "%s: #%d ends past the arena", what, i);
    for (j = 0; j < i; j++) {
      int64_t oj = th_plan_offset(p, j), sj = th_plan_size(p, j);
      if (t->pool[i] != t->pool[j] || t->first[i] > t->last[j] || t->first[j] > t->last[i]) continue;
      if (s == 0 || sj == 0) continue;
      CHECK(o + s <= oj || oj + sj <= o, "%s: #%d [%lld,+%lld) and #%d [%lld,+%lld) overlap while alive together",
            what, i, (long long)o, (long long)s, j, (long long)oj, (long long)sj);
      if (method == TH_PLAN_SETS) CHECK(th_plan_set(p, i) != th_plan_set(p, j), "%s: set members overlap in time", what);
    }
  }
  for (k = 0; k < th_plan_npools(p); k++) {
    int64_t pool = th_plan_pool_id(p, k), lb = 0, top = 0;
    for (i = 0; i < t->n; i++) {
      int64_t alive = 0;
      if (t->pool[i] != pool) continue;
      for (j = 0; j < t->n; j++)
        if (t->pool[j] == pool && t->first[j] <= t->first[i] && t->first[i] <= t->last[j]) alive += th_plan_size(p, j);
      if (alive > lb) lb = alive;
      if (th_plan_offset(p, i) + th_plan_size(p, i) > top) top = th_plan_offset(p, i) + th_plan_size(p, i);
    }
    CHECK(th_plan_lower_bound(p, pool) == lb, "%s: lower bound %lld, brute force %lld", what,
          (long long)th_plan_lower_bound(p, pool), (long long)lb);
    CHECK(th_plan_arena(p, pool) >= lb, "%s: arena below the lower bound", what);
    if (method != TH_PLAN_SETS)
      CHECK(th_plan_arena(p, pool) == top, "%s: arena %lld but tensors reach %lld", what,
            (long long)th_plan_arena(p, pool), (long long)top);
  }
  if (method == TH_PLAN_SETS) {
    int64_t sum = 0;
    for (k = 0; k < th_plan_nsets(p); k++) sum += th_plan_set_bytes(p, k);
    for (i = 0; i < t->n; i++) {
      int s = th_plan_set(p, i);
      CHECK(s >= 0 && s < th_plan_nsets(p), "%s: #%d has no set", what, i);
      CHECK(th_plan_size(p, i) <= th_plan_set_bytes(p, s), "%s: set smaller than its member", what);
    }
    if (alignment == 64) {
      int64_t total = 0;
      int uniform_align = 1;
      for (i = 0; i < t->n; i++) uniform_align &= t->align[i] == 0;
      for (k = 0; k < th_plan_npools(p); k++) total += th_plan_arena(p, th_plan_pool_id(p, k));
      if (uniform_align) CHECK(total == sum, "%s: arenas %lld != sum of sets %lld", what, (long long)total, (long long)sum);
    }
  } else {
    for (i = 0; i < t->n; i++) CHECK(th_plan_set(p, i) == -1, "%s: set without 'sets'", what);
  }
}

static void random_list(tlist *t, int n, int steps, int npools, int mixed_align) {
  int i;
  t->n = 0;
  for (i = 0; i < n; i++) {
    int64_t first = uniform(0, steps - 1), len, bytes;
    int r = (int)uniform(0, 9);
    len = r < 5 ? uniform(0, 2) : r < 8 ? uniform(0, steps / 3) : uniform(0, steps);
    r = (int)uniform(0, 9);
    bytes = r == 0 ? 0 : r < 4 ? 64 * uniform(1, 8) : r < 8 ? uniform(1, 5000) : uniform(1, 200000);
    tl_add(t, first, first + len, bytes, uniform(0, npools - 1) * 3 - 1,
           mixed_align && uniform(0, 3) == 0 ? ((int64_t)1 << uniform(0, 9)) : 0);
  }
}

static int same_offsets(const th_plan *a, const th_plan *b, int n) {
  int i;
  for (i = 0; i < n; i++)
    if (th_plan_offset(a, i) != th_plan_offset(b, i) || th_plan_set(a, i) != th_plan_set(b, i)) return 0;
  return 1;
}

/* TFLite's arena planner written the slow, obvious way: the reference the
   fast placer must match offset for offset (greedy by size; best or first fit) */
static const tlist *order_list; /* qsort has no context argument */
static int cmp_size_order(const void *x, const void *y) {
  const tlist *t = order_list;
  int i = *(const int *)x, j = *(const int *)y;
  int64_t si = round64(t->bytes[i]), sj = round64(t->bytes[j]);
  uint64_t li = (uint64_t)t->last[i] - (uint64_t)t->first[i], lj = (uint64_t)t->last[j] - (uint64_t)t->first[j];
  if (si != sj) return si > sj ? -1 : 1;
  if (li != lj) return li > lj ? -1 : 1;
  if (t->first[i] != t->first[j]) return t->first[i] < t->first[j] ? -1 : 1;
  return (i > j) - (i < j);
}

static int cmp_i64pair(const void *x, const void *y) {
  const int64_t *a = x, *b = y;
  return (a[0] > b[0]) - (a[0] < b[0]);
}

static void naive_greedy_size(const tlist *t, int64_t *off, int first_fit) {
  int n = t->n, k, j, *order = malloc(n * sizeof *order), *placed = calloc(n, sizeof *placed);
  int64_t (*live)[2] = malloc((n + 1) * sizeof *live);
  for (k = 0; k < n; k++) order[k] = k;
  order_list = t;
  qsort(order, n, sizeof *order, cmp_size_order);
  for (k = 0; k < n; k++) {
    int i = order[k], nl = 0;
    int64_t s = round64(t->bytes[i]), prev = 0, best = -1, bestgap = INT64_MAX;
    off[i] = 0;
    if (s == 0) continue;
    for (j = 0; j < n; j++)
      if (placed[j] && t->first[j] <= t->last[i] && t->first[i] <= t->last[j] && t->bytes[j] > 0) {
        live[nl][0] = off[j];
        live[nl++][1] = off[j] + round64(t->bytes[j]);
      }
    qsort(live, nl, sizeof *live, cmp_i64pair);
    for (j = 0; j < nl; j++) {
      if (live[j][0] > prev && live[j][0] - prev >= s && live[j][0] - prev < bestgap &&
          (best < 0 || !first_fit)) {
        bestgap = live[j][0] - prev;
        best = prev;
      }
      if (live[j][1] > prev) prev = live[j][1];
    }
    off[i] = best >= 0 ? best : prev;
    placed[i] = 1;
  }
  free(order);
  free(placed);
  free(live);
}

static void test_reference(void) {
  tlist t = {0};
  int round, i, before = failures;
  int64_t *ref = NULL;
  for (round = 0; round < 600; round++) {
    int n = (int)uniform(1, 300);
    int steps = (int)(round % 3 == 0 ? uniform(1, 40) : round % 3 == 1 ? uniform(40, 400) : uniform(400, 20000));
    th_plan *p;
    random_list(&t, n, steps, 1, 0);
    ref = realloc(ref, n * sizeof *ref);
    naive_greedy_size(&t, ref, round % 2);
    p = solve(&t, TH_PLAN_GREEDY_SIZE, round % 2 ? TH_PLAN_FIT_FIRST : TH_PLAN_FIT_BEST, 64, 0);
    for (i = 0; i < n; i++)
      CHECK(th_plan_offset(p, i) == ref[i], "reference round %d: #%d at %lld, reference %lld", round, i,
            (long long)th_plan_offset(p, i), (long long)ref[i]);
    th_plan_free(p);
  }
  free(ref);
  tl_free(&t);
  printf("reference: 600 random sets, greedy_size equals a naive O(n^2) best / first fit: %s\n",
         failures == before ? "ok" : "FAILED");
}

static void test_out_of_memory(void) {
  tlist t = {0};
  int m, k, ok, before = failures;
  random_list(&t, 400, 3000, 2, 1);
  for (m = 0; m < TH_PLAN_NMETHODS; m++) {
    for (k = 1, ok = 0; !ok && k < 100000; k++) {
      th_plan *p = build(&t);
      th_plan_opts o;
      int rc;
      th_plan_opts_init(&o);
      o.method = (th_plan_method)m;
      o.budget_ms = 1;
      o.debug = k % 2;
      fail_after = k;
      rc = th_plan_solve(p, &o);
      ok = fail_after > 0; /* the injected failure was never reached */
      fail_after = 0;
      if (ok) {
        CHECK(rc == TH_OK, "%s: solve failed without an injected failure: %s", th_plan_method_name[m], th_error_msg());
        verify(&t, p, (th_plan_method)m, 64, "after injections");
      } else {
        CHECK(rc == TH_ERR || o.debug, "%s: allocation %d failed but solve succeeded", th_plan_method_name[m], k);
        if (rc == TH_ERR) {
          CHECK(strstr(th_error_msg(), "out of memory") != NULL, "%s: message '%s'", th_plan_method_name[m],
                th_error_msg());
          CHECK(th_plan_offset(p, 0) == -1 && th_plan_npools(p) == 0, "%s: results after a failed solve",
                th_plan_method_name[m]);
        }
      }
      th_plan_free(p);
    }
  }
  /* th_plan_add and th_plan_new */
  {
    th_plan *p = th_plan_new();
    int i, rc = 0;
    fail_after = 1;
    for (i = 0; i < 100 && rc >= 0; i++) rc = th_plan_add(p, 0, 1, 8, 0);
    fail_after = 0;
    CHECK(rc == TH_ERR && strstr(th_error_msg(), "out of memory"), "add under failure: %s", th_error_msg());
    th_plan_free(p);
    fail_after = 1;
    p = th_plan_new();
    fail_after = 0;
    CHECK(p == NULL && strstr(th_error_msg(), "out of memory"), "new under failure");
  }
  tl_free(&t);
  printf("allocation failures: every allocation of every planner failed once: %s\n",
         failures == before ? "ok" : "FAILED");
}

/* 'best' is never worse than any single greedy order, and its local search
   reaches the lower bound on sets where no greedy order does */
static void test_best(void) {
  tlist t = {0};
  int round, m, wins = 0, optimal = 0, before = failures;
  for (round = 0; round < 400; round++) {
    int64_t greedy = INT64_MAX, best, lb;
    th_plan *p;
    random_list(&t, (int)uniform(5, 60), (int)uniform(3, 60), 1, 0);
    for (m = TH_PLAN_GREEDY_SIZE; m <= TH_PLAN_PEAK; m++) {
      p = solve(&t, (th_plan_method)m, TH_PLAN_FIT_BEST, 64, 0);
      if (th_plan_arena(p, -1) < greedy) greedy = th_plan_arena(p, -1);
      th_plan_free(p);
    }
    p = solve(&t, TH_PLAN_BEST, TH_PLAN_FIT_BEST, 64, 20);
    best = th_plan_arena(p, -1);
    lb = th_plan_lower_bound(p, -1);
    CHECK(best <= greedy, "round %d: best %lld worse than a greedy order %lld", round, (long long)best,
          (long long)greedy);
    wins += best < greedy;
    optimal += best == lb && greedy > lb;
    th_plan_free(p);
  }
  CHECK(optimal > 0, "the local search never reached the bound where greedy orders did not");
  tl_free(&t);
  printf("best vs greedy: 400 random sets, the search improved %d, reaching the bound on %d: %s\n", wins,
         optimal, failures == before ? "ok" : "FAILED");
}

static void test_properties(void) {
  static const th_plan_method methods[] = {TH_PLAN_BEST, TH_PLAN_GREEDY_SIZE, TH_PLAN_GREEDY_CONFLICT,
                                           TH_PLAN_GREEDY_LIFETIME, TH_PLAN_PEAK, TH_PLAN_SETS};
  tlist t = {0};
  int round, mi, before = failures;
  for (round = 0; round < 3000; round++) {
    /* few steps (one time bucket of the placer), then many (a deep tree) */
    int n = (int)uniform(1, round < 2500 ? 40 : 150);
    int steps = (int)(round % 3 == 0 ? uniform(1, 40) : round % 3 == 1 ? uniform(40, 400) : uniform(400, 5000));
    int npools = (int)uniform(1, 3), mixed = round % 3 == 0;
    int64_t alignment = round % 5 == 0 ? ((int64_t)1 << uniform(0, 8)) : 64;
    random_list(&t, n, steps, npools, mixed);
    for (mi = 0; mi < 6; mi++) {
      char what[96];
      th_plan *p = solve(&t, methods[mi], round % 7 == 0 ? TH_PLAN_FIT_FIRST : TH_PLAN_FIT_BEST, alignment, 2);
      th_plan *q;
      snprintf(what, sizeof what, "round %d %s", round, th_plan_method_name[methods[mi]]);
      verify(&t, p, methods[mi], alignment, what);
      /* determinism: a fresh plan of the same input, and a second solve of the same object */
      q = solve(&t, methods[mi], round % 7 == 0 ? TH_PLAN_FIT_FIRST : TH_PLAN_FIT_BEST, alignment, 2);
      CHECK(same_offsets(p, q, t.n), "%s: not deterministic", what);
      th_plan_free(q);
      /* per-pool independence: each pool alone gets the same offsets and arena */
      if (round % 4 == 0) {
        int k;
        for (k = 0; k < th_plan_npools(p); k++) {
          int64_t pool = th_plan_pool_id(p, k);
          tlist u = {0};
          int i, j = 0;
          for (i = 0; i < t.n; i++)
            if (t.pool[i] == pool) tl_add(&u, t.first[i], t.last[i], t.bytes[i], t.pool[i], t.align[i]);
          q = solve(&u, methods[mi], round % 7 == 0 ? TH_PLAN_FIT_FIRST : TH_PLAN_FIT_BEST, alignment, 2);
          CHECK(th_plan_arena(q, pool) == th_plan_arena(p, pool), "%s: pool %lld arena depends on other pools",
                what, (long long)pool);
          for (i = 0; i < t.n; i++)
            if (t.pool[i] == pool) {
              CHECK(th_plan_offset(q, j) == th_plan_offset(p, i), "%s: pool %lld offsets depend on other pools",
                    what, (long long)pool);
              j++;
            }
          th_plan_free(q);
          tl_free(&u);
        }
      }
      th_plan_free(p);
    }
  }
  tl_free(&t);
  printf("properties: 3000 random sets x 6 planners: %s\n", failures == before ? "ok" : "FAILED");
}

static void test_handmade(void) {
  tlist t = {0};
  th_plan *p, *q;
  int i, m;
  /* a chain: each tensor alive with its successor only -> two buffers */
  for (i = 0; i < 50; i++) tl_add(&t, i, i + 1, 1000, 0, 0);
  for (m = 0; m < TH_PLAN_NMETHODS; m++) {
    p = solve(&t, (th_plan_method)m, TH_PLAN_FIT_BEST, 64, 50);
    CHECK(th_plan_lower_bound(p, 0) == 2048, "chain: lower bound %lld", (long long)th_plan_lower_bound(p, 0));
    CHECK(th_plan_arena(p, 0) == 2048, "chain %s: arena %lld, want 2048", th_plan_method_name[m],
          (long long)th_plan_arena(p, 0));
    if (m == TH_PLAN_SETS) CHECK(th_plan_nsets(p) == 2, "chain: %d sets, want 2", th_plan_nsets(p));
    th_plan_free(p);
  }
  tl_free(&t);

  /* everything alive at once -> the sum, whatever the order */
  for (i = 0; i < 20; i++) tl_add(&t, i % 3, 100 - i % 5, 64 * (i + 1), 7, 0);
  for (m = 0; m < TH_PLAN_NMETHODS; m++) {
    p = solve(&t, (th_plan_method)m, TH_PLAN_FIT_BEST, 64, 50);
    CHECK(th_plan_arena(p, 7) == 64 * 210 && th_plan_lower_bound(p, 7) == 64 * 210,
          "all-overlapping %s: arena %lld", th_plan_method_name[m], (long long)th_plan_arena(p, 7));
    th_plan_free(p);
  }
  tl_free(&t);

  /* best fit beats first fit, same order (longest lifetime first), alignment 1:
       F1 30 bytes, steps -1..9  -> [0,30)
       Wm 10 bytes, steps  3..11 -> [30,40)
       F2 20 bytes, steps  1..8  -> [40,60)
       Wt 10 bytes, steps  5..11 -> [60,70)
     at steps 10..11 only Wm and Wt live, leaving gaps [0,30) and [40,60).
       x  20 bytes, steps 10..11: first fit -> [0,20), best fit -> [40,60)
       y  30 bytes, step  11:     first fit finds no 30-byte gap -> [70,100);
                                  best fit -> [0,30)
     lower bound 70 (steps 5..8 and step 11): best fit is optimal */
  tl_add(&t, -1, 9, 30, 0, 0);
  tl_add(&t, 3, 11, 10, 0, 0);
  tl_add(&t, 1, 8, 20, 0, 0);
  tl_add(&t, 5, 11, 10, 0, 0);
  tl_add(&t, 10, 11, 20, 0, 0);
  tl_add(&t, 11, 11, 30, 0, 0);
  p = solve(&t, TH_PLAN_GREEDY_LIFETIME, TH_PLAN_FIT_BEST, 1, 0);
  q = solve(&t, TH_PLAN_GREEDY_LIFETIME, TH_PLAN_FIT_FIRST, 1, 0);
  verify(&t, p, TH_PLAN_GREEDY_LIFETIME, 1, "best fit case");
  verify(&t, q, TH_PLAN_GREEDY_LIFETIME, 1, "first fit case");
  CHECK(th_plan_lower_bound(p, 0) == 70, "fit case: lower bound %lld", (long long)th_plan_lower_bound(p, 0));
  CHECK(th_plan_arena(p, 0) == 70 && th_plan_offset(p, 4) == 40 && th_plan_offset(p, 5) == 0,
        "best fit: arena %lld, x at %lld, y at %lld", (long long)th_plan_arena(p, 0),
        (long long)th_plan_offset(p, 4), (long long)th_plan_offset(p, 5));
  CHECK(th_plan_arena(q, 0) == 100 && th_plan_offset(q, 4) == 0 && th_plan_offset(q, 5) == 70,
        "first fit: arena %lld, x at %lld, y at %lld", (long long)th_plan_arena(q, 0),
        (long long)th_plan_offset(q, 4), (long long)th_plan_offset(q, 5));
  th_plan_free(p);
  th_plan_free(q);
  tl_free(&t);

  /* OptNet's sets lose where sizes differ: a 1000 and a 10 byte tensor,
     then two of 500 that could share the 1000's bytes side by side */
  tl_add(&t, 0, 1, 1000, 0, 0);
  tl_add(&t, 0, 3, 10, 0, 0);
  tl_add(&t, 2, 3, 500, 0, 0);
  tl_add(&t, 2, 3, 500, 0, 0);
  p = solve(&t, TH_PLAN_BEST, TH_PLAN_FIT_BEST, 1, 50);
  q = solve(&t, TH_PLAN_SETS, TH_PLAN_FIT_BEST, 1, 50);
  CHECK(th_plan_arena(p, 0) == 1010 && th_plan_lower_bound(p, 0) == 1010, "offsets beat sets: best %lld",
        (long long)th_plan_arena(p, 0));
  CHECK(th_plan_arena(q, 0) == 1510, "sets: arena %lld, want 1510", (long long)th_plan_arena(q, 0));
  th_plan_free(p);
  th_plan_free(q);
  tl_free(&t);

  /* zero-byte tensors hold nothing; an empty plan is fine */
  tl_add(&t, 0, 5, 0, 0, 0);
  tl_add(&t, 0, 5, 0, 0, 0);
  p = solve(&t, TH_PLAN_BEST, TH_PLAN_FIT_BEST, 64, 50);
  CHECK(th_plan_arena(p, 0) == 0 && th_plan_offset(p, 1) == 0, "zero bytes: arena %lld", (long long)th_plan_arena(p, 0));
  th_plan_free(p);
  tl_free(&t);
  p = solve(&t, TH_PLAN_BEST, TH_PLAN_FIT_BEST, 64, 50);
  CHECK(th_plan_npools(p) == 0 && th_plan_arena(p, 0) == 0, "empty plan");
  th_plan_free(p);

  /* huge and negative steps */
  tl_add(&t, INT64_MIN, INT64_MAX, 64, 0, 0);
  tl_add(&t, -5, -5, 64, 0, 0);
  tl_add(&t, INT64_MAX, INT64_MAX, 64, 0, 0);
  for (m = 0; m < TH_PLAN_NMETHODS; m++) {
    p = solve(&t, (th_plan_method)m, TH_PLAN_FIT_BEST, 64, 50);
    verify(&t, p, (th_plan_method)m, 64, "extreme steps");
    CHECK(th_plan_arena(p, 0) == 128, "extreme steps %s: arena %lld", th_plan_method_name[m], (long long)th_plan_arena(p, 0));
    th_plan_free(p);
  }
  tl_free(&t);
  printf("hand-made cases: done\n");
}

static void test_errors(void) {
  th_plan *p = th_plan_new();
  th_plan_opts o;
  CHECK(th_plan_add(p, 0, 1, -1, 0) == TH_ERR && strstr(th_error_msg(), "bytes must be >= 0, got -1"),
        "negative bytes: %s", th_error_msg());
  CHECK(th_plan_add(p, 5, 2, 1, 0) == TH_ERR && strstr(th_error_msg(), "last step (2) is before first step (5)"),
        "last < first: %s", th_error_msg());
  CHECK(th_plan_add_aligned(p, 0, 1, 1, 0, 3) == TH_ERR && strstr(th_error_msg(), "power of two"),
        "alignment 3: %s", th_error_msg());
  CHECK(th_plan_count(p) == 0, "failed adds add nothing");
  CHECK(th_plan_add(p, 0, 1, 100, 0) == 0, "add");
  th_plan_opts_init(&o);
  o.alignment = 48;
  CHECK(th_plan_solve(p, &o) == TH_ERR && strstr(th_error_msg(), "alignment must be a power of two"),
        "opts alignment: %s", th_error_msg());
  CHECK(th_plan_offset(p, 0) == -1, "no result after a failed solve");
  th_plan_opts_init(&o);
  o.budget_ms = -1;
  CHECK(th_plan_solve(p, &o) == TH_ERR && strstr(th_error_msg(), "budget_ms must be >= 0"), "budget: %s", th_error_msg());
  th_plan_opts_init(&o);
  CHECK(th_plan_solve(p, &o) == TH_OK && th_plan_offset(p, 0) == 0 && th_plan_arena(p, 0) == 128, "solve");
  CHECK(th_plan_stats_get(p, 3, &(th_plan_stats){0}) == TH_ERR && strstr(th_error_msg(), "no pool 3"), "stats");
  /* solving again replaces the results */
  o.method = TH_PLAN_SETS;
  CHECK(th_plan_solve(p, &o) == TH_OK && th_plan_nsets(p) == 1 && th_plan_set(p, 0) == 0, "re-solve as sets");
  o.method = TH_PLAN_PEAK;
  CHECK(th_plan_solve(p, &o) == TH_OK && th_plan_nsets(p) == 0 && th_plan_set(p, 0) == -1, "re-solve as peak");
  CHECK(th_plan_add(p, 1, 2, 64, 0) == 1 && th_plan_offset(p, 0) == -1, "adding drops the results");
  CHECK(th_plan_method_parse("peak") == TH_PLAN_PEAK && th_plan_method_parse("nope") == -1, "parse");
  th_plan_free(p);
  printf("errors: done\n");
}

/* --- network-shaped traces ---
   A net is a DAG of nodes in execution order; node k reads up to two
   earlier nodes, writes 'out' bytes and uses a 'buf' byte scratch buffer.
   Inference: node k runs at step k; its output lives until its last
   reader. Training (nntrainer-like order): forward k at step k, backward
   at step 2N+1-k; outputs live until the backward of their readers (and
   their own when the module needs it), gradients from their first
   producer to their node's backward, saved buffers forward to backward. */
typedef struct net {
  int n;
  int in[200000][2];
  int64_t out[200000], buf[200000];
  int needs_output[200000], saves_buf[200000];
} net;

static net NET;

static int node(int a, int b, int64_t out, int64_t buf, int needs_output, int saves_buf) {
  int k = NET.n++;
  if (k >= 200000) {
    fprintf(stderr, "plan_test: net too large\n");
    exit(2);
  }
  NET.in[k][0] = a;
  NET.in[k][1] = b;
  NET.out[k] = out;
  NET.buf[k] = buf;
  NET.needs_output[k] = needs_output;
  NET.saves_buf[k] = saves_buf;
  return k;
}

static void trace(tlist *t, int training) {
  int N = NET.n, k, j;
  int64_t *lastuse = malloc(N * sizeof *lastuse), *firstgrad = malloc(N * sizeof *firstgrad);
  t->n = 0;
  for (k = 0; k < N; k++) {
    lastuse[k] = k + 1;
    firstgrad[k] = 2 * N + 1 - (k + 1);
  }
  for (k = 0; k < N; k++)
    for (j = 0; j < 2; j++) {
      int a = NET.in[k][j];
      int64_t use = training ? 2 * N + 1 - (k + 1) : k + 1, g = 2 * N + 1 - (k + 1);
      if (a < 0) continue;
      if (use > lastuse[a]) lastuse[a] = use;
      if (g < firstgrad[a]) firstgrad[a] = g;
    }
  for (k = 0; k < N; k++) {
    int64_t f = k + 1, b = 2 * N + 1 - (k + 1), last = lastuse[k];
    if (training && NET.needs_output[k] && b > last) last = b;
    tl_add(t, f, last, NET.out[k], 1, 0);
    if (NET.buf[k]) tl_add(t, f, training && NET.saves_buf[k] ? b : f, NET.buf[k], 1, 0);
    if (training) tl_add(t, firstgrad[k], b, NET.out[k], 1, 0);
  }
  free(lastuse);
  free(firstgrad);
}

/* resnet-ish: stem, 3 stages of B basic blocks (float, batch 'bs', 32x32 input) */
static void make_resnet(int B, int bs) {
  int s, b, x;
  int64_t c = 16, hw = 32 * 32;
  NET.n = 0;
  x = node(-1, -1, 4 * bs * 3 * hw, 0, 0, 0);
  x = node(x, -1, 4 * bs * c * hw, 4 * 27 * hw * bs, 0, 1);
  x = node(x, -1, 4 * bs * c * hw, 0, 1, 0);
  for (s = 0; s < 3; s++) {
    for (b = 0; b < B; b++) {
      int64_t cin = c;
      int y, sc = x;
      if (s > 0 && b == 0) {
        c *= 2;
        hw /= 4;
      }
      y = node(x, -1, 4 * bs * c * hw, 4 * 9 * cin * hw * bs, 0, 1); /* conv */
      y = node(y, -1, 4 * bs * c * hw, 0, 1, 0);                     /* bn */
      y = node(y, -1, 4 * bs * c * hw, 0, 1, 0);                     /* relu */
      y = node(y, -1, 4 * bs * c * hw, 4 * 9 * c * hw * bs, 0, 1);   /* conv */
      y = node(y, -1, 4 * bs * c * hw, 0, 1, 0);                     /* bn */
      if (s > 0 && b == 0) sc = node(sc, -1, 4 * bs * c * hw, 0, 0, 0); /* shortcut */
      y = node(y, sc, 4 * bs * c * hw, 0, 0, 0);                     /* add */
      x = node(y, -1, 4 * bs * c * hw, 0, 1, 0);                     /* relu */
    }
  }
  x = node(x, -1, 4 * bs * c, 0, 0, 0);  /* pool */
  node(x, -1, 4 * bs * 10, 0, 0, 0);     /* linear */
}

/* vgg-ish chain: conv-relu pairs with pooling between stages */
static void make_vgg(int bs) {
  static const int convs[5] = {1, 1, 2, 2, 2};
  int s, k, x;
  int64_t c = 64, hw = 224 * 224;
  NET.n = 0;
  x = node(-1, -1, 4 * bs * 3 * hw, 0, 0, 0);
  for (s = 0; s < 5; s++) {
    for (k = 0; k < convs[s]; k++) {
      x = node(x, -1, 4 * bs * c * hw, 4 * 9 * c * hw * bs, 0, 1);
      x = node(x, -1, 4 * bs * c * hw, 0, 1, 0);
    }
    hw /= 4;
    x = node(x, -1, 4 * bs * c * hw, 8 * bs * c * hw, 0, 1);
    if (c < 512) c *= 2;
  }
  x = node(x, -1, 4 * bs * 4096, 0, 0, 0);
  x = node(x, -1, 4 * bs * 4096, 0, 1, 0);
  x = node(x, -1, 4 * bs * 4096, 0, 0, 0);
  node(x, -1, 4 * bs * 1000, 0, 0, 0);
}

/* densenet-ish: blocks of L layers, each reading the concatenation of all before */
static void make_densenet(int L, int bs) {
  int blk, l, x, cat;
  int64_t k0 = 24, g = 12, hw = 32 * 32;
  NET.n = 0;
  x = node(-1, -1, 4 * bs * 3 * hw, 0, 0, 0);
  x = node(x, -1, 4 * bs * k0 * hw, 4 * 27 * hw * bs, 0, 1);
  cat = x;
  for (blk = 0; blk < 3; blk++) {
    int64_t ch = k0 + blk * L * g / 2;
    for (l = 0; l < L; l++) {
      int y = node(cat, -1, 4 * bs * ch * hw, 0, 1, 0);         /* bn */
      y = node(y, -1, 4 * bs * ch * hw, 0, 1, 0);               /* relu */
      y = node(y, -1, 4 * bs * g * hw, 4 * 9 * ch * hw * bs, 0, 1); /* conv */
      ch += g;
      cat = node(cat, y, 4 * bs * ch * hw, 0, 0, 0);            /* join */
    }
    if (blk < 2) {
      hw /= 4;
      cat = node(cat, -1, 4 * bs * ch * hw, 0, 0, 0);
    }
  }
  node(cat, -1, 4 * bs * 10, 0, 0, 0);
}

/* inception-ish: modules of 4 branches joined */
static void make_inception(int M, int bs) {
  int mo, x;
  int64_t c = 192, hw = 28 * 28;
  NET.n = 0;
  x = node(-1, -1, 4 * bs * 3 * 224 * 224, 0, 0, 0);
  x = node(x, -1, 4 * bs * c * hw, 4 * 49 * 3 * hw * bs, 0, 1);
  for (mo = 0; mo < M; mo++) {
    int b1, b2, b3, b4;
    b1 = node(x, -1, 4 * bs * 64 * hw, 4 * c * hw * bs, 0, 1);
    b1 = node(b1, -1, 4 * bs * 64 * hw, 0, 1, 0);
    b2 = node(x, -1, 4 * bs * 96 * hw, 4 * c * hw * bs, 0, 1);
    b2 = node(b2, -1, 4 * bs * 96 * hw, 0, 1, 0);
    b2 = node(b2, -1, 4 * bs * 128 * hw, 4 * 9 * 96 * hw * bs, 0, 1);
    b3 = node(x, -1, 4 * bs * 16 * hw, 4 * c * hw * bs, 0, 1);
    b3 = node(b3, -1, 4 * bs * 32 * hw, 4 * 25 * 16 * hw * bs, 0, 1);
    b4 = node(x, -1, 4 * bs * c * hw, 0, 0, 0);
    b4 = node(b4, -1, 4 * bs * 32 * hw, 4 * c * hw * bs, 0, 1);
    b1 = node(b1, b2, 4 * bs * 192 * hw, 0, 0, 0);
    b3 = node(b3, b4, 4 * bs * 64 * hw, 0, 0, 0);
    c = 256;
    x = node(b1, b3, 4 * bs * c * hw, 0, 0, 0);
    if (mo % 3 == 2) {
      hw /= 4;
      x = node(x, -1, 4 * bs * c * hw, 0, 0, 0);
    }
  }
  node(x, -1, 4 * bs * 1000, 0, 0, 0);
}

static void report(const char *name, const tlist *t) {
  static const th_plan_method methods[] = {TH_PLAN_BEST, TH_PLAN_GREEDY_SIZE, TH_PLAN_GREEDY_CONFLICT,
                                           TH_PLAN_GREEDY_LIFETIME, TH_PLAN_PEAK, TH_PLAN_SETS};
  int mi;
  printf("  %-26s %6d", name, t->n);
  for (mi = 0; mi < 6; mi++) {
    th_plan *p = solve(t, methods[mi], TH_PLAN_FIT_BEST, 64, 50);
    printf(" %8.4f", (double)th_plan_arena(p, 1) / (double)th_plan_lower_bound(p, 1));
    verify(t, p, methods[mi], 64, name);
    if (mi == 0) {
      th_plan_stats st;
      th_plan_stats_get(p, 1, &st);
      printf(" (%s%s)", th_plan_method_name[st.heuristic], st.improvements ? "+ls" : "");
    }
    th_plan_free(p);
  }
  printf("\n");
}

static void test_quality(void) {
  tlist t = {0};
  int training;
  printf("quality: arena / lower bound (1.0 = optimal), float activations\n");
  printf("  %-26s %6s %8s %8s %8s %8s %8s %8s\n", "trace", "tensors", "best", "size", "conflict", "lifetime",
         "peak", "sets");
  for (training = 0; training < 2; training++) {
    char name[64];
    const char *mode = training ? "train" : "infer";
    make_resnet(18, 64);
    snprintf(name, sizeof name, "resnet-110 b64 %s", mode);
    trace(&t, training);
    report(name, &t);
    make_resnet(9, 1);
    snprintf(name, sizeof name, "resnet-56 b1 %s", mode);
    trace(&t, training);
    report(name, &t);
    make_vgg(32);
    snprintf(name, sizeof name, "vgg-A b32 %s", mode);
    trace(&t, training);
    report(name, &t);
    make_densenet(16, 64);
    snprintf(name, sizeof name, "densenet-L16 b64 %s", mode);
    trace(&t, training);
    report(name, &t);
    make_inception(9, 32);
    snprintf(name, sizeof name, "inception-9 b32 %s", mode);
    trace(&t, training);
    report(name, &t);
  }
  rng_state = 99;
  random_list(&t, 2000, 500, 1, 0);
  {
    int i;
    for (i = 0; i < t.n; i++) t.pool[i] = 1;
  }
  report("random 2000 / 500 steps", &t);
  tl_free(&t);
}

static void timing(const char *name, const tlist *t) {
  static const th_plan_method methods[] = {TH_PLAN_BEST, TH_PLAN_GREEDY_SIZE, TH_PLAN_PEAK, TH_PLAN_SETS};
  int mi;
  printf("  %-30s %7d", name, t->n);
  for (mi = 0; mi < 4; mi++) {
    double t0 = now(), dt;
    th_plan *p = solve(t, methods[mi], TH_PLAN_FIT_BEST, 64, mi == 0 ? 50 : 0);
    dt = now() - t0;
    printf("  %-11s %6.0f ms %6.4f", th_plan_method_name[methods[mi]], dt * 1e3,
           (double)th_plan_arena(p, 1) / (double)th_plan_lower_bound(p, 1));
    th_plan_free(p);
  }
  printf("\n");
}

static void test_timing(void) {
  tlist t = {0};
  int i;
  printf("timing: 100,000 tensors (ms, then arena / lower bound); best includes its 50 ms search budget\n");
  make_resnet(2400, 1);
  trace(&t, 1);
  t.n = t.n > 100000 ? 100000 : t.n;
  timing("resnet chain, training", &t);
  make_resnet(4200, 1);
  trace(&t, 0);
  t.n = t.n > 100000 ? 100000 : t.n;
  timing("resnet chain, inference", &t);
  rng_state = 7;
  t.n = 0;
  for (i = 0; i < 100000; i++) {
    int64_t f = uniform(0, 99999);
    tl_add(&t, f, f + uniform(0, 100), uniform(1, 1 << 20), 1, 0);
  }
  timing("random, lifetimes <= 100", &t);
  t.n = 0;
  for (i = 0; i < 100000; i++) {
    int64_t f = uniform(0, 99999);
    tl_add(&t, f, f + (uniform(0, 9) == 0 ? uniform(0, 50000) : uniform(0, 20)), uniform(1, 1 << 20), 1, 0);
  }
  timing("random, 10% long-lived", &t);
  tl_free(&t);
}

int main(int argc, char **argv) {
  int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  if (argc > 1 && strcmp(argv[1], "--timing") == 0) {
    test_timing();
    return 0;
  }
  test_errors();
  test_handmade();
  test_out_of_memory();
  test_properties();
  test_reference();
  test_best();
  if (!quick) {
    test_quality();
    test_timing();
  }
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
