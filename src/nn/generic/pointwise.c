/* generic/pointwise.c: the simple pointwise maps for 'real' (included by th_nn_pointwise.c).
   Transcendental functions run in double for both types (float rounds once,
   at the store). */

/* The maps, once for both loops below: PW_FWD_OPS(LOOP) and
   PW_BWD_OPS(LOOP) expand to a switch whose case for a map runs
   LOOP(CODE), CODE reading *x (forward; *y may be *x: in place, so CODE
   reads *x into a local before it writes *y) or *go and *r (backward, g
   = go * f'(r); g may be go). */
#define PW_FWD_OPS(LOOP)                                                              \
  switch (op) {                                                                        \
    case TH_NN_PW_ABS: LOOP({ *y = (real)fabs((double)*x); }); break;                  \
    case TH_NN_PW_HARDTANH: {                                                          \
      const real mn = (real)p[0], mx = (real)p[1];                                     \
      /* as Torch7: a NaN input gives max */                                           \
      LOOP({ real a = *x; *y = a < mn ? mn : (a <= mx ? a : mx); });                   \
      break;                                                                           \
    }                                                                                  \
    case TH_NN_PW_SOFTSHRINK: {                                                        \
      const real l = (real)p[0];                                                       \
      LOOP({ real a = *x; *y = a > l ? a - l : (a < -l ? a + l : 0); });               \
      break;                                                                           \
    }                                                                                  \
    case TH_NN_PW_HARDSHRINK: {                                                        \
      const real l = (real)p[0];                                                       \
      LOOP({ real a = *x; *y = (a > l || a < -l) ? a : 0; });                          \
      break;                                                                           \
    }                                                                                  \
    case TH_NN_PW_LOGSIGMOID:                                                          \
      /* -log(1 + e^-x) = -(m + log(e^-m + e^(-x-m))), m = max(0, -x): no overflow */  \
      LOOP({                                                                           \
        double a = (double)*x;                                                         \
        double m = a < 0 ? -a : 0;                                                     \
        *y = (real)-(m + log(exp(-m) + exp(-a - m)));                                  \
      });                                                                              \
      break;                                                                           \
    case TH_NN_PW_SOFTSIGN:                                                            \
      LOOP({ real a = *x; *y = a / ((real)1 + (real)fabs((double)a)); });              \
      break;                                                                           \
    case TH_NN_PW_SQRT: LOOP({ *y = (real)sqrt((double)*x); }); break;                 \
    case TH_NN_PW_SQUARE: LOOP({ real a = *x; *y = a * a; }); break;                   \
    case TH_NN_PW_EXP: LOOP({ *y = (real)exp((double)*x); }); break;                   \
    case TH_NN_PW_LOG: LOOP({ *y = (real)log((double)*x); }); break;                   \
    case TH_NN_PW_POWER: {                                                             \
      const double e = p[0];                                                           \
      LOOP({ *y = (real)pow((double)*x, e); });                                        \
      break;                                                                           \
    }                                                                                  \
    default: break;                                                                    \
  }                                                                                    \

#define PW_BWD_OPS(LOOP)                                                       \
  switch (op) {                                                                \
    case TH_NN_PW_ABS: LOOP({ real d = *go; *g = *r >= 0 ? d : -d; }); break;  \
    case TH_NN_PW_HARDTANH: {                                                  \
      const real mn = (real)p[0], mx = (real)p[1];                             \
      LOOP({ real a = *r; *g = (a <= mn || a >= mx) ? 0 : *go; });             \
      break;                                                                   \
    }                                                                          \
    case TH_NN_PW_SOFTSHRINK:                                                  \
    case TH_NN_PW_HARDSHRINK: {                                                \
      const real l = (real)p[0];                                               \
      LOOP({ real a = *r; *g = (a > l || a < -l) ? *go : 0; });                \
      break;                                                                   \
    }                                                                          \
    case TH_NN_PW_LOGSIGMOID:                                                  \
      /* 1 - sigmoid(x), from whichever exponential cannot overflow */         \
      LOOP({                                                                   \
        double a = (double)*r;                                                 \
        double s;                                                              \
        if (a < 0) {                                                           \
          s = 1.0 / (1.0 + exp(a));                                            \
        } else {                                                               \
          double e = exp(-a);                                                  \
          s = e / (1.0 + e);                                                   \
        }                                                                      \
        *g = (real)((double)*go * s);                                          \
      });                                                                      \
      break;                                                                   \
    case TH_NN_PW_SOFTSIGN:                                                    \
      LOOP({                                                                   \
        real s = (real)1 + (real)fabs((double)*r);                             \
        *g = *go / (s * s);                                                    \
      });                                                                      \
      break;                                                                   \
    case TH_NN_PW_SQRT:                                                        \
      /* Torch7's convention: no gradient where the output is 0 */             \
      LOOP({ real y = *r; *g = y == 0 ? 0 : (real)0.5 * (*go / y); });         \
      break;                                                                   \
    case TH_NN_PW_SQUARE: LOOP({ *g = (real)2 * *go * *r; }); break;           \
    case TH_NN_PW_EXP: LOOP({ *g = *go * *r; }); break;                        \
    case TH_NN_PW_LOG: LOOP({ *g = ((real)1 / *r) * *go; }); break;            \
    case TH_NN_PW_POWER: {                                                     \
      const double e = p[0];                                                   \
      LOOP({ *g = (real)(pow((double)*r, e - 1) * (double)*go * e); });        \
      break;                                                                   \
    }                                                                          \
    default: break;                                                            \
  }                                                                            \

