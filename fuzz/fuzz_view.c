/*
** fuzz_view.c: libFuzzer harness for the tensor view arithmetic.
** The input is a little program: a storage size, a th_tensor_set with
** sizes/strides/offset taken from the input, then a sequence of view
** operations (narrow, select, transpose, permute, unfold, squeeze,
** unsqueeze, expand, view, resize, set) with arguments from the input.
** Invariant checked after every operation that succeeds: every element
** the view can address lies inside its storage. The harness computes the
** reach itself with 128-bit arithmetic (the core's own extent is what is
** under test), then reads every element through th_tensor_copy when there
** are few enough, so ASan sees any access outside the block.
** Failing operations must leave the tensor as it was (checked too).
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../src/tensor/th_alloc.h"
#include "../src/tensor/th_error.h"
#include "../src/tensor/th_tensor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
  const uint8_t *p;
  size_t n;
} input;

static uint8_t take8(input *in) {
  uint8_t v = 0;
  if (in->n > 0) {
    v = *in->p++;
    in->n--;
  }
  return v;
}

/* interesting integers first (the edges where products overflow), then
   small ones, then raw 64-bit values */
static int64_t take_int(input *in) {
  static const int64_t edges[] = {0, 1, 2, 3, -1, -2, INT64_MAX, INT64_MIN, (int64_t)1 << 31,
                                  (int64_t)1 << 32, (int64_t)1 << 62, ((int64_t)1 << 62) + 1,
                                  INT64_MAX / 2, INT64_MAX / 3, (int64_t)3037000500, 4096};
  uint8_t tag = take8(in);
  if (tag < 64) return tag % 8;                       /* tiny: most views */
  if (tag < 160) return (int64_t)(tag - 64) - 16;     /* small, some negative */
  if (tag < 240) return edges[tag % (sizeof edges / sizeof edges[0])];
  {
    uint64_t v = 0;
    int i;
    for (i = 0; i < 8; i++) v = (v << 8) | take8(in);
    return (int64_t)v;
  }
}

/* the highest and lowest element offsets the view addresses, exactly */
static int reach(const th_tensor *t, __int128 *lo, __int128 *hi) {
  int d;
  *lo = *hi = t->offset;
  for (d = 0; d < t->ndim; d++) {
    if (t->size[d] == 0) return 0;  /* addresses nothing */
  }
  if (t->ndim == 0) return 0;
  for (d = 0; d < t->ndim; d++) {
    __int128 span = (__int128)(t->size[d] - 1) * t->stride[d];
    if (span < 0) *lo += span;
    else *hi += span;
  }
  return 1;
}

static void check_inside(const th_tensor *t, const char *op) {
  __int128 lo, hi;
  int d;
  if (t->ndim < 0 || t->ndim > TH_MAXDIM) {
    fprintf(stderr, "%s: ndim %d\n", op, t->ndim);
    abort();
  }
  for (d = 0; d < t->ndim; d++) {
    if (t->size[d] < 0) {
      fprintf(stderr, "%s: negative size %lld\n", op, (long long)t->size[d]);
      abort();
    }
  }
  if (!reach(t, &lo, &hi)) return;
  if (t->storage == NULL || lo < 0 || hi >= t->storage->size) {
    fprintf(stderr, "%s: view reaches [%lld, %lld] outside storage of %lld\n", op,
            (long long)lo, (long long)hi, t->storage ? (long long)t->storage->size : -1LL);
    abort();
  }
}

/* reads every element (ASan checks the block bounds) when there are few */
static void touch(const th_tensor *t) {
  th_tensor c;
  __int128 n = 1;
  int d;
  if (t->ndim == 0) return;
  for (d = 0; d < t->ndim; d++) n *= t->size[d];
  if (n == 0 || n > 4096) return;
  th_tensor_init(&c, TH_DOUBLE);
  if (th_tensor_resize(&c, t->ndim, t->size) == TH_OK) {
    if (th_tensor_copy(&c, t) != TH_OK) {
      fprintf(stderr, "copy of a valid view failed: %s\n", th_error_msg());
      abort();
    }
  }
  th_tensor_clear(&c);
}

/* FUZZ_VIEW_TRACE=1 prints each step: for reading a crash input */
static void trace(const char *op, int rc, const th_tensor *t) {
  int d;
  static int on = -1;
  if (on < 0) on = getenv("FUZZ_VIEW_TRACE") != NULL;
  if (!on) return;
  fprintf(stderr, "%-9s %s offset %lld size", op, rc == TH_OK ? "ok  " : "fail", (long long)t->offset);
  for (d = 0; d < t->ndim; d++) fprintf(stderr, " %lld", (long long)t->size[d]);
  fprintf(stderr, " stride");
  for (d = 0; d < t->ndim; d++) fprintf(stderr, " %lld", (long long)t->stride[d]);
  fprintf(stderr, " storage %lld%s%s\n", t->storage ? (long long)t->storage->size : -1LL,
          rc == TH_OK ? "" : ": ", rc == TH_OK ? "" : th_error_msg());
}

