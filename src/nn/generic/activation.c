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

/* y = f(x) over two tensors of equal numel; y may be x (in place), so CODE
   reads *x into a local before it writes *y. CODE has no bare commas (it
   passes through TH_APPLY2 as one macro argument). Contiguous operands run as
   one flat loop, split over threads past the caller's 'omp_min_' elements. */
#define ACT_LOOP2(DST, SRC, CODE)                                        \
  do {                                                                   \
    if (th_tensor_is_contiguous(DST) && th_tensor_is_contiguous(SRC)) {  \
      real *y0_ = th_tensor_data(DST);                                   \
      const real *x0_ = th_tensor_data(SRC);                             \
      int64_t n_ = th_tensor_numel(DST), i_;                             \
      _Pragma("omp parallel for if (n_ >= omp_min_)")                     \
      for (i_ = 0; i_ < n_; i_++) {                                      \
        real *y = y0_ + i_;                                              \
        const real *x = x0_ + i_;                                        \
        CODE                                                             \
      }                                                                  \
    } else {                                                             \
      TH_APPLY2(real, y, DST, const real, x, SRC, CODE);                 \
    }                                                                    \
  } while (0)

/* g = go * f'(r) over three tensors; g may be go (in place) */
#define ACT_LOOP3(GI, GO, REF, CODE)                                     \
  do {                                                                   \
    if (th_tensor_is_contiguous(GI) && th_tensor_is_contiguous(GO) &&    \
        th_tensor_is_contiguous(REF)) {                                  \
      real *g0_ = th_tensor_data(GI);                                    \
      const real *go0_ = th_tensor_data(GO), *r0_ = th_tensor_data(REF); \
      int64_t n_ = th_tensor_numel(GI), i_;                              \
      _Pragma("omp parallel for if (n_ >= omp_min_)")                     \
      for (i_ = 0; i_ < n_; i_++) {                                      \
        real *g = g0_ + i_;                                              \
        const real *go = go0_ + i_, *r = r0_ + i_;                       \
        CODE                                                             \
      }                                                                  \
    } else {                                                             \
      TH_APPLY3(real, g, GI, const real, go, GO, const real, r, REF, CODE); \
    }                                                                    \
  } while (0)

static int TH_R(act_forward)(th_nn_act op, const double *p, th_tensor *dst, const th_tensor *src) {
  const int64_t omp_min_ = act_cheap(op, 0) ? OMP_MIN_CHEAP : OMP_MIN;
  switch (op) {
    case TH_NN_THRESHOLD: {
      const real th = (real)p[0], v = (real)p[1];
      ACT_LOOP2(dst, src, { real a = *x; *y = a > th ? a : v; });
      break;
    }
    case TH_NN_LEAKYRELU: {
      const real neg = (real)p[0];
      ACT_LOOP2(dst, src, { real a = *x; *y = a > 0 ? a : a * neg; });
      break;
    }
    case TH_NN_ELU: {
      const real alpha = (real)p[0];
      ACT_LOOP2(dst, src, { real a = *x; *y = a <= 0 ? EXPM1(a) * alpha : a; });
      break;
    }
    case TH_NN_TANH: ACT_LOOP2(dst, src, { *y = TH_R(act_tanh)(*x); }); break;
    case TH_NN_SIGMOID:
      ACT_LOOP2(dst, src, { real a = *x; *y = (real)1 / ((real)1 + EXP(-a)); });
      break;
    case TH_NN_SOFTPLUS: {
      const real beta = (real)p[0], thr = (real)p[1];
      ACT_LOOP2(dst, src, {
        real a = *x;
        *y = a * beta > thr ? a : LOG1P(EXP(a * beta)) / beta;
      });
      break;
    }
    default: return th_error_set("unknown activation %d", (int)op);
  }
  return TH_OK;
}

static int TH_R(act_backward)(th_nn_act op, const double *p, th_tensor *gi, const th_tensor *go_t,
                              const th_tensor *ref) {
  const int64_t omp_min_ = act_cheap(op, 1) ? OMP_MIN_CHEAP : OMP_MIN;
  switch (op) {
    case TH_NN_THRESHOLD: {
      const real th = (real)p[0];
      /* both loaded unconditionally: a load under the condition vectorizes
         only with masked loads (AVX2 on), not in the baseline build */
      ACT_LOOP3(gi, go_t, ref, { real d = *go; *g = *r > th ? d : 0; });
      break;
    }
    case TH_NN_LEAKYRELU: {
      const real neg = (real)p[0];
      ACT_LOOP3(gi, go_t, ref, { real d = *go; *g = *r > 0 ? d : d * neg; });
      break;
    }
    case TH_NN_ELU: {
      const real alpha = (real)p[0];
      ACT_LOOP3(gi, go_t, ref, { real y = *r; real d = *go; *g = y <= 0 ? d * (y + alpha) : d; });
      break;
    }
    case TH_NN_TANH:
      ACT_LOOP3(gi, go_t, ref, { real y = *r; *g = *go * ((real)1 - y * y); });
      break;
    case TH_NN_SIGMOID:
      ACT_LOOP3(gi, go_t, ref, { real y = *r; *g = *go * ((real)1 - y) * y; });
      break;
    case TH_NN_SOFTPLUS: {
      const real beta = (real)p[0], thr = (real)p[1];
      /* from the output: f'(x) = 1 - exp(-beta y) */
      ACT_LOOP3(gi, go_t, ref, {
        real y = *r;
        real d = *go;
        *g = y * beta > thr ? d : d * -EXPM1(-y * beta);
      });
      break;
    }
    default: return th_error_set("unknown activation %d", (int)op);
  }
  return TH_OK;
}

#undef ACT_LOOP2
#undef ACT_LOOP3
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

static int TH_R(add_relu)(th_tensor *a, const th_tensor *b) {
  real *pa = th_tensor_data(a);
  const real *pb = th_tensor_data(b);
  const int64_t n = th_tensor_numel(a);
  /* memory-bound, one region only past TH_NN_PAR_MIN_CHEAP (th_nn_internal.h) */
  if (n >= OMP_MIN_CHEAP) {
    const int64_t chunk = 4096;
    int64_t c;
#pragma omp parallel for schedule(static)
    for (c = 0; c < (n + chunk - 1) / chunk; c++) {
      const int64_t lo = c * chunk, m = n - lo < chunk ? n - lo : chunk;
      TH_R(add_relu_loop)(pa + lo, pb + lo, m);
    }
  } else {
    TH_R(add_relu_loop)(pa, pb, n);
  }
  return TH_OK;
}
