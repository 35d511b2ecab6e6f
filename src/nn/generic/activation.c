/* generic/activation.c: pointwise activations for 'real' (included by th_nn_activation.c) */

#if defined(TH_REAL_IS_FLOAT)
#define EXP expf
#define LOG1P log1pf
#else
#define EXP exp
#define LOG1P log1p
#endif
/* glibc's expm1 in double beats expm1f (and tanh/tanhf by 2x): both
   types go through it */
#define EXPM1(x) ((real)expm1((double)(x)))

/* tanh x = -sign(x) em / (2 + em), em = expm1(-2|x|): one expm1, accurate
   to a few ulps of double everywhere (no cancellation near 0), +-1 at inf */
static inline real TH_R(act_tanh)(real x) {
  double em = expm1(-2.0 * fabs((double)x));
  return (real)copysign(-em / (2.0 + em), (double)x);
}

/* The operations, once for both loops below: ACT_FWD_OPS(LOOP) and
   ACT_BWD_OPS(LOOP) expand to a switch whose case for an operation runs
   LOOP(CODE), CODE reading *x (forward; *y may be *x: in place, so CODE
   reads *x into a local before it writes *y) or *go and *r (backward, g
   = go * f'(r); g may be go). CODE has no bare commas (it passes through
   TH_APPLY2/3 as one macro argument). */
#define ACT_FWD_OPS(LOOP)                                                \
  switch (op) {                                                          \
    case TH_NN_THRESHOLD: {                                              \
      const real th = (real)p[0], v = (real)p[1];                        \
      LOOP({ real a = *x; *y = a > th ? a : v; });                       \
      break;                                                             \
    }                                                                    \
    case TH_NN_LEAKYRELU: {                                              \
      const real neg = (real)p[0];                                       \
      LOOP({ real a = *x; *y = a > 0 ? a : a * neg; });                  \
      break;                                                             \
    }                                                                    \
    case TH_NN_ELU: {                                                    \
      const real alpha = (real)p[0];                                     \
      LOOP({ real a = *x; *y = a <= 0 ? EXPM1(a) * alpha : a; });        \
      break;                                                             \
    }                                                                    \
    case TH_NN_TANH: LOOP({ *y = TH_R(act_tanh)(*x); }); break;          \
    case TH_NN_SIGMOID:                                                  \
      LOOP({ real a = *x; *y = (real)1 / ((real)1 + EXP(-a)); });        \
      break;                                                             \
    case TH_NN_SOFTPLUS: {                                               \
      const real beta = (real)p[0], thr = (real)p[1];                    \
      LOOP({                                                             \
        real a = *x;                                                     \
        *y = a * beta > thr ? a : LOG1P(EXP(a * beta)) / beta;           \
      });                                                                \
      break;                                                             \
    }                                                                    \
    default: break;                                                      \
  }

/* threshold's backward loads both operands unconditionally: a load under
   the condition vectorizes only with masked loads (AVX2 on), not in the
   baseline build; softplus's is taken from the output: f'(x) = 1 - exp(-beta y) */
#define ACT_BWD_OPS(LOOP)                                                \
  switch (op) {                                                          \
    case TH_NN_THRESHOLD: {                                              \
      const real th = (real)p[0];                                        \
      LOOP({ real d = *go; *g = *r > th ? d : 0; });                     \
      break;                                                             \
    }                                                                    \
    case TH_NN_LEAKYRELU: {                                              \
      const real neg = (real)p[0];                                       \
      LOOP({ real d = *go; *g = *r > 0 ? d : d * neg; });                \
      break;                                                             \
    }                                                                    \
    case TH_NN_ELU: {                                                    \
      const real alpha = (real)p[0];                                     \
      LOOP({ real y = *r; real d = *go; *g = y <= 0 ? d * (y + alpha) : d; }); \
      break;                                                             \
    }                                                                    \
    case TH_NN_TANH: LOOP({ real y = *r; *g = *go * ((real)1 - y * y); }); break; \
    case TH_NN_SIGMOID: LOOP({ real y = *r; *g = *go * ((real)1 - y) * y; }); break; \
    case TH_NN_SOFTPLUS: {                                               \
      const real beta = (real)p[0], thr = (real)p[1];                    \
      LOOP({                                                             \
        real y = *r;                                                     \
        real d = *go;                                                    \
        *g = y * beta > thr ? d : d * -EXPM1(-y * beta);                 \
      });                                                                \
      break;                                                             \
    }                                                                    \
    default: break;                                                      \
  }

/* elements [lo, hi) of contiguous operands (th_nn_internal.h's loops), as
   leaf functions compiled for the CPU's widest vectors (th_cpu.h) */

TH_CPU_CLONES static void TH_R(act_forward_range)(th_nn_act op, const double *p, real *y0,
                                                  const real *x0, int64_t lo, int64_t hi) {
  int64_t i_;
  ACT_FWD_OPS(TH_NN_RANGE2)
}

