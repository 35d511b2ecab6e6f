/* generic/math_reduce.c: reductions of 'real' tensors (included by
   th_math_reduce.c). Everything is built on one row fold: 'fold_row'
   walks n elements s apart and accumulates in 'accreal'. Whole-tensor
   results fold fixed blocks (in parallel) and combine the partial results
   in block order; results along a dimension fold each row on its own. The
   block size depends only on the element count, so results do not depend
   on the number of threads. */
#include "../th_math_real.h"

#if M_FLOATING
#define ACC_ABS(x) fabs((accreal)(x))
#endif

/* the fold of one row; 'param' is the mean (F_SQDEV) or p (F_ABSPOW) */
static accreal TH_R(fold_row)(const real *p, int64_t n, int64_t s, fold_op f, double param) {
  accreal acc = 0;
  int64_t i = 0;
/* four accumulators, by position in the row (i % 4; the last n % 4 go to
   the first): a fixed association whatever the stride, so a row sums to the
   same bits in any layout, and the adds no longer wait on each other.
   Integer rows accumulate in uint64_t lanes (modular, so no signed
   overflow) rather than through W_ADD's casts: GCC 12.2 at -O3 with
   AVX-512 vectorizes the cast form of this loop wrongly (a LongTensor of
   8 ones summed to 4); spec/tensor_math_reduce_spec.lua sums every length. */
/* Rows shorter than this are folded in one accumulator, in order: the
   bits of Torch7's serial loop (it splits only tensors of 100000 elements
   and more among OpenMP threads), which tests compare with a tolerance of
   0 (torchnet's ConfusionMeter: a normalized matrix sums to exactly 4 in
   order, 3.9999999999999996 in four lanes). A row this short costs
   microseconds either way */
#define FOLD_SERIAL_MAX 65536
#if M_FLOATING
#define LANE accreal
#define LANE_OUT(v) (v)
#else
#define LANE uint64_t
#define LANE_OUT(v) ((accreal)(v))
#endif
#define FOLD_SUM(EXPR)                                                        \
  do {                                                                        \
    LANE a0 = 0, a1 = 0, a2 = 0, a3 = 0;                                      \
    if (n < FOLD_SERIAL_MAX) {                                                \
      for (; i < n; i++) { const real x = p[i * s]; a0 += (LANE)(EXPR); }     \
      acc = LANE_OUT(a0);                                                     \
      break;                                                                  \
    }                                                                         \
    if (s == 1) {                                                             \
      for (; i + 4 <= n; i += 4) {                                            \
        { const real x = p[i]; a0 += (LANE)(EXPR); }                          \
        { const real x = p[i + 1]; a1 += (LANE)(EXPR); }                      \
        { const real x = p[i + 2]; a2 += (LANE)(EXPR); }                      \
        { const real x = p[i + 3]; a3 += (LANE)(EXPR); }                      \
      }                                                                       \
    } else {                                                                  \
      for (; i + 4 <= n; i += 4) {                                            \
        { const real x = p[i * s]; a0 += (LANE)(EXPR); }                      \
        { const real x = p[(i + 1) * s]; a1 += (LANE)(EXPR); }                \
        { const real x = p[(i + 2) * s]; a2 += (LANE)(EXPR); }                \
        { const real x = p[(i + 3) * s]; a3 += (LANE)(EXPR); }                \
      }                                                                       \
    }                                                                         \
    for (; i < n; i++) { const real x = p[i * s]; a0 += (LANE)(EXPR); }       \
    acc = LANE_OUT((a0 + a1) + (a2 + a3));                                    \
  } while (0)
  switch (f) {
    case F_SUM: FOLD_SUM((accreal)x); break;
    case F_PROD:
      acc = 1;
      for (; i < n; i++) acc = W_MUL(acc, (accreal)p[i * s]);
      break;
    case F_NONZERO: FOLD_SUM((accreal)(x != 0)); break;
#if M_FLOATING
    case F_SQDEV: {
      const accreal m = param;
      FOLD_SUM(((accreal)x - m) * ((accreal)x - m));
      break;
    }
    case F_ABSPOW:
      if (param == 1) FOLD_SUM(ACC_ABS(x));
      else if (param == 2) FOLD_SUM((accreal)x * (accreal)x);
      else FOLD_SUM(pow(ACC_ABS(x), param));
      break;
    case F_ABSMAX:
      for (; i < n; i++) {
        const accreal a = ACC_ABS(p[i * s]);
        if (a > acc || isnan(a)) acc = a;
        if (isnan(acc)) break;
      }
      break;
#endif
    default: break;
  }
#undef FOLD_SUM
#undef LANE
#undef LANE_OUT
  return acc;
}

