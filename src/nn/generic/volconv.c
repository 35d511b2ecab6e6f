/* generic/volconv.c: the lowerings of th_nn_volconv.c for 'real' */

#ifdef TH_REAL_IS_FLOAT
#define GEMM th_sgemm
#else
#define GEMM cblas_dgemm
#endif

/* Y = Wm * vol2col(X) [+ bias per Y plane], image by image */
static int TH_R(vc_forward)(const th_tensor *xt, th_tensor *yt, const th_tensor *wt,
                            const th_tensor *bias, th_tensor *buft, const geom *g,
                            const th_nn_vol *v) {
  const real *x = th_tensor_data(xt), *wm = th_tensor_data(wt);
  const real *bs = bias ? th_tensor_data(bias) : NULL;
  real *y = th_tensor_data(yt), *buf = th_tensor_data(buft);
  const int64_t xS = g->Cx * g->Tx * g->Hx * g->Wx, yS = g->Cy * g->N;
  int64_t b, o, n, t0;
  for (b = 0; b < g->B; b++) {
    const real *xb = x + b * xS;
    real *yb = y + b * yS, beta = 0;
    if (bs) {
      for (o = 0; o < g->Cy; o++)
        for (n = 0; n < g->N; n++) yb[o * g->N + n] = bs[o];
      beta = 1;
    }
    for (t0 = 0; t0 < g->Ty; t0 += g->rows) {
      int64_t t1 = t0 + g->rows < g->Ty ? t0 + g->rows : g->Ty, tn = (t1 - t0) * g->S;
      TH_R(th_nn_vol2col)(xb, g->Cx, g->Tx, g->Hx, g->Wx, g->Ty, g->Hy, g->Wy, v, t0, t1, buf,
                          tn);
      GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g->Cy, (int)tn, (int)g->K, 1, wm,
           (int)g->K, buf, (int)tn, beta, yb + t0 * g->S, (int)g->N);
    }
  }
  return TH_OK;
}

/* X = col2vol(Wm^T * Y) [+ bias per X plane], image by image */
static int TH_R(vc_backward)(const th_tensor *yt, th_tensor *xt, const th_tensor *wt,
                             const th_tensor *bias, th_tensor *buft, const geom *g,
                             const th_nn_vol *v) {
  const real *y = th_tensor_data(yt), *wm = th_tensor_data(wt);
  const real *bs = bias ? th_tensor_data(bias) : NULL;
  real *x = th_tensor_data(xt), *buf = th_tensor_data(buft);
  const int64_t xP = g->Tx * g->Hx * g->Wx, xS = g->Cx * xP, yS = g->Cy * g->N;
  int64_t b, c, n, t0;
  for (b = 0; b < g->B; b++) {
    const real *yb = y + b * yS;
    real *xb = x + b * xS;
    if (bs) {
      for (c = 0; c < g->Cx; c++)
        for (n = 0; n < xP; n++) xb[c * xP + n] = bs[c];
    } else {
      memset(xb, 0, sizeof(real) * (size_t)xS);
    }
    for (t0 = 0; t0 < g->Ty; t0 += g->rows) {
      int64_t t1 = t0 + g->rows < g->Ty ? t0 + g->rows : g->Ty, tn = (t1 - t0) * g->S;
      GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g->K, (int)tn, (int)g->Cy, 1, wm,
           (int)g->K, yb + t0 * g->S, (int)g->N, 0, buf, (int)tn);
      TH_R(th_nn_col2vol)(buf, g->Cx, g->Tx, g->Hx, g->Wx, g->Ty, g->Hy, g->Wy, v, t0, t1, xb,
                          tn);
    }
  }
  return TH_OK;
}

/* gradWm += scale * Y * vol2col(X)^T; gradBias += scale * plane sums of
   gradOutput (the Y side of a convolution, the X side of a full one) */
static int TH_R(vc_accum)(const th_tensor *xt, const th_tensor *yt, th_tensor *gwt,
                          th_tensor *gbt, const th_tensor *got, th_tensor *buft, const geom *g,
                          const th_nn_vol *v, int full, double scale) {
  const real *x = th_tensor_data(xt), *y = th_tensor_data(yt), *go = th_tensor_data(got);
  real *gw = th_tensor_data(gwt), *buf = th_tensor_data(buft);
  const int64_t xS = g->Cx * g->Tx * g->Hx * g->Wx, yS = g->Cy * g->N;
  int64_t b, t0;
  for (b = 0; b < g->B; b++) {
    for (t0 = 0; t0 < g->Ty; t0 += g->rows) {
      int64_t t1 = t0 + g->rows < g->Ty ? t0 + g->rows : g->Ty, tn = (t1 - t0) * g->S;
      TH_R(th_nn_vol2col)(x + b * xS, g->Cx, g->Tx, g->Hx, g->Wx, g->Ty, g->Hy, g->Wy, v, t0,
                          t1, buf, tn);
      GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g->Cy, (int)g->K, (int)tn, (real)scale,
           y + b * yS + t0 * g->S, (int)g->N, buf, (int)tn, 1, gw, (int)g->K);
    }
  }
  if (gbt) {
    real *gb = th_tensor_data(gbt);
    const int64_t C = full ? g->Cx : g->Cy, P = full ? g->Tx * g->Hx * g->Wx : g->N;
    int64_t c, n;
    for (c = 0; c < C; c++) {
      accreal s = 0;
      for (b = 0; b < g->B; b++) {
        const real *p = go + (b * C + c) * P;
        for (n = 0; n < P; n++) s += p[n];
      }
      gb[c] += (real)(scale * s);
    }
  }
  return TH_OK;
}

#undef GEMM
