/* generic/lrn.c: cross-map LRN for 'real' (included by th_nn_lrn.c) */

static int TH_R(lrn_forward)(const th_tensor *input, th_tensor *output, th_tensor *scale,
                             const geom *g, double coef, double beta, double k) {
  const real *in = th_tensor_data(input);
  real *out = th_tensor_data(output), *sc = th_tensor_data(scale);
  const int64_t CP = g->C * g->P;
  int64_t b;
#pragma omp parallel for if (g->N * CP > TH_NN_PAR_MIN_ELEMS)
  for (b = 0; b < g->N; b++) {
    const real *x = in + b * CP;
    real *y = out + b * CP, *s = sc + b * CP;
    int64_t c, j, p;
    for (c = 0; c < g->C; c++) {
      int64_t lo = c - g->pre < 0 ? 0 : c - g->pre;
      int64_t hi = c + g->post >= g->C ? g->C - 1 : c + g->post;
      real *sr = s + c * g->P;
      for (p = 0; p < g->P; p++) sr[p] = 0;
      for (j = lo; j <= hi; j++) {
        const real *xr = x + j * g->P;
        for (p = 0; p < g->P; p++) sr[p] += xr[p] * xr[p];
      }
      for (p = 0; p < g->P; p++) {
        sr[p] = (real)(k + coef * sr[p]);
        y[c * g->P + p] = (real)(x[c * g->P + p] * pow(sr[p], -beta));
      }
    }
  }
  return TH_OK;
}

/* gradInput[c] = gradOutput[c] * scale[c]^-beta
                  - 2 alpha beta / size * input[c] * sum_{j = c-post .. c+pre} ratio[j],
   ratio = gradOutput * output / scale */
static int TH_R(lrn_backward)(const th_tensor *input, const th_tensor *gradOutput,
                              th_tensor *gradInput, const th_tensor *scale,
                              const th_tensor *output, th_tensor *ratio, const geom *g,
                              double coef, double beta, int nt) {
  const real *in = th_tensor_data(input), *go = th_tensor_data(gradOutput);
  const real *sc = th_tensor_data(scale), *out = th_tensor_data(output);
  real *gi = th_tensor_data(gradInput), *rb = th_tensor_data(ratio);
  const int64_t CP = g->C * g->P;
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    int t = 0;
    int64_t b;
#ifdef _OPENMP
    t = omp_get_thread_num();
#endif
#pragma omp for schedule(dynamic, 1)
    for (b = 0; b < g->N; b++) {
      const real *x = in + b * CP, *dy = go + b * CP, *s = sc + b * CP, *y = out + b * CP;
      real *dx = gi + b * CP, *r = rb + t * (CP + g->P), *acc = r + CP;
      int64_t c, j, p;
      for (p = 0; p < CP; p++) r[p] = dy[p] * y[p] / s[p];
      for (c = 0; c < g->C; c++) {
        int64_t lo = c - g->post < 0 ? 0 : c - g->post;
        int64_t hi = c + g->pre >= g->C ? g->C - 1 : c + g->pre;
        const int64_t o = c * g->P;
        for (p = 0; p < g->P; p++) acc[p] = 0;
        for (j = lo; j <= hi; j++) {
          const real *rr = r + j * g->P;
          for (p = 0; p < g->P; p++) acc[p] += rr[p];
        }
        for (p = 0; p < g->P; p++)
          dx[o + p] = (real)(dy[o + p] * pow(s[o + p], -beta) - coef * x[o + p] * acc[p]);
      }
    }
  }
  return TH_OK;
}