/* the fold of two rows of equal length */
static accreal TH_R(fold2_row)(const real *a, int64_t sa, const real *b, int64_t sb, int64_t n,
                               fold_op f, double param) {
  accreal acc = 0;
  int64_t i;
  switch (f) {
    case F_DOT:
      for (i = 0; i < n; i++) acc = W_ADD(acc, W_MUL((accreal)a[i * sa], (accreal)b[i * sb]));
      break;
#if M_FLOATING
    case F_NONZERO:
      for (i = 0; i < n; i++) acc += a[i * sa] != b[i * sb];
      break;
    case F_ABSPOW:
      for (i = 0; i < n; i++) {
        const accreal d = ACC_ABS((accreal)a[i * sa] - (accreal)b[i * sb]);
        acc += param == 1 ? d : param == 2 ? d * d : pow(d, param);
      }
      break;
    case F_ABSMAX:
      for (i = 0; i < n; i++) {
        const accreal d = ACC_ABS((accreal)a[i * sa] - (accreal)b[i * sb]);
        if (d > acc || isnan(d)) acc = d;
        if (isnan(acc)) break;
      }
      break;
#endif
    default: break;
  }
  return acc;
}

static accreal TH_R(combine)(accreal acc, accreal x, fold_op f) {
  if (f == F_PROD) return W_MUL(acc, x);
#if M_FLOATING
  if (f == F_ABSMAX) return (x > acc || isnan(x)) && !isnan(acc) ? x : acc;
#endif
  return W_ADD(acc, x);
}

/* a whole-tensor fold's blocks, for th_pool: part[k] = the fold of block k */
typedef struct TH_R(fold_job) {
  const real *pa, *pb;
  int64_t n, bs;
  fold_op f;
  double param;
  accreal *part;
} TH_R(fold_job);

static void TH_R(fold_block)(void *arg, int64_t k) {
  const TH_R(fold_job) *j = arg;
  const int64_t lo = k * j->bs, len = j->n - lo < j->bs ? j->n - lo : j->bs;
  j->part[k] = j->pb ? TH_R(fold2_row)(j->pa + lo, 1, j->pb + lo, 1, len, j->f, j->param)
                     : TH_R(fold_row)(j->pa + lo, len, 1, j->f, j->param);
}

/* the fold of every element of a (and b, for two-tensor folds); both are
   contiguous (th_math_reduce.c copies strided inputs first, so a tensor
   folds to the same bits in every layout) */
static accreal TH_R(fold_all)(const th_tensor *a, const th_tensor *b, fold_op f, double param) {
  accreal acc = f == F_PROD ? 1 : 0;
  accreal part[FOLD_MAX_BLOCKS];
  TH_R(fold_job) j;
  int64_t k, nb;
  j.n = th_tensor_numel(a);
  if (j.n == 0) return acc;
  j.pa = (const real *)th_tensor_data(a);
  j.pb = b ? (const real *)th_tensor_data(b) : NULL;
  j.bs = fold_block_size(j.n), j.f = f, j.param = param, j.part = part;
  nb = (j.n + j.bs - 1) / j.bs;
  th_pool_for(th_math_threads(), nb, TH_R(fold_block), &j);
  for (k = 0; k < nb; k++) acc = TH_R(combine)(acc, part[k], f);
  return acc;
}

/* --- one value per tensor or per row ------------------------------------- */

#if M_FLOATING
/* var (or std) from the row's sum: two passes, the second about the mean */
static double TH_R(var_of)(double sum, double sqdev, int64_t n, int biased, int root) {
  const int64_t d = biased ? n : n - 1;
  double v;
  (void)sum;
  if (d <= 0) return NAN;
  v = sqdev / (double)d;
  return root ? sqrt(v) : v;
}

