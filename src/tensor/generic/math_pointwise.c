/* generic/math_pointwise.c: element-wise kernels for one 'real' type
   (included by th_math_pointwise.c). Each op family is one function that
   switches on the op once, outside the loop; every case expands the same
   TH_MAP loop around its own expression, so each op gets a tight,
   vectorisable loop from one loop source. Arguments are checked by the
   caller, except integer division by zero, found here before writing. */
#include "../th_math_real.h"

#if !M_FLOATING
/* integer division and modulo; y != 0 is checked before the loop. C's
   INT64_MIN / -1 (and INT32_MIN / -1) traps, so -1 is a negation (which
   wraps: -128 / -1 is -128 in a CharTensor, as Torch7 on x86 gave) */
static inline real TH_R(idiv)(real x, real y) {
#if TH_REAL_SIGNED
  if (y == -1) return (real)W_NEG(x);
#endif
  return (real)(x / y);
}
static inline real TH_R(imod)(real x, real y) {
#if TH_REAL_SIGNED
  if (y == -1) return 0;
#endif
  return (real)(x % y);
}
/* the remainder takes the divisor's sign (Python's %) */
static inline real TH_R(irem)(real x, real y) {
  real m = TH_R(imod)(x, y);
#if TH_REAL_SIGNED
  if (m != 0 && ((m < 0) != (y < 0))) m = (real)(m + y);
#endif
  return m;
}
/* logical shifts in the unsigned type of real's width, as Torch7's
   ((ureal) x) << s; a count past the width shifts every bit out */
#if TH_REAL_SIZE == 1
#define M_UREAL uint8_t
#elif TH_REAL_SIZE == 2
#define M_UREAL uint16_t
#elif TH_REAL_SIZE == 4
#define M_UREAL uint32_t
#else
#define M_UREAL uint64_t
#endif
static inline real TH_R(shl)(real x, int64_t s) {
  return s >= TH_REAL_SIZE * 8 ? 0 : (real)(M_UREAL)((uint64_t)(M_UREAL)x << s);
}
static inline real TH_R(shr)(real x, int64_t s) {
  return s >= TH_REAL_SIZE * 8 ? 0 : (real)(M_UREAL)((M_UREAL)x >> s);
}
#undef M_UREAL
static int TH_R(has_negative)(const th_tensor *t) {
  int found = 0;
  TH_APPLY1(const real, p, t, if (*p < 0) found = 1;);
  return found;
}
static int TH_R(has_zero)(const th_tensor *t) {
  int found = 0;
  TH_APPLY1(const real, p, t, if (*p == 0) found = 1;);
  return found;
}
#else
static inline real TH_R(frem)(real x, real y) {
  real m = MF(fmod)(x, y);
  if (m != 0 && ((m < 0) != (y < 0))) m += y;
  return m;
}
#endif

