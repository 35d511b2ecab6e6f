/*
** th_math_reduce.c: reductions: sum, prod, mean, var, std, norm (of the
** whole tensor or along a dimension), max and min (with 1-based indices
** along a dimension), cumsum and cumprod, dist and dot.
** Floating types accumulate in double. Whole-tensor folds split the
** elements into blocks whose size depends only on the element count, fold
** them in parallel and combine them in order: the same input gives the
** same bits whatever the thread count. Along a dimension every row is
** folded by one thread, with four accumulators chosen by position in the
** row. Strided inputs of whole-tensor folds are copied contiguous first,
** so a result never depends on the layout either (the memory optimizer
** rebinds tensors onto other views and expects identical numbers).
** Results along a dimension keep it with size 1, as Torch7 does.
*/
#include <math.h>
#include <string.h>
#include "th_index.h"
#include "th_math_internal.h"
#include "th_pool.h"

/* what a fold accumulates */
typedef enum {
  F_SUM,      /* x */
  F_PROD,     /* product of x */
  F_SQDEV,    /* (x - mean)^2 */
  F_ABSPOW,   /* |x|^p, or |a - b|^p */
  F_NONZERO,  /* x != 0, or a != b */
  F_ABSMAX,   /* max |x|, or max |a - b| */
  F_DOT       /* a * b */
} fold_op;

/* at most this many partial results per whole-tensor fold */
#define FOLD_MAX_BLOCKS 1024
/* column sums along an outer dimension use this many accumulators at once */
#define SUM_CHUNK 256
/* results along a dimension split their rows over th_pool from this many elements */
#define REDUCE_PAR_MIN 32768

static int64_t fold_block_size(int64_t n) {
  int64_t bs = (n + FOLD_MAX_BLOCKS - 1) / FOLD_MAX_BLOCKS;
  return bs < 65536 ? 65536 : bs;
}

#define TH_GENERIC_FILE "generic/math_reduce.c"
#include "th_generic_all.h"

static int check_dim(const th_tensor *t, int dim) {
  char b[128];
  if (t->ndim == 0) return th_error_set("tensor is empty (no dimension %d)", dim + 1);
  if (dim < 0 || dim >= t->ndim)
    return th_error_set("dimension %d out of range for a %dD tensor of size %s", dim + 1, t->ndim,
                        th_tensor_sizestr(t, b, sizeof b));
  return TH_OK;
}

static int check_result(const th_tensor *r, th_dtype dt, const char *what) {
  if (r->dtype == dt) return TH_OK;
  return th_error_set("%s must be a %sTensor, got a %sTensor", what, th_dtype_name[dt],
                      th_dtype_name[r->dtype]);
}

static int check_op(th_reduce_op op, const th_tensor *t) {
  if ((int)op < 0 || op >= TH_NREDUCE) return th_error_set("unknown reduction %d", (int)op);
  if (op >= TH_RED_MEAN) return th_math_need_floating(t);
  return TH_OK;
}

/* whole-tensor folds read contiguous memory: a strided tensor is copied
   first (a view is taken when t already is contiguous); release with
   th_tensor_clear */
static int flat_input(th_tensor *tmp, const th_tensor *t) {
  th_tensor_init(tmp, t->dtype);
  return th_tensor_contiguous(tmp, t);
}

int th_tensor_reduce_all(const th_tensor *t, th_reduce_op op, double p, th_number *out) {
  if (th_dtype_need_kernels(t->dtype) != TH_OK) return TH_ERR;
  th_tensor c;
  int rc;
  if (check_op(op, t) != TH_OK) return TH_ERR;
  rc = flat_input(&c, t);
  if (rc == TH_OK) rc = TH_DISPATCH_ALL(t->dtype, reduce_all, (&c, op, p, out));
  th_tensor_clear(&c);
  return rc;
}

/* the result of a reduction over zero elements */
static double empty_value(th_reduce_op op) {
  switch (op) {
    case TH_RED_SUM: case TH_RED_NORM: return 0;
    case TH_RED_PROD: return 1;
    default: return NAN;
  }
}

int th_tensor_reduce_dim(th_tensor *r, const th_tensor *t, th_reduce_op op, int dim, double p) {
  if (th_dtype_need_kernels(t->dtype) != TH_OK) return TH_ERR;
  int64_t size[TH_MAXDIM];
  const th_tensor *in[1];
  th_math_out o;
  int rc;
  if (check_op(op, t) != TH_OK || check_dim(t, dim) != TH_OK ||
      check_result(r, t->dtype, "result") != TH_OK)
    return TH_ERR;
  memcpy(size, t->size, sizeof size);
  size[dim] = 1;
  in[0] = t;
  /* a row's result may land on elements of rows not read yet: no sharing */
  rc = th_math_out_begin(&o, r, t->ndim, size, in, 1, 0, 0);
  if (rc == TH_OK) {
    if (t->size[dim] == 0) rc = th_tensor_fill(o.out, empty_value(op));
    else rc = TH_DISPATCH_ALL(t->dtype, reduce_dim, (o.out, t, op, dim, p));
  }
  return th_math_out_end(&o, rc);
}