TH_CPU_CLONES static void TH_R(act_backward_range)(th_nn_act op, const double *p, real *g0,
                                                   const real *go0, const real *r0, int64_t lo,
                                                   int64_t hi) {
  int64_t i_;
  ACT_BWD_OPS(TH_NN_RANGE3)
}

/* contiguous operands go in blocks of ACT_BLOCK elements through th_pool,
   split over threads from the 'min' elements act_min gives */
typedef struct TH_R(act_job) {
  th_nn_act op;
  const double *p;
  real *dst;
  const real *a, *b;
  int64_t n;
} TH_R(act_job);

static void TH_R(act_forward_block)(void *arg, int64_t i) {
  const TH_R(act_job) *j = arg;
  const int64_t lo = i * ACT_BLOCK, hi = lo + ACT_BLOCK < j->n ? lo + ACT_BLOCK : j->n;
  TH_R(act_forward_range)(j->op, j->p, j->dst, j->a, lo, hi);
}

static void TH_R(act_backward_block)(void *arg, int64_t i) {
  const TH_R(act_job) *j = arg;
  const int64_t lo = i * ACT_BLOCK, hi = lo + ACT_BLOCK < j->n ? lo + ACT_BLOCK : j->n;
  TH_R(act_backward_range)(j->op, j->p, j->dst, j->a, j->b, lo, hi);
}

static int TH_R(act_forward)(th_nn_act op, const double *p, th_tensor *dst, const th_tensor *src) {
  if ((unsigned)op >= TH_NN_NACT) return th_error_set("unknown activation %d", (int)op);
  if (th_tensor_is_contiguous(dst) && th_tensor_is_contiguous(src)) {
    TH_R(act_job) j;
    j.op = op, j.p = p, j.dst = th_tensor_data(dst), j.a = th_tensor_data(src), j.b = NULL;
    j.n = th_tensor_numel(dst);
    th_pool_for(th_nn_threads_over(j.n, act_min(op, 0) - 1), (j.n + ACT_BLOCK - 1) / ACT_BLOCK,
                TH_R(act_forward_block), &j);
  } else {
#define STRIDED2(CODE) TH_APPLY2(real, y, dst, const real, x, src, CODE)
    ACT_FWD_OPS(STRIDED2)
#undef STRIDED2
  }
  return TH_OK;
}

static int TH_R(act_backward)(th_nn_act op, const double *p, th_tensor *gi, const th_tensor *go_t,
                              const th_tensor *ref) {
  if ((unsigned)op >= TH_NN_NACT) return th_error_set("unknown activation %d", (int)op);
  if (th_tensor_is_contiguous(gi) && th_tensor_is_contiguous(go_t) &&
      th_tensor_is_contiguous(ref)) {
    TH_R(act_job) j;
    j.op = op, j.p = p, j.dst = th_tensor_data(gi), j.a = th_tensor_data(go_t);
    j.b = th_tensor_data(ref), j.n = th_tensor_numel(gi);
    th_pool_for(th_nn_threads_over(j.n, act_min(op, 1) - 1), (j.n + ACT_BLOCK - 1) / ACT_BLOCK,
                TH_R(act_backward_block), &j);
  } else {
#define STRIDED3(CODE) TH_APPLY3(real, g, gi, const real, go, go_t, const real, r, ref, CODE)
    ACT_BWD_OPS(STRIDED3)
#undef STRIDED3
  }
  return TH_OK;
}

#undef ACT_FWD_OPS
#undef ACT_BWD_OPS
#undef EXP
#undef EXPM1
#undef LOG1P

/* a = relu(a + b), both contiguous: the residual add and the in-place ReLU
   after it in one pass; a + b, then the threshold as nn.ReLU computes it */
TH_CPU_CLONES static void TH_R(add_relu_loop)(real *a, const real *b, int64_t n) {
  int64_t i;
  for (i = 0; i < n; i++) {
    real v = a[i] + b[i];
    a[i] = v > 0 ? v : 0;
  }
}

static void TH_R(add_relu_block)(void *arg, int64_t i) {
  const TH_R(act_job) *j = arg;
  const int64_t lo = i * ACT_BLOCK, m = j->n - lo < ACT_BLOCK ? j->n - lo : ACT_BLOCK;
  TH_R(add_relu_loop)(j->dst + lo, j->a + lo, m);
}

static int TH_R(add_relu)(th_tensor *a, const th_tensor *b) {
  TH_R(act_job) j;
  j.dst = th_tensor_data(a), j.a = th_tensor_data(b), j.n = th_tensor_numel(a);
  th_pool_for(th_nn_threads_over(j.n, ACT_PAR_MIN_CHEAP - 1), (j.n + ACT_BLOCK - 1) / ACT_BLOCK,
              TH_R(add_relu_block), &j);
  return TH_OK;
}
