/*
** th_math.h: tensor math, Torch7's TensorMath in C.
** Four families, one file pair each:
**   th_math_pointwise.c  unary maps, tensor-scalar and tensor-tensor ops,
**                        addcmul/addcdiv, clamp, fills (range, linspace, eye)
**   th_math_compare.c    eq ne lt le gt ge -> 0/1 tensors; all, any
**   th_math_reduce.c     sum prod mean max min std var norm dist dot, cumsum/cumprod
**   th_math_blas.c       addmm, addmv, addr, baddbmm, addbmm (OpenBLAS)
** Conventions, as in the rest of the core:
** - Results come first and are resized (keeping their storage) to the shape
**   of the first input. Inputs pair up element by element in row-major order
**   and only need equal element counts (Torch7 allows a 2x3 += a 6).
** - r may be an input (in place). A result that shares a storage with an
**   input in any other way is computed in a temporary and copied in, so
**   overlapping views are well defined.
** - Messages never name the operation: the binding prefixes it
**   ("exp: not available for LongTensor (expects a Float or Double tensor)").
** - Floating sums accumulate in double ('accreal'); integer arithmetic wraps
**   (two's complement) instead of overflowing; integer division by zero is
**   an error, found before anything is written.
** - Parallel loops split work into fixed blocks independent of the thread
**   count, so every result is the same whatever torch.setnumthreads says.
** - Indices returned in LongTensors (max, min) are 1-based, like those of
**   th_index.h (TH_INDEX_BASE).
*/
#ifndef TH_MATH_H
#define TH_MATH_H

#include "th_tensor.h"

/* --- element-wise maps: r = f(a) ----------------------------------------- */

/* the first TH_UN_NINTEGER ops also exist for integer types */
typedef enum {
  TH_UN_NEG = 0, TH_UN_ABS, TH_UN_SIGN,
  TH_UN_SQRT, TH_UN_RSQRT, TH_UN_EXP, TH_UN_LOG, TH_UN_LOG1P, TH_UN_TANH, TH_UN_SIGMOID,
  TH_UN_FLOOR, TH_UN_CEIL, TH_UN_ROUND, TH_UN_TRUNC, TH_UN_FRAC, TH_UN_CINV,
  TH_UN_SIN, TH_UN_COS, TH_UN_TAN, TH_UN_ASIN, TH_UN_ACOS, TH_UN_ATAN, TH_UN_SINH, TH_UN_COSH,
  TH_NUNARY
} th_unary_op;
#define TH_UN_NINTEGER 3
extern const char *const th_unary_name[TH_NUNARY];   /* "neg", "abs", ... */

int th_tensor_unary(th_tensor *r, const th_tensor *a, th_unary_op op);

/* --- tensor and scalar: r = a op value ----------------------------------- */

typedef enum {
  TH_SC_ADD = 0, TH_SC_MUL, TH_SC_DIV,
  TH_SC_FMOD,       /* C fmod: the sign of a */
  TH_SC_REMAINDER,  /* the sign of value (Python's %) */
  TH_SC_MAX, TH_SC_MIN,
  TH_SC_POW,        /* a ^ value, floating only */
  TH_SC_TPOW,       /* value ^ a, floating only */
  TH_SC_BITAND, TH_SC_BITOR, TH_SC_BITXOR,  /* integer types only */
  TH_SC_LSHIFT, TH_SC_RSHIFT,  /* integers: logical shifts of the bits (0 past
                                  the width); floating: a * 2^value, a / 2^value */
  TH_NSCALAR
} th_scalar_op;
extern const char *const th_scalar_name[TH_NSCALAR];

int th_tensor_scalar(th_tensor *r, const th_tensor *a, th_scalar_op op, double value);
/* r = min(max(a, lo), hi) */
int th_tensor_clamp(th_tensor *r, const th_tensor *a, double lo, double hi);

/* --- two tensors: r = a op b (value: see each op) ------------------------ */

typedef enum {
  TH_BI_ADD = 0,    /* a + value * b */
  TH_BI_MUL, TH_BI_DIV, TH_BI_FMOD, TH_BI_REMAINDER, TH_BI_MAX, TH_BI_MIN,
  TH_BI_POW,        /* floating only */
  TH_BI_LERP,       /* a + value * (b - a), floating only */
  TH_BI_BITAND, TH_BI_BITOR, TH_BI_BITXOR,  /* integer types only */
  TH_BI_LSHIFT, TH_BI_RSHIFT,  /* as TH_SC_LSHIFT, TH_SC_RSHIFT, per element */
  TH_NBINARY
} th_binary_op;
extern const char *const th_binary_name[TH_NBINARY];

int th_tensor_binary(th_tensor *r, const th_tensor *a, th_binary_op op, const th_tensor *b,
                     double value);
/* r = a + value * b * c  /  r = a + value * b / c */
int th_tensor_addcmul(th_tensor *r, const th_tensor *a, double value, const th_tensor *b,
                      const th_tensor *c);