/* r = f(a) */
static int TH_R(unary)(th_math_span *th_span, th_tensor *r, const th_tensor *a, th_unary_op op) {
#define U(OP, PAR, ...)                                                        \
  case OP: {                                                                   \
    const int64_t th_par_min = PAR;                                            \
    TH_MAP2(real, rp, r, const real, ap, a, { const real x = *ap; *rp = (real)(__VA_ARGS__); }); \
    break;                                                                     \
  }
  switch (op) {
    U(TH_UN_NEG, TH_MATH_PAR_CHEAP, W_NEG(x))
#if !TH_REAL_SIGNED
    U(TH_UN_ABS, TH_MATH_PAR_CHEAP, x)
    U(TH_UN_SIGN, TH_MATH_PAR_CHEAP, x > 0)
#elif !M_FLOATING
    U(TH_UN_ABS, TH_MATH_PAR_CHEAP, x < 0 ? W_NEG(x) : x)
    U(TH_UN_SIGN, TH_MATH_PAR_CHEAP, (x > 0) - (x < 0))
#else
    U(TH_UN_ABS, TH_MATH_PAR_CHEAP, MF(fabs)(x))
    U(TH_UN_SIGN, TH_MATH_PAR_CHEAP, (x > 0) - (x < 0))
#endif
#if M_FLOATING
    U(TH_UN_SQRT, TH_MATH_PAR_CHEAP, MF(sqrt)(x))
    U(TH_UN_RSQRT, TH_MATH_PAR_CHEAP, 1 / MF(sqrt)(x))
    U(TH_UN_EXP, TH_MATH_PAR_COSTLY, MF(exp)(x))
    U(TH_UN_LOG, TH_MATH_PAR_COSTLY, MF(log)(x))
    U(TH_UN_LOG1P, TH_MATH_PAR_COSTLY, MF(log1p)(x))
    U(TH_UN_TANH, TH_MATH_PAR_COSTLY, MF(tanh)(x))
    U(TH_UN_SIGMOID, TH_MATH_PAR_COSTLY, 1 / (1 + MF(exp)(-x)))
    U(TH_UN_FLOOR, TH_MATH_PAR_CHEAP, MF(floor)(x))
    U(TH_UN_CEIL, TH_MATH_PAR_CHEAP, MF(ceil)(x))
    U(TH_UN_ROUND, TH_MATH_PAR_CHEAP, MF(round)(x))
    U(TH_UN_TRUNC, TH_MATH_PAR_CHEAP, MF(trunc)(x))
    U(TH_UN_FRAC, TH_MATH_PAR_CHEAP, x - MF(trunc)(x))
    U(TH_UN_CINV, TH_MATH_PAR_CHEAP, 1 / x)
    U(TH_UN_SIN, TH_MATH_PAR_COSTLY, MF(sin)(x))
    U(TH_UN_COS, TH_MATH_PAR_COSTLY, MF(cos)(x))
    U(TH_UN_TAN, TH_MATH_PAR_COSTLY, MF(tan)(x))
    U(TH_UN_ASIN, TH_MATH_PAR_COSTLY, MF(asin)(x))
    U(TH_UN_ACOS, TH_MATH_PAR_COSTLY, MF(acos)(x))
    U(TH_UN_ATAN, TH_MATH_PAR_COSTLY, MF(atan)(x))
    U(TH_UN_SINH, TH_MATH_PAR_COSTLY, MF(sinh)(x))
    U(TH_UN_COSH, TH_MATH_PAR_COSTLY, MF(cosh)(x))
#endif
    default: return th_error_set("unary op %d not available for %sTensor", (int)op, th_dtype_name[TH_DTYPE]);
  }
#undef U
  return TH_OK;
}

/* r = a op value */
static int TH_R(scalar)(th_math_span *th_span, th_tensor *r, const th_tensor *a, th_scalar_op op,
                        double value) {
  const real v = MCAST(value);
#define S(OP, PAR, ...)                                                        \
  case OP: {                                                                   \
    const int64_t th_par_min = PAR;                                            \
    TH_MAP2(real, rp, r, const real, ap, a, { const real x = *ap; *rp = (real)(__VA_ARGS__); }); \
    break;                                                                     \
  }
#if !M_FLOATING
  const int64_t shift = value > 64 ? 64 : (int64_t)value;  /* >= 0, checked by the caller */
  if ((op == TH_SC_DIV || op == TH_SC_FMOD || op == TH_SC_REMAINDER) && v == 0)
    return th_error_set("integer division by zero");
#endif
  switch (op) {
    S(TH_SC_ADD, TH_MATH_PAR_CHEAP, W_ADD(x, v))
    S(TH_SC_MUL, TH_MATH_PAR_CHEAP, W_MUL(x, v))
    S(TH_SC_MAX, TH_MATH_PAR_CHEAP, x > v ? x : v)
    S(TH_SC_MIN, TH_MATH_PAR_CHEAP, x < v ? x : v)
#if M_FLOATING
    S(TH_SC_DIV, TH_MATH_PAR_CHEAP, x / v)
    S(TH_SC_FMOD, TH_MATH_PAR_COSTLY, MF(fmod)(x, v))
    S(TH_SC_REMAINDER, TH_MATH_PAR_COSTLY, TH_R(frem)(x, v))
    S(TH_SC_TPOW, TH_MATH_PAR_COSTLY, MF(pow)(v, x))
    case TH_SC_POW: {
      const int64_t th_par_min = value == 2 ? TH_MATH_PAR_CHEAP : TH_MATH_PAR_COSTLY;
      if (value == 2) TH_MAP2(real, rp, r, const real, ap, a, *rp = *ap * *ap;);
      else TH_MAP2(real, rp, r, const real, ap, a, *rp = MF(pow)(*ap, v););
      break;
    }
#else
    S(TH_SC_DIV, TH_MATH_PAR_COSTLY, TH_R(idiv)(x, v))
    S(TH_SC_FMOD, TH_MATH_PAR_COSTLY, TH_R(imod)(x, v))
    S(TH_SC_REMAINDER, TH_MATH_PAR_COSTLY, TH_R(irem)(x, v))
    S(TH_SC_BITAND, TH_MATH_PAR_CHEAP, x & v)
    S(TH_SC_BITOR, TH_MATH_PAR_CHEAP, x | v)
    S(TH_SC_BITXOR, TH_MATH_PAR_CHEAP, x ^ v)
    S(TH_SC_LSHIFT, TH_MATH_PAR_CHEAP, TH_R(shl)(x, shift))
    S(TH_SC_RSHIFT, TH_MATH_PAR_CHEAP, TH_R(shr)(x, shift))
#endif
#if M_FLOATING
    S(TH_SC_LSHIFT, TH_MATH_PAR_CHEAP, x * MF(pow)(2, v))
    S(TH_SC_RSHIFT, TH_MATH_PAR_CHEAP, x / MF(pow)(2, v))
#endif
    default: return th_error_set("scalar op %d not available for %sTensor", (int)op, th_dtype_name[TH_DTYPE]);
  }
#undef S
  return TH_OK;
}