static double TH_R(norm_of)(double acc, double p) {
  if (p == 0 || p == 1 || isinf(p)) return acc;
  if (p == 2) return sqrt(acc);
  return pow(acc, 1.0 / p);
}

static fold_op TH_R(norm_fold)(double p) {
  if (p == 0) return F_NONZERO;
  if (isinf(p)) return F_ABSMAX;
  return F_ABSPOW;
}
#endif

/* op of one row, as 'real' */
static real TH_R(row_result)(const real *p, int64_t n, int64_t s, th_reduce_op op, double param) {
  switch (op) {
    case TH_RED_SUM: return (real)TH_R(fold_row)(p, n, s, F_SUM, 0);
    case TH_RED_PROD: return (real)TH_R(fold_row)(p, n, s, F_PROD, 0);
#if M_FLOATING
    case TH_RED_MEAN: return n ? (real)(TH_R(fold_row)(p, n, s, F_SUM, 0) / (double)n) : (real)NAN;
    case TH_RED_VAR:
    case TH_RED_STD: {
      const double sum = TH_R(fold_row)(p, n, s, F_SUM, 0);
      const double sq = n ? TH_R(fold_row)(p, n, s, F_SQDEV, sum / (double)n) : 0;
      return (real)TH_R(var_of)(sum, sq, n, param != 0, op == TH_RED_STD);
    }
    case TH_RED_NORM:
      return (real)TH_R(norm_of)(TH_R(fold_row)(p, n, s, TH_R(norm_fold)(param), param), param);
#endif
    default: return 0;
  }
}

static int TH_R(reduce_all)(const th_tensor *t, th_reduce_op op, double param, th_number *out) {
#if M_FLOATING
  const int64_t n = th_tensor_numel(t);
#endif
  accreal acc;
  out->i = 0;
  switch (op) {
    case TH_RED_SUM:
    case TH_RED_PROD:
      acc = TH_R(fold_all)(t, NULL, op == TH_RED_SUM ? F_SUM : F_PROD, 0);
#if !M_FLOATING
      out->i = (int64_t)acc;
#endif
      out->f = (double)acc;
      return TH_OK;
#if M_FLOATING
    case TH_RED_MEAN:
      out->f = n ? TH_R(fold_all)(t, NULL, F_SUM, 0) / (double)n : NAN;
      return TH_OK;
    case TH_RED_VAR:
    case TH_RED_STD: {
      const double sum = TH_R(fold_all)(t, NULL, F_SUM, 0);
      const double sq = n ? TH_R(fold_all)(t, NULL, F_SQDEV, sum / (double)n) : 0;
      out->f = TH_R(var_of)(sum, sq, n, param != 0, op == TH_RED_STD);
      return TH_OK;
    }
    case TH_RED_NORM:
      out->f = TH_R(norm_of)(TH_R(fold_all)(t, NULL, TH_R(norm_fold)(param), param), param);
      return TH_OK;
#endif
    default: return th_error_set("reduction %d not available for %sTensor", (int)op, th_dtype_name[TH_DTYPE]);
  }
}

/* rows along a dimension of contiguous operands, for th_pool: the row
   folds r[k] (k < outer * inner), or the column sums of chunk k (k < outer
   * nchunks) */
typedef struct TH_R(rows_job) {
  const real *tp;
  real *rp;
  int64_t n, inner, nchunks;
  th_reduce_op op;
  double param;
} TH_R(rows_job);

static void TH_R(row_results)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(rows_job) *j = arg;
  const int64_t n = j->n, inner = j->inner;
  int64_t k;
  for (k = lo; k < hi; k++)
    j->rp[k] = TH_R(row_result)(j->tp + (k / inner) * n * inner + k % inner, n, inner, j->op,
                                j->param);
}

/* column sums: add whole contiguous rows into blocks of accumulators, with
   the lanes of fold_row (so the same bits as a row fold) */