/* one call over contiguous operands: dst = f(a), or dst = a * f'(b) */
typedef struct TH_R(pw_job) {
  th_nn_pw op;
  const double *p;
  real *dst;
  const real *a, *b;
} TH_R(pw_job);

static void TH_R(pw_forward_range)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(pw_job) *j = arg;
  const th_nn_pw op = j->op;
  const double *p = j->p;
  real *y0 = j->dst;
  const real *x0 = j->a;
  int64_t i_;
  PW_FWD_OPS(TH_NN_RANGE2)
}

static void TH_R(pw_backward_range)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(pw_job) *j = arg;
  const th_nn_pw op = j->op;
  const double *p = j->p;
  real *g0 = j->dst;
  const real *go0 = j->a, *r0 = j->b;
  int64_t i_;
  PW_BWD_OPS(TH_NN_RANGE3)
}

/* contiguous operands run through th_pool, split from PW_PAR_MIN elements
   where each costs a transcendental function, from PW_PAR_MIN_CHEAP for
   the memory-bound compare-and-select or multiply loops */
static int TH_R(pw_forward)(th_nn_pw op, const double *p, th_tensor *dst, const th_tensor *src) {
  if ((unsigned)op >= TH_NN_NPW) return th_error_set("unknown pointwise map %d", (int)op);
  if (th_tensor_is_contiguous(dst) && th_tensor_is_contiguous(src)) {
    TH_R(pw_job) j;
    const int64_t n = th_tensor_numel(dst);
    j.op = op, j.p = p, j.dst = th_tensor_data(dst), j.a = th_tensor_data(src), j.b = NULL;
    th_pool_ranges(th_nn_threads_over(n, (pw_costly(op, 0) ? PW_PAR_MIN : PW_PAR_MIN_CHEAP) - 1),
                   n, TH_R(pw_forward_range), &j);
  } else {
#define STRIDED2(CODE) TH_APPLY2(real, y, dst, const real, x, src, CODE)
    PW_FWD_OPS(STRIDED2)
#undef STRIDED2
  }
  return TH_OK;
}

static int TH_R(pw_backward)(th_nn_pw op, const double *p, th_tensor *gi, const th_tensor *go_t,
                             const th_tensor *ref) {
  if ((unsigned)op >= TH_NN_NPW) return th_error_set("unknown pointwise map %d", (int)op);
  if (th_tensor_is_contiguous(gi) && th_tensor_is_contiguous(go_t) &&
      th_tensor_is_contiguous(ref)) {
    TH_R(pw_job) j;
    const int64_t n = th_tensor_numel(gi);
    j.op = op, j.p = p, j.dst = th_tensor_data(gi), j.a = th_tensor_data(go_t);
    j.b = th_tensor_data(ref);
    th_pool_ranges(th_nn_threads_over(n, (pw_costly(op, 1) ? PW_PAR_MIN : PW_PAR_MIN_CHEAP) - 1),
                   n, TH_R(pw_backward_range), &j);
  } else {
#define STRIDED3(CODE) TH_APPLY3(real, g, gi, const real, go, go_t, const real, r, ref, CODE)
    PW_BWD_OPS(STRIDED3)
#undef STRIDED3
  }
  return TH_OK;
}

#undef PW_FWD_OPS
#undef PW_BWD_OPS
