/* generic/linear.c: nn.Linear's BLAS calls for 'real' (included by th_nn_linear.c);
   every operand contiguous (row-major). Results are zeroed and accumulated
   with beta = 1 rather than written with beta = 0, so stale NaNs in a reused
   output never leak through a BLAS that scales by beta. */

#if defined(TH_REAL_IS_FLOAT)
#define GEMM th_sgemm
#define GEMV cblas_sgemv
#define GER cblas_sger
#define AXPY cblas_saxpy
#define COPY cblas_scopy
#else
#define GEMM cblas_dgemm
#define GEMV cblas_dgemv
#define GER cblas_dger
#define AXPY cblas_daxpy
#define COPY cblas_dcopy
#endif

static int TH_R(linear_forward)(const lgeom *g, const th_tensor *x, th_tensor *y,
                                const th_tensor *w, const th_tensor *b, const th_tensor *ones) {
  const real *xd = th_tensor_data(x), *wd = th_tensor_data(w);
  real *yd = th_tensor_data(y);
  const int M = (int)g->B, N = (int)g->out, K = (int)g->in;
  if (!g->batch) {
    /* y = W x (+ b) */
    if (b != NULL) COPY(N, th_tensor_data(b), 1, yd, 1);
    else memset(yd, 0, sizeof(real) * (size_t)N);
    GEMV(CblasRowMajor, CblasNoTrans, N, K, 1, wd, K, xd, 1, 1, yd, 1);
    return TH_OK;
  }
  /* Y (B x out) = rows of b, then Y += X (B x in) W^T. The bias is copied
     here rather than added by a BLAS ger: each (threaded) BLAS call wakes
     OpenBLAS's threads, which costs more than these B x out writes */
  if (b != NULL) {
    const real *bd = th_tensor_data(b);
    int64_t i;
    for (i = 0; i < M; i++) memcpy(yd + i * (int64_t)N, bd, sizeof(real) * (size_t)N);
  } else {
    memset(yd, 0, sizeof(real) * (size_t)M * (size_t)N);
  }
  GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1, xd, K, wd, K, 1, yd, N);
  (void)ones;
  return TH_OK;
}

static int TH_R(linear_backward)(const lgeom *g, const th_tensor *go, th_tensor *gi,
                                 const th_tensor *w) {
  const real *god = th_tensor_data(go), *wd = th_tensor_data(w);
  real *gid = th_tensor_data(gi);
  const int M = (int)g->B, N = (int)g->out, K = (int)g->in;
  if (!g->batch) {
    memset(gid, 0, sizeof(real) * (size_t)K);
    GEMV(CblasRowMajor, CblasTrans, N, K, 1, wd, K, god, 1, 1, gid, 1);
    return TH_OK;
  }
  /* gradInput (B x in) = gradOutput (B x out) W (out x in) */
  memset(gid, 0, sizeof(real) * (size_t)M * (size_t)K);
  GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, K, N, 1, god, N, wd, K, 1, gid, K);
  return TH_OK;
}

static int TH_R(linear_acc)(const lgeom *g, const th_tensor *x, const th_tensor *go,
                            th_tensor *gw, th_tensor *gb, const th_tensor *ones, double scale) {
  const real *xd = th_tensor_data(x), *god = th_tensor_data(go);
  real *gwd = th_tensor_data(gw);
  const int M = (int)g->B, N = (int)g->out, K = (int)g->in;
  const real s = (real)scale;
  if (!g->batch) {
    GER(CblasRowMajor, N, K, s, god, 1, xd, 1, gwd, K);
    if (gb != NULL) AXPY(N, s, god, 1, th_tensor_data(gb), 1);
    return TH_OK;
  }
  /* gradWeight (out x in) += s gradOutput^T (out x B) X (B x in) */
  GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, N, K, M, s, god, N, xd, K, 1, gwd, K);
  /* gradBias += s * (column sums of gradOutput), in a loop for the reason
     given in linear_forward; the sums run in accreal, row by row over
     blocks of LINEAR_SUM_COLS columns, so the loop reads rows in order and
     vectorizes (down each column it took 0.11 ms of a 0.68 ms 64 x 1024
     accGradParameters: one dependent add per element, a cache line each) */
  if (gb != NULL) {
    real *gbd = th_tensor_data(gb);
    accreal sum[LINEAR_SUM_COLS];
    int64_t i, j, j0;
    for (j0 = 0; j0 < N; j0 += LINEAR_SUM_COLS) {
      const int64_t nj = N - j0 < LINEAR_SUM_COLS ? N - j0 : LINEAR_SUM_COLS;
      for (j = 0; j < nj; j++) sum[j] = 0;
      for (i = 0; i < M; i++) {
        const real *row = god + i * (int64_t)N + j0;
        for (j = 0; j < nj; j++) sum[j] += row[j];
      }
      for (j = 0; j < nj; j++) gbd[j0 + j] += (real)(s * sum[j]);
    }
  }
  (void)ones;
  return TH_OK;
}

#undef GEMM
#undef GEMV
#undef GER
#undef AXPY
#undef COPY