static int same_view(const th_tensor *a, const th_tensor *b) {
  int d;
  if (a->storage != b->storage || a->offset != b->offset || a->ndim != b->ndim) return 0;
  for (d = 0; d < a->ndim; d++)
    if (a->size[d] != b->size[d] || a->stride[d] != b->stride[d]) return 0;
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  input in = {data, size};
  th_tensor t, r;
  th_storage *s;
  int64_t sz[TH_MAXDIM], st[TH_MAXDIM];
  int nd, d, steps;
  /* a view over 2^40 elements is a fine request; granting it is not the point here */
  th_alloc_set_limit((size_t)64 << 20);
  s = th_storage_new(TH_FLOAT, (int64_t)take8(&in) * 16 + take8(&in));
  if (s == NULL) return 0;
  memset(s->data, 0, (size_t)s->size * sizeof(float));
  th_tensor_init(&t, TH_FLOAT);
  th_tensor_init(&r, TH_FLOAT);
  nd = take8(&in) % 6;
  for (d = 0; d < nd; d++) {
    sz[d] = take_int(&in);
    st[d] = take_int(&in);
  }
  {
    int64_t off = take_int(&in);
    int rc = th_tensor_set(&t, s, off, nd, sz, (take8(&in) & 1) ? st : NULL);
    trace("set", rc, &t);
    if (rc == TH_OK) {
      check_inside(&t, "set");
      touch(&t);
    }
  }
  th_storage_release(s);
  for (steps = 0; steps < 16 && in.n > 0; steps++) {
    th_tensor before = t;
    int rc = TH_OK, perm[TH_MAXDIM];
    uint8_t op = take8(&in) % 11;
    int dim = (int)(take8(&in) % 8) - 1;
    const char *name = "?";
    switch (op) {
      case 0: {
        int64_t first = take_int(&in), len = take_int(&in);
        name = "narrow";
        rc = th_tensor_narrow(&r, &t, dim, first, len);
        break;
      }
      case 1: name = "select"; rc = th_tensor_select(&r, &t, dim, take_int(&in)); break;
      case 2: name = "transpose"; rc = th_tensor_transpose(&r, &t, dim, (int)(take8(&in) % 8) - 1); break;
      case 3:
        name = "permute";
        for (d = 0; d < t.ndim; d++) perm[d] = (int)(take8(&in) % (t.ndim + 1));
        rc = th_tensor_permute(&r, &t, perm);
        break;
      case 4: {
        int64_t usize = take_int(&in), step = take_int(&in);
        name = "unfold";
        rc = th_tensor_unfold(&r, &t, dim, usize, step);
        break;
      }
      case 5: name = "squeeze"; rc = th_tensor_squeeze(&r, &t); break;
      case 6: name = "unsqueeze"; rc = th_tensor_unsqueeze(&r, &t, dim); break;
      case 7:
        name = "expand";
        nd = take8(&in) % 7;
        for (d = 0; d < nd; d++) sz[d] = take_int(&in);
        rc = th_tensor_expand(&r, &t, nd, sz);
        break;
      case 8:
        name = "view";
        nd = take8(&in) % 7;
        for (d = 0; d < nd; d++) sz[d] = take_int(&in);
        rc = th_tensor_view(&r, &t, nd, sz);
        break;
      case 9:
        /* resize in place: it may grow the storage, within limits */
        name = "resize";
        nd = take8(&in) % 5;
        for (d = 0; d < nd; d++) sz[d] = take_int(&in) & 0xff;
        th_tensor_set_tensor(&r, &t);
        rc = th_tensor_resize(&r, nd, sz);
        break;
      default: {
        int64_t off = take_int(&in);
        name = "set";
        nd = take8(&in) % 5;
        for (d = 0; d < nd; d++) {
          sz[d] = take_int(&in);
          st[d] = take_int(&in);
        }
        th_tensor_set_tensor(&r, &t);
        rc = th_tensor_set(&r, t.storage, off, nd, sz, st);
        break;
      }
    }
    if (!same_view(&t, &before)) {
      fprintf(stderr, "%s changed its source\n", name);
      abort();
    }
    trace(name, rc, rc == TH_OK ? &r : &t);
    if (rc == TH_OK) {
      check_inside(&r, name);
      touch(&r);
      th_tensor_set_tensor(&t, &r);
    } else if (th_error_msg()[0] == '\0') {
      fprintf(stderr, "%s failed without a message\n", name);
      abort();
    }
  }
  th_tensor_clear(&r);
  th_tensor_clear(&t);
  return 0;
}