/* r = min(max(a, lo), hi) */
static int TH_R(clamp)(th_math_span *th_span, th_tensor *r, const th_tensor *a, double lo,
                       double hi) {
  const real l = MCAST(lo), h = MCAST(hi);
  const int64_t th_par_min = TH_MATH_PAR_CHEAP;
  TH_MAP2(real, rp, r, const real, ap, a, { const real x = *ap; *rp = x < l ? l : (x > h ? h : x); });
  return TH_OK;
}

#if M_FLOATING
/* r = a + b over contiguous operands in blocks run by th_pool, from
   TH_MATH_PAR_POOL elements (a step's gradient sums, ConcatTable and
   CAddTable, whose helpers are awake between its layers) and in a loop
   compiled per CPU; the same additions as TH_MAP3's loop (no multiply that
   a CPU clone could fuse) */
typedef struct TH_R(add_job) {
  real *r;
  const real *a, *b;
  int64_t n;
} TH_R(add_job);

TH_CPU_CLONES static void TH_R(add_range)(real *r, const real *a, const real *b, int64_t n) {
  int64_t i;
  for (i = 0; i < n; i++) r[i] = a[i] + b[i];
}

static void TH_R(add_block)(void *arg, int64_t i) {
  const TH_R(add_job) *j = arg;
  const int64_t lo = i * 16384, m = j->n - lo < 16384 ? j->n - lo : 16384;
  TH_R(add_range)(j->r + lo, j->a + lo, j->b + lo, m);
}

/* 1 when it did r = a + b */
static int TH_R(add_pool)(th_tensor *r, const th_tensor *a, const th_tensor *b) {
  TH_R(add_job) j;
  if (!th_tensor_is_contiguous(r) || !th_tensor_is_contiguous(a) || !th_tensor_is_contiguous(b))
    return 0;
  j.n = th_tensor_numel(r);
  if (j.n < TH_MATH_PAR_POOL) return 0;
  j.r = th_tensor_data(r), j.a = th_tensor_data(a), j.b = th_tensor_data(b);
  th_pool_for(th_math_threads(), (j.n + 16383) / 16384, TH_R(add_block), &j);
  return 1;
}
#endif

