/* generic/rrelu.c: RReLU for 'real' (included by th_nn_rrelu.c). 'dst' may
   be the input (in place): each element is read before it is written. */

/* noise NULL: evaluation (mean slope); else training, one draw per x <= 0 */
static int TH_R(rrelu_forward)(const th_tensor *input, th_tensor *dst, th_tensor *noise,
                               double lower, double upper, th_generator *gen) {
  if (noise == NULL) {
    const real slope = (real)((lower + upper) / 2);
    TH_APPLY2(real, y, dst, const real, x, input, {
      real a = *x;
      *y = a <= 0 ? a * slope : a;
    });
    return TH_OK;
  }
  TH_APPLY3(real, y, dst, const real, x, input, real, n, noise, {
    real a = *x;
    if (a <= 0) {
      const real r = (real)th_random_uniform(gen, lower, upper);
      *y = a * r;
      *n = r;
    } else {
      *y = a;
      *n = 1;
    }
  });
  return TH_OK;
}

/* noise NULL: the mean slope where the input is <= 0; else times the noise */
static int TH_R(rrelu_backward)(const th_tensor *input, const th_tensor *gradOutput,
                                th_tensor *dst, const th_tensor *noise, double lower,
                                double upper) {
  if (noise == NULL) {
    const real slope = (real)((lower + upper) / 2);
    TH_APPLY3(real, g, dst, const real, go, gradOutput, const real, x, input, {
      real d = *go;
      *g = *x <= 0 ? d * slope : d;
    });
    return TH_OK;
  }
  TH_APPLY3(real, g, dst, const real, go, gradOutput, const real, n, noise, { *g = *go * *n; });
  return TH_OK;
}