int th_tensor_addcdiv(th_tensor *r, const th_tensor *a, double value, const th_tensor *b,
                      const th_tensor *c);

/* --- fills ---------------------------------------------------------------- */

/* r = 1D a, a+step, ... up to b inclusive: floor((b - a) / step) + 1 values */
int th_tensor_range(th_tensor *r, double a, double b, double step);
/* r = 1D n points from a to b inclusive (n >= 2, or n == 1 when a == b) */
int th_tensor_linspace(th_tensor *r, double a, double b, int64_t n);
/* r = n x m identity */
int th_tensor_eye(th_tensor *r, int64_t n, int64_t m);

/* --- comparisons: r = (a cmp b), 1 or 0 ----------------------------------- */

typedef enum { TH_CMP_EQ = 0, TH_CMP_NE, TH_CMP_LT, TH_CMP_LE, TH_CMP_GT, TH_CMP_GE, TH_NCMP } th_cmp_op;
extern const char *const th_cmp_name[TH_NCMP];

/* r is a ByteTensor or of a's type; b (if not NULL) of a's type, else 'value' */
int th_tensor_compare(th_tensor *r, const th_tensor *a, th_cmp_op op, const th_tensor *b,
                      double value);
/* ByteTensors only: every / some element nonzero (empty: all 1, any 0) */
int th_tensor_all(const th_tensor *t, int *out);
int th_tensor_any(const th_tensor *t, int *out);

/* --- reductions ----------------------------------------------------------- */

/* a whole-tensor result: integer types fill 'i' (exact), every type 'f' */
typedef struct th_number {
  double f;
  int64_t i;
} th_number;

typedef enum {
  TH_RED_SUM = 0, TH_RED_PROD,
  TH_RED_MEAN,       /* floating only, as the ones below */
  TH_RED_VAR, TH_RED_STD,
  TH_RED_NORM,       /* p-norm: p = 0 counts nonzeros, p = inf is max |x| */
  TH_NREDUCE
} th_reduce_op;
extern const char *const th_reduce_name[TH_NREDUCE];

/* 'p' is the norm's p; for var/std a nonzero p divides by n instead of n - 1 */
int th_tensor_reduce_all(const th_tensor *t, th_reduce_op op, double p, th_number *out);
/* r has t's shape with size 1 at dim (Torch7 keeps the dimension) */
int th_tensor_reduce_dim(th_tensor *r, const th_tensor *t, th_reduce_op op, int dim, double p);

/* max (is_max) or min of all elements; NaN wins; an empty tensor is an error */
int th_tensor_maxmin_all(const th_tensor *t, int is_max, th_number *out);
/* values and 1-based indices (LongTensor) along dim, size 1 at dim; the
   first extremum wins, NaN wins */
int th_tensor_maxmin_dim(th_tensor *values, th_tensor *indices, const th_tensor *t, int dim,
                         int is_max);

/* the p-norm of a - b (equal element counts), floating only */
int th_tensor_dist(const th_tensor *a, const th_tensor *b, double p, double *out);

/* r = running sum / product along dim, r of t's shape */
int th_tensor_cumsum(th_tensor *r, const th_tensor *t, int dim);
int th_tensor_cumprod(th_tensor *r, const th_tensor *t, int dim);

/* sum of a[i] * b[i] over equal element counts, every type. Our own fold
   rather than BLAS: it is memory-bound anyway, and its blocks do not
   depend on the thread count, so neither does the result */
int th_tensor_dot(const th_tensor *a, const th_tensor *b, th_number *out);

/* --- BLAS: Float and Double through OpenBLAS ----------------------------- */
/* r = beta * m + alpha * (a @ b); m may be r (or NULL: r's old contents, or
   nothing when beta == 0). a: n x k, b: k x p, m: n x p */
int th_tensor_addmm(th_tensor *r, double beta, const th_tensor *m, double alpha,
                    const th_tensor *a, const th_tensor *b);
/* r = beta * v + alpha * (mat @ x); mat: n x k, x: k, v: n */
int th_tensor_addmv(th_tensor *r, double beta, const th_tensor *v, double alpha,
                    const th_tensor *mat, const th_tensor *x);
/* r = beta * m + alpha * x y^T; x: n, y: p, m: n x p */
int th_tensor_addr(th_tensor *r, double beta, const th_tensor *m, double alpha,
                   const th_tensor *x, const th_tensor *y);
/* r[i] = beta * m[i] + alpha * (a[i] @ b[i]); a: B x n x k, b: B x k x p */
int th_tensor_baddbmm(th_tensor *r, double beta, const th_tensor *m, double alpha,
                      const th_tensor *a, const th_tensor *b);
/* r = beta * m + alpha * sum_i a[i] @ b[i]; r, m: n x p */
int th_tensor_addbmm(th_tensor *r, double beta, const th_tensor *m, double alpha,
                     const th_tensor *a, const th_tensor *b);

#endif
