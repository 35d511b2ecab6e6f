/* generic/softmax.c: SoftMax/LogSoftMax for 'real' (included by th_nn_softmax.c);
   all operands contiguous, geometry in 'g'.
   stride 1 (1D, 2D): one distribution per row, rows spread over threads.
   stride > 1 (3D, 4D): the distributions of SM_BLOCK neighbouring pixels
   are walked together, feature plane by feature plane, so every inner loop
   runs over contiguous memory instead of jumping 'stride' elements. */

#if defined(TH_REAL_IS_FLOAT)
#define EXP expf
#else
#define EXP exp
#endif

static void TH_R(softmax_rows)(const real *in, real *out, int64_t nrow, int64_t dim, int islog) {
  int64_t k;
#pragma omp parallel for if (nrow * dim >= OMP_MIN)
  for (k = 0; k < nrow; k++) {
    const real *x = in + k * dim;
    real *y = out + k * dim;
    real mx = x[0];
    accreal sum = 0;
    int64_t d;
    for (d = 1; d < dim; d++)
      if (x[d] > mx || x[d] != x[d]) mx = x[d];
    if (islog) {
      real lse;
      for (d = 0; d < dim; d++) sum += EXP(x[d] - mx);
      lse = mx + (real)log(sum);
      for (d = 0; d < dim; d++) y[d] = x[d] - lse;
    } else {
      for (d = 0; d < dim; d++) {
        real e = EXP(x[d] - mx);
        y[d] = e;
        sum += e;
      }
      for (d = 0; d < dim; d++) y[d] = (real)(y[d] / sum);
    }
  }
}

static void TH_R(softmax_planes)(const real *in, real *out, const sgeom *g, int islog) {
  const int64_t dim = g->dim, st = g->stride;
  const int64_t nblk = (st + SM_BLOCK - 1) / SM_BLOCK, total = g->nframe * nblk;
  int64_t k;
#pragma omp parallel for if (total * SM_BLOCK * dim >= OMP_MIN)
  for (k = 0; k < total; k++) {
    const int64_t s0 = (k % nblk) * SM_BLOCK, base = (k / nblk) * dim * st + s0;
    const int64_t len = st - s0 < SM_BLOCK ? st - s0 : SM_BLOCK;
    const real *x = in + base;
    real *y = out + base;
    real mx[SM_BLOCK];
    accreal sum[SM_BLOCK];
    int64_t d, s;
    for (s = 0; s < len; s++) mx[s] = x[s], sum[s] = 0;
    for (d = 1; d < dim; d++) {
      const real *xr = x + d * st;
      for (s = 0; s < len; s++)
        if (xr[s] > mx[s] || xr[s] != xr[s]) mx[s] = xr[s];
    }
    for (d = 0; d < dim; d++) {
      const real *xr = x + d * st;
      real *yr = y + d * st;
      for (s = 0; s < len; s++) {
        real e = EXP(xr[s] - mx[s]);
        if (!islog) yr[s] = e;
        sum[s] += e;
      }
    }
    if (islog) {
      for (s = 0; s < len; s++) mx[s] += (real)log(sum[s]);  /* now log-sum-exp */
      for (d = 0; d < dim; d++)
        for (s = 0; s < len; s++) y[d * st + s] = x[d * st + s] - mx[s];
    } else {
      for (d = 0; d < dim; d++)
        for (s = 0; s < len; s++) y[d * st + s] = (real)(y[d * st + s] / sum[s]);
    }
  }
}

static int TH_R(softmax_forward)(const th_tensor *input, th_tensor *output, const sgeom *g,
                                 int islog) {
  const real *in = th_tensor_data(input);
  real *out = th_tensor_data(output);
  if (g->stride == 1)
    TH_R(softmax_rows)(in, out, g->nframe, g->dim, islog);
  else
    TH_R(softmax_planes)(in, out, g, islog);
  return TH_OK;
}

/* SoftMax: gi = y (go - sum(go y)); LogSoftMax: gi = go - exp(y) sum(go) */
static void TH_R(softmax_rows_backward)(const real *go, real *gi, const real *out, int64_t nrow,
                                        int64_t dim, int islog) {
  int64_t k;
#pragma omp parallel for if (nrow * dim >= OMP_MIN)
  for (k = 0; k < nrow; k++) {
    const real *y = out + k * dim, *dy = go + k * dim;
    real *dx = gi + k * dim;
    accreal sum = 0;
    int64_t d;
    if (islog) {
      for (d = 0; d < dim; d++) sum += dy[d];
      for (d = 0; d < dim; d++) dx[d] = (real)(dy[d] - EXP(y[d]) * sum);
    } else {
      for (d = 0; d < dim; d++) sum += (accreal)dy[d] * y[d];
      for (d = 0; d < dim; d++) dx[d] = (real)(y[d] * (dy[d] - sum));
    }
  }
}

static void TH_R(softmax_planes_backward)(const real *go, real *gi, const real *out,
                                          const sgeom *g, int islog) {
  const int64_t dim = g->dim, st = g->stride;
  const int64_t nblk = (st + SM_BLOCK - 1) / SM_BLOCK, total = g->nframe * nblk;
  int64_t k;
#pragma omp parallel for if (total * SM_BLOCK * dim >= OMP_MIN)
  for (k = 0; k < total; k++) {
    const int64_t s0 = (k % nblk) * SM_BLOCK, base = (k / nblk) * dim * st + s0;
    const int64_t len = st - s0 < SM_BLOCK ? st - s0 : SM_BLOCK;
    const real *y = out + base, *dy = go + base;
    real *dx = gi + base;
    accreal sum[SM_BLOCK];
    int64_t d, s;
    for (s = 0; s < len; s++) sum[s] = 0;
    if (islog) {
      for (d = 0; d < dim; d++)
        for (s = 0; s < len; s++) sum[s] += dy[d * st + s];
      for (d = 0; d < dim; d++)
        for (s = 0; s < len; s++)
          dx[d * st + s] = (real)(dy[d * st + s] - EXP(y[d * st + s]) * sum[s]);
    } else {
      for (d = 0; d < dim; d++)
        for (s = 0; s < len; s++) sum[s] += (accreal)dy[d * st + s] * y[d * st + s];
      for (d = 0; d < dim; d++)
        for (s = 0; s < len; s++)
          dx[d * st + s] = (real)(y[d * st + s] * (dy[d * st + s] - sum[s]));
    }
  }
}

static int TH_R(softmax_backward)(const th_tensor *gradOutput, th_tensor *gradInput,
                                  const th_tensor *output, const sgeom *g, int islog) {
  const real *go = th_tensor_data(gradOutput), *out = th_tensor_data(output);
  real *gi = th_tensor_data(gradInput);
  if (g->stride == 1)
    TH_R(softmax_rows_backward)(go, gi, out, g->nframe, g->dim, islog);
  else
    TH_R(softmax_planes_backward)(go, gi, out, g, islog);
  return TH_OK;
}

#undef EXP
