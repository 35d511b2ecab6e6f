/* generic/softmax.c: SoftMax/LogSoftMax for 'real' (included by th_nn_softmax.c);
   all operands contiguous, geometry in 'g' */

#if defined(TH_REAL_IS_FLOAT)
#define EXP expf
#else
#define EXP exp
#endif

static int TH_R(softmax_forward)(const th_tensor *input, th_tensor *output, const sgeom *g,
                                 int islog) {
  const real *in = th_tensor_data(input);
  real *out = th_tensor_data(output);
  const int64_t dim = g->dim, st = g->stride, n = g->nframe * st;
  int64_t k;
#pragma omp parallel for if (n * dim >= OMP_MIN)
  for (k = 0; k < n; k++) {
    const int64_t base = (k / st) * dim * st + k % st;
    const real *x = in + base;
    real *y = out + base;
    real mx = x[0];
    accreal sum = 0;
    int64_t d;
    for (d = 1; d < dim; d++)
      if (x[d * st] > mx || x[d * st] != x[d * st]) mx = x[d * st];
    if (islog) {
      real lse;
      for (d = 0; d < dim; d++) sum += EXP(x[d * st] - mx);
      lse = mx + (real)log(sum);
      for (d = 0; d < dim; d++) y[d * st] = x[d * st] - lse;
    } else {
      for (d = 0; d < dim; d++) {
        real e = EXP(x[d * st] - mx);
        y[d * st] = e;
        sum += e;
      }
      for (d = 0; d < dim; d++) y[d * st] = (real)(y[d * st] / sum);
    }
  }
  return TH_OK;
}

static int TH_R(softmax_backward)(const th_tensor *gradOutput, th_tensor *gradInput,
                                  const th_tensor *output, const sgeom *g, int islog) {
  const real *go = th_tensor_data(gradOutput), *out = th_tensor_data(output);
  real *gi = th_tensor_data(gradInput);
  const int64_t dim = g->dim, st = g->stride, n = g->nframe * st;
  int64_t k;
#pragma omp parallel for if (n * dim >= OMP_MIN)
  for (k = 0; k < n; k++) {
    const int64_t base = (k / st) * dim * st + k % st;
    const real *y = out + base, *dy = go + base;
    real *dx = gi + base;
    accreal sum = 0;
    int64_t d;
    if (islog) {
      for (d = 0; d < dim; d++) sum += dy[d * st];
      for (d = 0; d < dim; d++) dx[d * st] = (real)(dy[d * st] - EXP(y[d * st]) * sum);
    } else {
      for (d = 0; d < dim; d++) sum += (accreal)dy[d * st] * y[d * st];
      for (d = 0; d < dim; d++) dx[d * st] = (real)(y[d * st] * (dy[d * st] - sum));
    }
  }
  return TH_OK;
}

#undef EXP