/* r = a op b */
static int TH_R(binary)(th_math_span *th_span, th_tensor *r, const th_tensor *a, th_binary_op op,
                        const th_tensor *b, double value) {
  const real v = MCAST(value);
#define B(OP, PAR, ...)                                                        \
  case OP: {                                                                   \
    const int64_t th_par_min = PAR;                                            \
    TH_MAP3(real, rp, r, const real, ap, a, const real, bp, b,                 \
            { const real x = *ap; const real y = *bp; *rp = (real)(__VA_ARGS__); }); \
    break;                                                                     \
  }
#if !M_FLOATING
  if (th_math_span_whole(th_span) && (op == TH_BI_DIV || op == TH_BI_FMOD || op == TH_BI_REMAINDER) &&
      TH_R(has_zero)(b))
    return th_error_set("integer division by zero (the divisor tensor holds a 0)");
  if (th_math_span_whole(th_span) && (op == TH_BI_LSHIFT || op == TH_BI_RSHIFT) &&
      TH_R(has_negative)(b))
    return th_error_set("shift counts must be non-negative (the count tensor holds a negative)");
#endif
  switch (op) {
    case TH_BI_ADD: {
      const int64_t th_par_min = TH_MATH_PAR_CHEAP;
#if M_FLOATING
      if (value == 1 && th_math_span_whole(th_span) && TH_R(add_pool)(r, a, b)) break;
#endif
      if (value == 1) TH_MAP3(real, rp, r, const real, ap, a, const real, bp, b, *rp = (real)W_ADD(*ap, *bp););
      else TH_MAP3(real, rp, r, const real, ap, a, const real, bp, b, *rp = (real)W_ADD(*ap, W_MUL(v, *bp)););
      break;
    }
    B(TH_BI_MUL, TH_MATH_PAR_CHEAP, W_MUL(x, y))
    B(TH_BI_MAX, TH_MATH_PAR_CHEAP, x > y ? x : y)
    B(TH_BI_MIN, TH_MATH_PAR_CHEAP, x < y ? x : y)
#if M_FLOATING
    B(TH_BI_DIV, TH_MATH_PAR_CHEAP, x / y)
    B(TH_BI_FMOD, TH_MATH_PAR_COSTLY, MF(fmod)(x, y))
    B(TH_BI_REMAINDER, TH_MATH_PAR_COSTLY, TH_R(frem)(x, y))
    B(TH_BI_POW, TH_MATH_PAR_COSTLY, MF(pow)(x, y))
    B(TH_BI_LERP, TH_MATH_PAR_CHEAP, x + v * (y - x))
    B(TH_BI_LSHIFT, TH_MATH_PAR_COSTLY, x * MF(pow)(2, y))
    B(TH_BI_RSHIFT, TH_MATH_PAR_COSTLY, x / MF(pow)(2, y))
#else
    B(TH_BI_DIV, TH_MATH_PAR_COSTLY, TH_R(idiv)(x, y))
    B(TH_BI_FMOD, TH_MATH_PAR_COSTLY, TH_R(imod)(x, y))
    B(TH_BI_REMAINDER, TH_MATH_PAR_COSTLY, TH_R(irem)(x, y))
    B(TH_BI_BITAND, TH_MATH_PAR_CHEAP, x & y)
    B(TH_BI_BITOR, TH_MATH_PAR_CHEAP, x | y)
    B(TH_BI_BITXOR, TH_MATH_PAR_CHEAP, x ^ y)
    B(TH_BI_LSHIFT, TH_MATH_PAR_CHEAP, TH_R(shl)(x, y))
    B(TH_BI_RSHIFT, TH_MATH_PAR_CHEAP, TH_R(shr)(x, y))
#endif
    default: return th_error_set("binary op %d not available for %sTensor", (int)op, th_dtype_name[TH_DTYPE]);
  }
#undef B
  return TH_OK;
}

/* r = a + value * b * c, or a + value * b / c */
static int TH_R(addc)(th_math_span *th_span, th_tensor *r, const th_tensor *a, double value,
                      const th_tensor *b, const th_tensor *c, int divide) {
  const real v = MCAST(value);
  const int64_t th_par_min = TH_MATH_PAR_CHEAP;
  if (!divide) {
    TH_MAP4(real, rp, r, const real, ap, a, const real, bp, b, const real, cp, c,
            *rp = (real)W_ADD(*ap, W_MUL(v, W_MUL(*bp, *cp))););
    return TH_OK;
  }
#if M_FLOATING
  TH_MAP4(real, rp, r, const real, ap, a, const real, bp, b, const real, cp, c,
          *rp = *ap + v * *bp / *cp;);
#else
  if (th_math_span_whole(th_span) && TH_R(has_zero)(c))
    return th_error_set("integer division by zero (tensor2 holds a 0)");
  TH_MAP4(real, rp, r, const real, ap, a, const real, bp, b, const real, cp, c,
          *rp = (real)W_ADD(*ap, TH_R(idiv)((real)W_MUL(v, *bp), *cp)););
#endif
  return TH_OK;
}

/* --- fills: r is already 1D (range, linspace) or 2D (eye) ------------------ */

static int TH_R(range)(th_tensor *r, double a, double step) {
  int64_t i = 0;
  TH_APPLY1(real, p, r, *p = MCAST(a + (double)(i++) * step););
  return TH_OK;
}

static int TH_R(eye)(th_tensor *r) {
  real *d = (real *)th_tensor_data(r);
  int64_t i, n = r->size[0] < r->size[1] ? r->size[0] : r->size[1];
  TH_APPLY1(real, p, r, *p = 0;);
  for (i = 0; i < n; i++) d[i * r->stride[0] + i * r->stride[1]] = 1;
  return TH_OK;
}
