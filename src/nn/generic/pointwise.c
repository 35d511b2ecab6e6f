/* generic/pointwise.c: the simple pointwise maps for 'real' (included by th_nn_pointwise.c).
   Transcendental functions run in double for both types (float rounds once,
   at the store). */

/* y = f(x) over two tensors of equal numel; y may be x (in place), so CODE
   reads *x into a local before it writes *y. Contiguous operands run as one
   flat loop, split over threads past the caller's omp_min_ elements. */
#define PW_LOOP2(DST, SRC, CODE)                                         \
  do {                                                                   \
    if (th_tensor_is_contiguous(DST) && th_tensor_is_contiguous(SRC)) {  \
      real *y0_ = th_tensor_data(DST);                                   \
      const real *x0_ = th_tensor_data(SRC);                             \
      int64_t n_ = th_tensor_numel(DST), i_;                             \
      _Pragma("omp parallel for if (n_ >= omp_min_)")                      \
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
#define PW_LOOP3(GI, GO, REF, CODE)                                      \
  do {                                                                   \
    if (th_tensor_is_contiguous(GI) && th_tensor_is_contiguous(GO) &&    \
        th_tensor_is_contiguous(REF)) {                                  \
      real *g0_ = th_tensor_data(GI);                                    \
      const real *go0_ = th_tensor_data(GO), *r0_ = th_tensor_data(REF); \
      int64_t n_ = th_tensor_numel(GI), i_;                              \
      _Pragma("omp parallel for if (n_ >= omp_min_)")                      \
      for (i_ = 0; i_ < n_; i_++) {                                      \
        real *g = g0_ + i_;                                              \
        const real *go = go0_ + i_, *r = r0_ + i_;                       \
        CODE                                                             \
      }                                                                  \
    } else {                                                             \
      TH_APPLY3(real, g, GI, const real, go, GO, const real, r, REF, CODE); \
    }                                                                    \
  } while (0)

static int TH_R(pw_forward)(th_nn_pw op, const double *p, th_tensor *dst, const th_tensor *src) {
  const int64_t omp_min_ = pw_costly(op, 0) ? OMP_MIN : OMP_MIN_CHEAP;
  switch (op) {
    case TH_NN_PW_ABS: PW_LOOP2(dst, src, { *y = (real)fabs((double)*x); }); break;
    case TH_NN_PW_HARDTANH: {
      const real lo = (real)p[0], hi = (real)p[1];
      /* as Torch7: a NaN input gives max */
      PW_LOOP2(dst, src, { real a = *x; *y = a < lo ? lo : (a <= hi ? a : hi); });
      break;
    }
    case TH_NN_PW_SOFTSHRINK: {
      const real l = (real)p[0];
      PW_LOOP2(dst, src, { real a = *x; *y = a > l ? a - l : (a < -l ? a + l : 0); });
      break;
    }
    case TH_NN_PW_HARDSHRINK: {
      const real l = (real)p[0];
      PW_LOOP2(dst, src, { real a = *x; *y = (a > l || a < -l) ? a : 0; });
      break;
    }
    case TH_NN_PW_LOGSIGMOID:
      /* -log(1 + e^-x) = -(m + log(e^-m + e^(-x-m))), m = max(0, -x): no overflow */
      PW_LOOP2(dst, src, {
        double a = (double)*x;
        double m = a < 0 ? -a : 0;
        *y = (real)-(m + log(exp(-m) + exp(-a - m)));
      });
      break;
    case TH_NN_PW_SOFTSIGN:
      PW_LOOP2(dst, src, { real a = *x; *y = a / ((real)1 + (real)fabs((double)a)); });
      break;
    case TH_NN_PW_SQRT: PW_LOOP2(dst, src, { *y = (real)sqrt((double)*x); }); break;
    case TH_NN_PW_SQUARE: PW_LOOP2(dst, src, { real a = *x; *y = a * a; }); break;
    case TH_NN_PW_EXP: PW_LOOP2(dst, src, { *y = (real)exp((double)*x); }); break;
    case TH_NN_PW_LOG: PW_LOOP2(dst, src, { *y = (real)log((double)*x); }); break;
    case TH_NN_PW_POWER: {
      const double e = p[0];
      PW_LOOP2(dst, src, { *y = (real)pow((double)*x, e); });
      break;
    }
    default: return th_error_set("unknown pointwise map %d", (int)op);
  }
  return TH_OK;
}

static int TH_R(pw_backward)(th_nn_pw op, const double *p, th_tensor *gi, const th_tensor *go_t,
                             const th_tensor *ref) {
  const int64_t omp_min_ = pw_costly(op, 1) ? OMP_MIN : OMP_MIN_CHEAP;
  switch (op) {
    case TH_NN_PW_ABS: PW_LOOP3(gi, go_t, ref, { real d = *go; *g = *r >= 0 ? d : -d; }); break;
    case TH_NN_PW_HARDTANH: {
      const real lo = (real)p[0], hi = (real)p[1];
      PW_LOOP3(gi, go_t, ref, { real a = *r; *g = (a <= lo || a >= hi) ? 0 : *go; });
      break;
    }
    case TH_NN_PW_SOFTSHRINK:
    case TH_NN_PW_HARDSHRINK: {
      const real l = (real)p[0];
      PW_LOOP3(gi, go_t, ref, { real a = *r; *g = (a > l || a < -l) ? *go : 0; });
      break;
    }
    case TH_NN_PW_LOGSIGMOID:
      /* 1 - sigmoid(x), from whichever exponential cannot overflow */
      PW_LOOP3(gi, go_t, ref, {
        double a = (double)*r;
        double s;
        if (a < 0) {
          s = 1.0 / (1.0 + exp(a));
        } else {
          double e = exp(-a);
          s = e / (1.0 + e);
        }
        *g = (real)((double)*go * s);
      });
      break;
    case TH_NN_PW_SOFTSIGN:
      PW_LOOP3(gi, go_t, ref, {
        real s = (real)1 + (real)fabs((double)*r);
        *g = *go / (s * s);
      });
      break;
    case TH_NN_PW_SQRT:
      /* Torch7's convention: no gradient where the output is 0 */
      PW_LOOP3(gi, go_t, ref, { real y = *r; *g = y == 0 ? 0 : (real)0.5 * (*go / y); });
      break;
    case TH_NN_PW_SQUARE: PW_LOOP3(gi, go_t, ref, { *g = (real)2 * *go * *r; }); break;
    case TH_NN_PW_EXP: PW_LOOP3(gi, go_t, ref, { *g = *go * *r; }); break;
    case TH_NN_PW_LOG: PW_LOOP3(gi, go_t, ref, { *g = ((real)1 / *r) * *go; }); break;
    case TH_NN_PW_POWER: {
      const double e = p[0];
      PW_LOOP3(gi, go_t, ref, { *g = (real)(pow((double)*r, e - 1) * (double)*go * e); });
      break;
    }
    default: return th_error_set("unknown pointwise map %d", (int)op);
  }
  return TH_OK;
}

#undef PW_LOOP2
#undef PW_LOOP3