static void TH_R(column_sums)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(rows_job) *j = arg;
  const int64_t n = j->n, inner = j->inner, nchunks = j->nchunks;
  const int64_t nmain = n < FOLD_SERIAL_MAX ? 0 : n - n % 4;  /* fold_row's lanes */
  int64_t k;
  for (k = lo; k < hi; k++) {
    const int64_t o = k / nchunks, j0 = (k % nchunks) * SUM_CHUNK;
    const int64_t len = inner - j0 < SUM_CHUNK ? inner - j0 : SUM_CHUNK;
    const real *base = j->tp + o * n * inner + j0;
    real *rp = j->rp;
    accreal acc[4][SUM_CHUNK];
    int64_t i, c;
    for (c = 0; c < len; c++) acc[0][c] = acc[1][c] = acc[2][c] = acc[3][c] = 0;
    for (i = 0; i < n; i++) {
      accreal *lane = acc[i < nmain ? i % 4 : 0];
      for (c = 0; c < len; c++) lane[c] = W_ADD(lane[c], (accreal)base[i * inner + c]);
    }
    for (c = 0; c < len; c++) {
      const accreal sum = W_ADD(W_ADD(acc[0][c], acc[1][c]), W_ADD(acc[2][c], acc[3][c]));
#if M_FLOATING
      if (j->op == TH_RED_MEAN) {
        rp[o * inner + j0 + c] = (real)(sum / (double)n);
        continue;
      }
#endif
      rp[o * inner + j0 + c] = (real)sum;
    }
  }
}

/* r (t's shape, size 1 at dim, already sized) = op of each row along dim */
static int TH_R(reduce_dim)(th_tensor *r, const th_tensor *t, th_reduce_op op, int dim,
                            double param) {
  const int64_t n = t->size[dim];
  if (th_tensor_is_contiguous(t) && th_tensor_is_contiguous(r)) {
    TH_R(rows_job) j;
    int64_t outer = 1, inner = 1;
    int d, nt;
    for (d = 0; d < dim; d++) outer *= t->size[d];
    for (d = dim + 1; d < t->ndim; d++) inner *= t->size[d];
    j.tp = (const real *)th_tensor_data(t), j.rp = (real *)th_tensor_data(r);
    j.n = n, j.inner = inner, j.op = op, j.param = param;
    nt = outer * inner * n >= REDUCE_PAR_MIN ? th_math_threads() : 1;
    if (inner > 1 && (op == TH_RED_SUM || op == TH_RED_MEAN)) {
      j.nchunks = (inner + SUM_CHUNK - 1) / SUM_CHUNK;
      th_pool_ranges(nt, outer * j.nchunks, TH_R(column_sums), &j);
      return TH_OK;
    }
    th_pool_ranges(nt, outer * inner, TH_R(row_results), &j);
    return TH_OK;
  }
  {
    const th_tensor tv = th_math_rowview(t, dim);
    const int64_t s = t->stride[dim];
    TH_APPLY2(real, rp, r, const real, tp, &tv, *rp = TH_R(row_result)(tp, n, s, op, param););
  }
  return TH_OK;
}

/* --- max and min ----------------------------------------------------------- */

/* does x replace the best so far? The first extremum wins; so does NaN,
   for good (Torch7's rule) */
static inline int TH_R(better)(real x, real best, int is_max) {
  if (M_ISNAN(best)) return 0;
  if (M_ISNAN(x)) return 1;
  return is_max ? x > best : x < best;
}

/* extremum of a row of n >= 1 elements: value and 0-based position */
static void TH_R(extreme_row)(const real *p, int64_t n, int64_t s, int is_max, real *val,
                              int64_t *idx) {
  real best = p[0];
  int64_t bi = 0, i;
  for (i = 1; i < n && !M_ISNAN(best); i++) {
    const real x = p[i * s];
    if (TH_R(better)(x, best, is_max)) best = x, bi = i;
  }
  *val = best;
  *idx = bi;
}

/* the extrema of fixed blocks (maxmin_all) or of rows (maxmin_dim), for th_pool */
typedef struct TH_R(extreme_job) {
  const real *p;
  int64_t n, bs, inner;
  int is_max;
  real *part;
  int64_t *ip;
} TH_R(extreme_job);

static void TH_R(extreme_block)(void *arg, int64_t k) {
  const TH_R(extreme_job) *j = arg;
  const int64_t lo = k * j->bs, len = j->n - lo < j->bs ? j->n - lo : j->bs;
  int64_t where;
  TH_R(extreme_row)(j->p + lo, len, 1, j->is_max, &j->part[k], &where);
}

