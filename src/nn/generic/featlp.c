/* generic/featlp.c: FeatureLPPooling for 'real' (included by th_nn_featlp.c) */

static int TH_R(featlp_forward)(const th_tensor *input, th_tensor *output, const geom *g,
                                double power, int64_t width, int64_t stride) {
  const real *in = th_tensor_data(input);
  real *out = th_tensor_data(output);
  const int64_t S = g->A * g->C;   /* positions per feature */
  int64_t b;
#pragma omp parallel for if (g->B * g->F * S > TH_NN_PAR_MIN_ELEMS)
  for (b = 0; b < g->B; b++) {
    const real *ib = in + b * g->F * S;
    real *ob = out + b * g->oF * S;
    int64_t f, s, i;
    for (f = 0; f < g->oF; f++)
      for (s = 0; s < S; s++) {
        double v = 0;
        for (i = 0; i < width; i++) v += pow((double)ib[(f * stride + i) * S + s], power);
        ob[f * S + s] = (real)pow(v, 1.0 / power);
      }
  }
  return TH_OK;
}

static int TH_R(featlp_backward)(const th_tensor *gradOutput, const th_tensor *input,
                                 const th_tensor *output, th_tensor *gradInput, const geom *g,
                                 double power, int64_t width, int64_t stride) {
  const real *go = th_tensor_data(gradOutput), *in = th_tensor_data(input);
  const real *out = th_tensor_data(output);
  real *gi = th_tensor_data(gradInput);
  const int64_t S = g->A * g->C;
  int64_t b;
  memset(gi, 0, sizeof(real) * (size_t)(g->B * g->F * S));
#pragma omp parallel for if (g->B * g->F * S > TH_NN_PAR_MIN_ELEMS)
  for (b = 0; b < g->B; b++) {
    const real *ib = in + b * g->F * S, *ob = out + b * g->oF * S, *gb = go + b * g->oF * S;
    real *db = gi + b * g->F * S;
    int64_t f, s, i;
    for (f = 0; f < g->oF; f++)
      for (s = 0; s < S; s++) {
        const real y = ob[f * S + s];
        if (y == (real)0) continue;   /* Torch7: no gradient through a zero output */
        for (i = 0; i < width; i++) {
          const int64_t k = (f * stride + i) * S + s;
          db[k] += (real)(gb[f * S + s] * pow((double)(ib[k] / y), power - 1.0));
        }
      }
  }
  return TH_OK;
}
