/*
** fuzz_plan.c: libFuzzer harness for the planner's C API (src/plan).
** The input is a little program: options (method, fit, alignment, search
** budget, seed), then tensors as (first, length, bytes, pool, align), the
** values drawn from small ranges, edge values (0, 2^62, INT64_MAX...) or
** raw 64-bit input. th_plan_add must refuse what its header says it
** refuses (and only that); th_plan_solve may fail only with a message.
** After a successful solve the harness checks the plan itself, with
** 128-bit arithmetic: each tensor's block lies inside its pool's arena,
** no two tensors of one pool alive at a common step share a byte, offsets
** and sizes are aligned, sizes are the bytes rounded up, the lower bound
** is the most aligned bytes alive at any step (recounted here), and the
** arena is at least that bound. The same input solved again gives the
** same plan (the planner promises determinism).
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../src/plan/th_plan.h"
#include "../src/tensor/th_error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXT 48

typedef struct {
  const uint8_t *p;
  size_t n;
} input;

typedef struct {
  int64_t first, last, bytes, pool, align;
  int index;  /* th_plan_add's answer, -1 when refused */
} tensor;

static uint8_t take8(input *in) {
  uint8_t v = 0;
  if (in->n > 0) {
    v = *in->p++;
    in->n--;
  }
  return v;
}

/* mostly small values (that make plans interesting), some edges */
static int64_t take_int(input *in, int64_t small) {
  static const int64_t edges[] = {0, -1, INT64_MAX, INT64_MIN, (int64_t)1 << 62, INT64_MAX - 63,
                                  (int64_t)1 << 32, (int64_t)1 << 40, 63, 64, 65, 4096};
  uint8_t tag = take8(in);
  if (tag < 200) return (int64_t)take8(in) % (small + 1);
  if (tag < 250) return edges[tag % (sizeof edges / sizeof edges[0])];
  {
    uint64_t v = 0;
    int i;
    for (i = 0; i < 8; i++) v = (v << 8) | take8(in);
    return (int64_t)v;
  }
}

static void fail(const char *what, int i, int j) {
  fprintf(stderr, "fuzz_plan: %s (tensor %d, %d)\n", what, i, j);
  abort();
}

static int pow2(int64_t a) { return a > 0 && (a & (a - 1)) == 0; }

/* what th_plan_add refuses: its header, plus the caps it states in its
   messages (bytes up to 2^60, alignments up to 2^30) */
static int refused(const tensor *t) {
  return t->bytes < 0 || t->bytes > ((int64_t)1 << 60) || t->last < t->first || t->align < 0 ||
         t->align > ((int64_t)1 << 30) || (t->align != 0 && !pow2(t->align));
}

static void check_pool(const th_plan *p, const tensor *ts, int n, int64_t pool, int64_t align0) {
  int64_t arena = th_plan_arena(p, pool), bound = th_plan_lower_bound(p, pool), best = 0;
  int i, j;
  if (arena < bound) fail("arena below the lower bound", -1, -1);
  for (i = 0; i < n; i++) {
    const tensor *a = &ts[i];
    __int128 off, sz, want, al;
    if (a->index < 0 || a->pool != pool) continue;
    off = th_plan_offset(p, a->index);
    sz = th_plan_size(p, a->index);
    al = a->align ? a->align : align0;
    want = ((__int128)a->bytes + al - 1) / al * al;
    if (sz != want) fail("size is not the bytes rounded up to the alignment", i, -1);
    if (off < 0 || off % al != 0) fail("offset negative or not aligned", i, -1);
    if (off + sz > arena) fail("tensor outside the arena", i, -1);
    for (j = 0; j < i; j++) {
      const tensor *b = &ts[j];
      __int128 boff, bsz;
      if (b->index < 0 || b->pool != pool) continue;
      if (a->last < b->first || b->last < a->first) continue;
      boff = th_plan_offset(p, b->index);
      bsz = th_plan_size(p, b->index);
      if (sz > 0 && bsz > 0 && off < boff + bsz && boff < off + sz) fail("live tensors overlap", i, j);
    }
  }
  /* the bound recounted: the load is highest at some tensor's first step */
  for (i = 0; i < n; i++) {
    __int128 load = 0;
    if (ts[i].index < 0 || ts[i].pool != pool) continue;
    for (j = 0; j < n; j++)
      if (ts[j].index >= 0 && ts[j].pool == pool && ts[j].first <= ts[i].first && ts[i].first <= ts[j].last)
        load += th_plan_size(p, ts[j].index);
    if (load > best) best = load > INT64_MAX ? INT64_MAX : (int64_t)load;
  }
  if (best != bound) fail("lower bound differs from the recount", -1, -1);
}

static int solve(th_plan *p, const th_plan_opts *o, const tensor *ts, int n, int64_t *arenas) {
  int k;
  if (th_plan_solve(p, o) != 0) {
    if (!th_error_msg() || !th_error_msg()[0]) fail("solve failed with no message", -1, -1);
    return -1;
  }
  for (k = 0; k < th_plan_npools(p); k++) {
    int64_t pool = th_plan_pool_id(p, k);
    check_pool(p, ts, n, pool, o->alignment);
    if (k < MAXT) arenas[k] = th_plan_arena(p, pool);
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  input in = {data, size};
  tensor ts[MAXT];
  th_plan_opts o;
  th_plan *p;
  int n = 0, i;
  int64_t arenas[MAXT], again[MAXT];

  th_plan_opts_init(&o);
  o.method = (th_plan_method)(take8(&in) % TH_PLAN_NMETHODS);
  o.fit = (th_plan_fit)(take8(&in) % TH_PLAN_NFITS);
  o.alignment = (int64_t)1 << (take8(&in) % 8);
  o.budget_ms = (take8(&in) % 4) * 0.05;
  o.max_iters = take8(&in) % 2 ? -1 : 200;
  o.seed = take8(&in);
  p = th_plan_new();
  if (!p) return 0;
  while (in.n > 0 && n < MAXT) {
    tensor *t = &ts[n];
    t->first = take_int(&in, 40);
    if (__builtin_add_overflow(t->first, take_int(&in, 20), &t->last)) t->last = INT64_MAX;
    if (take8(&in) == 255) t->last = t->first - (t->first > INT64_MIN);  /* rarely last < first */
    t->bytes = take_int(&in, 255);
    if (take8(&in) % 4 == 0 && t->bytes >= 0 && t->bytes < ((int64_t)1 << 50)) t->bytes *= 1000;
    t->pool = take_int(&in, 2);
    t->align = take8(&in) % 4 ? 0 : take_int(&in, 128);
    t->index = th_plan_add_aligned(p, t->first, t->last, t->bytes, t->pool, t->align);
    if (t->index < 0) {
      if (!refused(t)) fail("valid tensor refused", n, -1);
      t->index = -1;
    } else if (refused(t)) {
      fail("invalid tensor accepted", n, -1);
    }
    n++;
  }
  if (solve(p, &o, ts, n, arenas) == 0) {
    /* determinism: the same tensors and options give the same plan */
    if (solve(p, &o, ts, n, again) != 0) fail("second solve failed", -1, -1);
    for (i = 0; i < th_plan_npools(p) && i < MAXT; i++)
      if (arenas[i] != again[i]) fail("second solve gave another arena", i, -1);
  }
  th_plan_free(p);
  return 0;
}
