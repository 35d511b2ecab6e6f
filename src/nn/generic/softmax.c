/* generic/softmax.c: SoftMax/LogSoftMax for 'real' (included by th_nn_softmax.c);
   all operands contiguous, geometry in 'g'.
   stride 1 (1D, 2D): one distribution per row, rows spread over th_pool.
   stride > 1 (3D, 4D): the distributions of SM_BLOCK neighbouring pixels
   are walked together, feature plane by feature plane, so every inner loop
   runs over contiguous memory instead of jumping 'stride' elements. */

#if defined(TH_REAL_IS_FLOAT)
#define EXP expf
#else
#define EXP exp
#endif

/* one call's operands: forward reads x and writes y; backward reads x
   (gradOutput) and y (output) and writes dx (gradInput) */
typedef struct TH_R(sm_job) {
  const real *x, *y;
  real *dst;
  const sgeom *g;
  int64_t dim, nblk;
  int islog;
} TH_R(sm_job);

/* distributions [0, n) of 'work' elements each, split from SM_PAR_MIN elements */
static void TH_R(sm_run)(TH_R(sm_job) *j, int64_t n, int64_t work,
                         void (*fn)(void *, int64_t, int64_t)) {
  th_pool_ranges(th_nn_threads_over(n * work, SM_PAR_MIN - 1), n, fn, j);
}

static void TH_R(softmax_rows)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(sm_job) *j = arg;
  const int64_t dim = j->dim;
  const int islog = j->islog;
  int64_t k;
  for (k = lo; k < hi; k++) {
    const real *x = j->x + k * dim;
    real *y = j->dst + k * dim;
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

static void TH_R(softmax_planes)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(sm_job) *j = arg;
  const real *in = j->x;
  real *out = j->dst;
  const int64_t dim = j->dim, st = j->g->stride, nblk = j->nblk;
  const int islog = j->islog;
  int64_t k;
  for (k = lo; k < hi; k++) {
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

/* the job of one call; the rows (stride 1) or blocks of pixels to run */
static int64_t TH_R(sm_job_init)(TH_R(sm_job) *j, const real *x, const real *y, real *dst,
                                 const sgeom *g, int islog) {
  j->x = x, j->y = y, j->dst = dst, j->g = g, j->dim = g->dim, j->islog = islog;
  j->nblk = (g->stride + SM_BLOCK - 1) / SM_BLOCK;
  return g->stride == 1 ? g->nframe : g->nframe * j->nblk;
}

static int TH_R(softmax_forward)(const th_tensor *input, th_tensor *output, const sgeom *g,
                                 int islog) {
  TH_R(sm_job) j;
  const int64_t n = TH_R(sm_job_init)(&j, th_tensor_data(input), NULL, th_tensor_data(output), g,
                                      islog);
  if (g->stride == 1)
    TH_R(sm_run)(&j, n, g->dim, TH_R(softmax_rows));
  else
    TH_R(sm_run)(&j, n, SM_BLOCK * g->dim, TH_R(softmax_planes));
  return TH_OK;
}

/* SoftMax: gi = y (go - sum(go y)); LogSoftMax: gi = go - exp(y) sum(go) */
static void TH_R(softmax_rows_backward)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(sm_job) *j = arg;
  const int64_t dim = j->dim;
  const int islog = j->islog;
  int64_t k;
  for (k = lo; k < hi; k++) {
    const real *y = j->y + k * dim, *dy = j->x + k * dim;
    real *dx = j->dst + k * dim;
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

static void TH_R(softmax_planes_backward)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(sm_job) *j = arg;
  const real *go = j->x, *out = j->y;
  real *gi = j->dst;
  const int64_t dim = j->dim, st = j->g->stride, nblk = j->nblk;
  const int islog = j->islog;
  int64_t k;
  for (k = lo; k < hi; k++) {
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
  TH_R(sm_job) j;
  const int64_t n = TH_R(sm_job_init)(&j, th_tensor_data(gradOutput), th_tensor_data(output),
                                      th_tensor_data(gradInput), g, islog);
  if (g->stride == 1)
    TH_R(sm_run)(&j, n, g->dim, TH_R(softmax_rows_backward));
  else
    TH_R(sm_run)(&j, n, SM_BLOCK * g->dim, TH_R(softmax_planes_backward));
  return TH_OK;
}

#undef EXP