static void TH_R(extreme_rows)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(extreme_job) *j = arg;
  const int64_t n = j->n, inner = j->inner;
  int64_t k;
  for (k = lo; k < hi; k++) {
    int64_t where;
    TH_R(extreme_row)(j->p + (k / inner) * n * inner + k % inner, n, inner, j->is_max,
                      j->part + k, &where);
    j->ip[k] = where + TH_INDEX_BASE;
  }
}

static int TH_R(maxmin_all)(const th_tensor *t, int is_max, th_number *out) {
  real best = 0;
  int first = 1;
  if (th_tensor_is_contiguous(t)) {
    TH_R(extreme_job) j;
    real part[FOLD_MAX_BLOCKS];
    int64_t k, nb;
    j.p = (const real *)th_tensor_data(t), j.n = th_tensor_numel(t), j.is_max = is_max;
    j.bs = fold_block_size(j.n), j.part = part;
    nb = (j.n + j.bs - 1) / j.bs;
    th_pool_for(th_math_threads(), nb, TH_R(extreme_block), &j);
    best = part[0];
    for (k = 1; k < nb; k++)
      if (TH_R(better)(part[k], best, is_max)) best = part[k];
  } else {
    TH_APPLY1(const real, p, t, if (first || TH_R(better)(*p, best, is_max)) { best = *p; first = 0; });
  }
  out->f = (double)best;
#if M_FLOATING
  out->i = 0;
#else
  out->i = (int64_t)best;
#endif
  return TH_OK;
}

/* values (real) and 1-based indices (int64) along dim; both already sized */
static int TH_R(maxmin_dim)(th_tensor *values, th_tensor *indices, const th_tensor *t, int dim,
                            int is_max) {
  const int64_t n = t->size[dim], s = t->stride[dim];
  const th_tensor tv = th_math_rowview(t, dim);
  if (th_tensor_is_contiguous(t) && th_tensor_is_contiguous(values) &&
      th_tensor_is_contiguous(indices)) {
    TH_R(extreme_job) j;
    int64_t outer = 1, inner = 1;
    int d;
    for (d = 0; d < dim; d++) outer *= t->size[d];
    for (d = dim + 1; d < t->ndim; d++) inner *= t->size[d];
    j.p = (const real *)th_tensor_data(t), j.part = (real *)th_tensor_data(values);
    j.ip = (int64_t *)th_tensor_data(indices), j.n = n, j.inner = inner, j.is_max = is_max;
    th_pool_ranges(outer * inner * n >= REDUCE_PAR_MIN ? th_math_threads() : 1, outer * inner,
                   TH_R(extreme_rows), &j);
    return TH_OK;
  }
  TH_APPLY3(real, vp, values, int64_t, ip, indices, const real, tp, &tv, {
    int64_t where;
    TH_R(extreme_row)(tp, n, s, is_max, vp, &where);
    *ip = where + TH_INDEX_BASE;
  });
  return TH_OK;
}

/* --- running sums and products ------------------------------------------ */

static int TH_R(cumulate)(th_tensor *r, const th_tensor *t, int dim, int prod) {
  const int64_t n = t->size[dim], ts = t->stride[dim], rs = r->stride[dim];
  const th_tensor rv = th_math_rowview(r, dim), tv = th_math_rowview(t, dim);
  TH_APPLY2(real, rp, &rv, const real, tp, &tv, {
    accreal acc = prod ? 1 : 0;
    int64_t i;
    for (i = 0; i < n; i++) {
      acc = prod ? W_MUL(acc, (accreal)tp[i * ts]) : W_ADD(acc, (accreal)tp[i * ts]);
      rp[i * rs] = (real)acc;
    }
  });
  return TH_OK;
}

/* --- two tensors --------------------------------------------------------- */

static int TH_R(dot)(const th_tensor *a, const th_tensor *b, th_number *out) {
  const accreal acc = TH_R(fold_all)(a, b, F_DOT, 0);
  out->f = (double)acc;
#if M_FLOATING
  out->i = 0;
#else
  out->i = (int64_t)acc;
#endif
  return TH_OK;
}

#if M_FLOATING
static int TH_R(dist)(const th_tensor *a, const th_tensor *b, double p, double *out) {
  *out = TH_R(norm_of)(TH_R(fold_all)(a, b, TH_R(norm_fold)(p), p), p);
  return TH_OK;
}
#endif

#undef ACC_ABS