int th_tensor_maxmin_all(const th_tensor *t, int is_max, th_number *out) {
  if (th_dtype_need_kernels(t->dtype) != TH_OK) return TH_ERR;
  if (th_tensor_numel(t) == 0) return th_error_set("tensor is empty");
  return TH_DISPATCH_ALL(t->dtype, maxmin_all, (t, is_max, out));
}

int th_tensor_maxmin_dim(th_tensor *values, th_tensor *indices, const th_tensor *t, int dim,
                         int is_max) {
  if (th_dtype_need_kernels(t->dtype) != TH_OK) return TH_ERR;
  int64_t size[TH_MAXDIM];
  const th_tensor *in[2];
  th_math_out ov, oi;
  int rc;
  if (check_dim(t, dim) != TH_OK || check_result(values, t->dtype, "values") != TH_OK ||
      check_result(indices, TH_LONG, "indices") != TH_OK)
    return TH_ERR;
  if (t->size[dim] == 0) return th_error_set("dimension %d is empty (size 0)", dim + 1);
  memcpy(size, t->size, sizeof size);
  size[dim] = 1;
  in[0] = t;
  in[1] = values;
  rc = th_math_out_begin(&ov, values, t->ndim, size, in, 1, 0, 0);
  if (rc != TH_OK) return th_math_out_end(&ov, rc);
  rc = th_math_out_begin(&oi, indices, t->ndim, size, in, 2, 0, 0);
  if (rc == TH_OK) rc = TH_DISPATCH_ALL(t->dtype, maxmin_dim, (ov.out, oi.out, t, dim, is_max));
  rc = th_math_out_end(&oi, rc);
  return th_math_out_end(&ov, rc);
}

static int cumulate(th_tensor *r, const th_tensor *t, int dim, int prod) {
  if (th_dtype_need_kernels(t->dtype) != TH_OK) return TH_ERR;
  const th_tensor *in[1];
  th_math_out o;
  int rc;
  if (check_dim(t, dim) != TH_OK || check_result(r, t->dtype, "result") != TH_OK) return TH_ERR;
  in[0] = t;
  rc = th_math_out_begin(&o, r, t->ndim, t->size, in, 1, 1, 0);
  if (rc == TH_OK) rc = TH_DISPATCH_ALL(t->dtype, cumulate, (o.out, t, dim, prod));
  return th_math_out_end(&o, rc);
}

int th_tensor_cumsum(th_tensor *r, const th_tensor *t, int dim) { return cumulate(r, t, dim, 0); }
int th_tensor_cumprod(th_tensor *r, const th_tensor *t, int dim) { return cumulate(r, t, dim, 1); }

int th_tensor_dot(const th_tensor *a, const th_tensor *b, th_number *out) {
  if (th_dtype_need_kernels(a->dtype) != TH_OK) return TH_ERR;
  th_tensor ca, cb;
  int rc;
  if (th_math_same_type(a, b, "the second tensor") != TH_OK || th_math_same_numel(a, b) != TH_OK)
    return TH_ERR;
  rc = flat_input(&ca, a);
  th_tensor_init(&cb, b->dtype);
  if (rc == TH_OK) rc = flat_input(&cb, b);
  if (rc == TH_OK) rc = TH_DISPATCH_ALL(a->dtype, dot, (&ca, &cb, out));
  th_tensor_clear(&ca);
  th_tensor_clear(&cb);
  return rc;
}

int th_tensor_dist(const th_tensor *a, const th_tensor *b, double p, double *out) {
  th_tensor ca, cb;
  int rc;
  if (th_math_need_floating(a) != TH_OK || th_math_same_type(a, b, "the second tensor") != TH_OK ||
      th_math_same_numel(a, b) != TH_OK)
    return TH_ERR;
  rc = flat_input(&ca, a);
  th_tensor_init(&cb, b->dtype);
  if (rc == TH_OK) rc = flat_input(&cb, b);
  if (rc == TH_OK) rc = TH_DISPATCH_FLOATING(a->dtype, dist, (&ca, &cb, p, out), "dist");
  th_tensor_clear(&ca);
  th_tensor_clear(&cb);
  return rc;
}
