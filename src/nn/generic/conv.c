/* generic/conv.c: convolution compute for 'real' (included by th_nn_conv.c).
   A unit of work is tile group u: images [u*G, u*G + nb), nb <= G. With
   G == 1 an image's output rows are cut into tiles that the gemm writes in
   place; with G > 1 the nb images' columns sit side by side (row stride
   nb*N) and the gemm's nOut x nb*N result is scattered to (or the gradient
   gathered from) the images' nOut x N planes. */

#ifdef TH_REAL_IS_FLOAT
#define GEMM th_sgemm
#else
#define GEMM cblas_dgemm
#endif

static int64_t TH_R(conv_unit_images)(const geom *g, int64_t u) {
  int64_t b0 = u * g->G;
  return g->B - b0 < g->G ? g->B - b0 : g->G;
}

/* columns of images b0 .. b0+nb-1, side by side */
static void TH_R(conv_group_cols)(const real *in, int64_t b0, int64_t nb, real *cols,
                                  const geom *g, const th_nn_window *w) {
  const int64_t inS = g->nIn * g->iH * g->iW;
  int64_t j;
  for (j = 0; j < nb; j++)
    TH_R(th_nn_im2col)(in + (b0 + j) * inS, g->nIn, g->iH, g->iW, g->oH, g->oW, w, 0, g->oH,
                       cols + j * g->N, nb * g->N);
}

/* gradOutput planes of images b0 .. b0+nb-1 as one nOut x nb*N matrix */
static void TH_R(conv_group_gather)(const real *go, int64_t b0, int64_t nb, real *dst,
                                    const geom *g) {
  const int64_t outS = g->nOut * g->N, ld = nb * g->N;
  int64_t j, o;
  for (j = 0; j < nb; j++)
    for (o = 0; o < g->nOut; o++)
      memcpy(dst + o * ld + j * g->N, go + (b0 + j) * outS + o * g->N,
             sizeof(real) * (size_t)g->N);
}

/* the output columns [n0, n0 + tn) of every plane = the plane's bias, for
   the gemms to add into. The whole image at once: filling each tile just
   before its gemm (its C then in L2) was 10% slower on a 7x7 stride-2 stem
   (docs/dev/convbig.md) */
static void TH_R(conv_fill_bias)(real *y, const real *bias, int64_t n0, int64_t tn,
                                 const geom *g) {
  int64_t o, n;
  for (o = 0; o < g->nOut; o++) {
    real v = bias[o], *row = y + o * g->N + n0;
    for (n = 0; n < tn; n++) row[n] = v;
  }
}

/* gradInput rows of an unpadded 1x1 kernel (any stride) from the columns
   of output rows [y0, y1): each input element gets at most one term, so
   the input rows [y0 * dH, y1 * dH) (to H for the last tile) are written
   once, zeros between the strided ones, instead of zeroed and then
   accumulated by col2im (two passes over a plane 4 times the output's) */
static void TH_R(conv_scatter_1x1)(const real *col, int64_t ld, real *gi, int64_t y0, int64_t y1,
                                   const geom *g, const th_nn_window *w) {
  const int64_t dH = w->dH, dW = w->dW, r1 = y1 == g->oH ? g->iH : y1 * dH;
  int64_t c, r, x;
  for (c = 0; c < g->nIn; c++) {
    const real *src = col + c * ld - y0 * g->oW;
    real *dst = gi + c * g->iH * g->iW;
    for (r = y0 * dH; r < r1; r++) {
      real *d = dst + r * g->iW;
      const real *sr = src + (r / dH) * g->oW;
      if (r % dH != 0 || r / dH >= y1) {
        memset(d, 0, sizeof(real) * (size_t)g->iW);
      } else if (dW == 1) {
        memcpy(d, sr, sizeof(real) * (size_t)g->oW);
        if (g->iW > g->oW) memset(d + g->oW, 0, sizeof(real) * (size_t)(g->iW - g->oW));
      } else {
        memset(d, 0, sizeof(real) * (size_t)g->iW);
        for (x = 0; x < g->oW; x++) d[x * dW] = sr[x];
      }
    }
  }
}

/* output of unit u = weight * columns + bias */
static void TH_R(conv_forward_unit)(const real *x, real *y, const real *wt, const real *bias,
                                    real *buf, int64_t u, const geom *g,
                                    const th_nn_window *w) {
  const int64_t inS = g->nIn * g->iH * g->iW, outS = g->nOut * g->N;
  real beta = 0;
  int64_t o, n, y0;
  if (g->G > 1) {
    const int64_t b0 = u * g->G, nb = TH_R(conv_unit_images)(g, u), ld = nb * g->N;
    real *cols = buf, *res = buf + g->K * g->tn;
    int64_t j;
    TH_R(conv_group_cols)(x, b0, nb, cols, g, w);
    GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g->nOut, (int)ld, (int)g->K, 1, wt,
         (int)g->K, cols, (int)ld, 0, res, (int)ld);
    for (j = 0; j < nb; j++)
      for (o = 0; o < g->nOut; o++) {
        const real *s = res + o * ld + j * g->N, v = bias ? bias[o] : 0;
        real *d = y + (b0 + j) * outS + o * g->N;
        for (n = 0; n < g->N; n++) d[n] = s[n] + v;
      }
    return;
  }
  x += u * inS;
  y += u * outS;
  if (bias) {
    TH_R(conv_fill_bias)(y, bias, 0, g->N, g);
    beta = 1;
  }
  if (g->direct) {
    GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g->nOut, (int)g->N, (int)g->K, 1, wt,
         (int)g->K, x, (int)g->N, beta, y, (int)g->N);
    return;
  }
  for (y0 = 0; y0 < g->oH; y0 += g->rows) {
    int64_t y1 = y0 + g->rows < g->oH ? y0 + g->rows : g->oH, tn = (y1 - y0) * g->oW;
    TH_R(th_nn_im2col)(x, g->nIn, g->iH, g->iW, g->oH, g->oW, w, y0, y1, buf, tn);
    GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g->nOut, (int)tn, (int)g->K, 1, wt,
         (int)g->K, buf, (int)tn, beta, y + y0 * g->oW, (int)g->N);
  }
}

static void TH_R(conv_backward_input_unit)(const real *go, real *gi, const real *wt, real *buf,
                                           int64_t u, const geom *g, const th_nn_window *w);

/* a th_pool job over units, with the participant's column buffer */
typedef struct TH_R(conv_job) {
  const real *in, *wt, *bs;
  real *out, *buf;
  int64_t bufS;
  const geom *g;
  const th_nn_window *w;
} TH_R(conv_job);

static void TH_R(conv_forward_chunk)(void *arg, int u, int slot) {
  const TH_R(conv_job) *j = arg;
  TH_R(conv_forward_unit)(j->in, j->out, j->wt, j->bs, j->buf ? j->buf + slot * j->bufS : NULL, u,
                          j->g, j->w);
}

static void TH_R(conv_backward_input_chunk)(void *arg, int u, int slot) {
  const TH_R(conv_job) *j = arg;
  TH_R(conv_backward_input_unit)(j->in, j->out, j->wt, j->buf ? j->buf + slot * j->bufS : NULL,
                                 u, j->g, j->w);
}

static int TH_R(conv_forward)(const th_tensor *input, th_tensor *output, const th_tensor *weight,
                              const th_tensor *bias, th_tensor *finput, const geom *g,
                              const th_nn_window *w, int nt) {
  const real *in = th_tensor_data(input), *wt = th_tensor_data(weight);
  const real *bs = bias ? th_tensor_data(bias) : NULL;
  real *out = th_tensor_data(output);
  real *buf = th_tensor_numel(finput) > 0 ? th_tensor_data(finput) : NULL;
  const int64_t bufS = buf ? finput->size[1] : 0;
  int64_t u;
  if (nt <= 1 || g->units > (1 << 20)) {
    for (u = 0; u < g->units; u++) TH_R(conv_forward_unit)(in, out, wt, bs, buf, u, g, w);
    return TH_OK;
  }
  {
    TH_R(conv_job) j;
    int old = th_nn_blas_single_begin();
    j.in = in, j.out = out, j.wt = wt, j.bs = bs, j.buf = buf, j.bufS = bufS, j.g = g, j.w = w;
    th_pool_run_slot(nt, (int)g->units, TH_R(conv_forward_chunk), &j);
    th_nn_blas_single_end(old);
  }
  return TH_OK;
}

/* gradInput of unit u = col2im(weight^T * gradOutput) */
static void TH_R(conv_backward_input_unit)(const real *go, real *gi, const real *wt, real *buf,
                                           int64_t u, const geom *g, const th_nn_window *w) {
  const int64_t inS = g->nIn * g->iH * g->iW, outS = g->nOut * g->N;
  int64_t y0;
  if (g->G > 1) {
    const int64_t b0 = u * g->G, nb = TH_R(conv_unit_images)(g, u), ld = nb * g->N;
    real *cols = buf, *dy = buf + g->K * g->tn;
    int64_t j;
    TH_R(conv_group_gather)(go, b0, nb, dy, g);
    GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g->K, (int)ld, (int)g->nOut, 1, wt,
         (int)g->K, dy, (int)ld, 0, cols, (int)ld);
    if (g->one) {
      for (j = 0; j < nb; j++)
        TH_R(conv_scatter_1x1)(cols + j * g->N, ld, gi + (b0 + j) * inS, 0, g->oH, g, w);
      return;
    }
    memset(gi + b0 * inS, 0, sizeof(real) * (size_t)(nb * inS));
    for (j = 0; j < nb; j++)
      TH_R(th_nn_col2im)(cols + j * g->N, g->nIn, g->iH, g->iW, g->oH, g->oW, w, 0, g->oH,
                         gi + (b0 + j) * inS, ld);
    return;
  }
  go += u * outS;
  gi += u * inS;
  if (g->direct) {
    GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g->K, (int)g->N, (int)g->nOut, 1, wt,
         (int)g->K, go, (int)g->N, 0, gi, (int)g->N);
    return;
  }
  if (!g->one) memset(gi, 0, sizeof(real) * (size_t)inS);
  for (y0 = 0; y0 < g->oH; y0 += g->rows) {
    int64_t y1 = y0 + g->rows < g->oH ? y0 + g->rows : g->oH, tn = (y1 - y0) * g->oW;
    GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g->K, (int)tn, (int)g->nOut, 1, wt,
         (int)g->K, go + y0 * g->oW, (int)g->N, 0, buf, (int)tn);
    if (g->one) TH_R(conv_scatter_1x1)(buf, tn, gi, y0, y1, g, w);
    else TH_R(th_nn_col2im)(buf, g->nIn, g->iH, g->iW, g->oH, g->oW, w, y0, y1, gi, tn);
  }
}

static int TH_R(conv_backward_input)(const th_tensor *gradOutput, th_tensor *gradInput,
                                     const th_tensor *weight, th_tensor *fgradInput,
                                     const geom *g, const th_nn_window *w, int nt) {
  const real *go = th_tensor_data(gradOutput), *wt = th_tensor_data(weight);
  real *gi = th_tensor_data(gradInput);
  real *buf = th_tensor_numel(fgradInput) > 0 ? th_tensor_data(fgradInput) : NULL;
  const int64_t bufS = buf ? fgradInput->size[1] : 0;
  int64_t u;
  if (nt <= 1 || g->units > (1 << 20)) {
    for (u = 0; u < g->units; u++) TH_R(conv_backward_input_unit)(go, gi, wt, buf, u, g, w);
    return TH_OK;
  }
  {
    TH_R(conv_job) j;
    int old = th_nn_blas_single_begin();
    j.in = go, j.out = gi, j.wt = wt, j.bs = NULL, j.buf = buf, j.bufS = bufS, j.g = g, j.w = w;
    th_pool_run_slot(nt, (int)g->units, TH_R(conv_backward_input_chunk), &j);
    th_nn_blas_single_end(old);
  }
  return TH_OK;
}

/* the sum of row[0..n): CONV_SUM_LANES running sums, added pairwise at
   the end; not inlined (a clone called through
   the ifunc), so every caller gets the same order. One running sum (an 'omp simd' reduction) waited on the add's
   latency: gradBias took a sixth of a 7x7 stem's gradWeight call
   (docs/dev/convbig.md) */
#define CONV_SUM_LANES 64
TH_CPU_CLONES static real TH_R(conv_row_sum)(const real *row, int64_t n) {
  real acc[CONV_SUM_LANES];
  int64_t i, k, w;
  for (k = 0; k < CONV_SUM_LANES; k++) acc[k] = 0;
  for (i = 0; i + CONV_SUM_LANES <= n; i += CONV_SUM_LANES)
    for (k = 0; k < CONV_SUM_LANES; k++) acc[k] += row[i + k];
  for (k = 0; i < n; i++, k++) acc[k] += row[i];
  for (w = CONV_SUM_LANES / 2; w > 0; w /= 2)
    for (k = 0; k < w; k++) acc[k] += acc[k + w];
  return acc[0];
}

/* bacc[o] += the sums of gradOutput's planes o of unit u's images, read
   right after the unit's product has read them (from cache, where a pass
   of its own over the batch's gradOutput ran at memory speed) */
static void TH_R(conv_bias_unit)(const real *go, accreal *bacc, int64_t u, const geom *g) {
  const int64_t outS = g->nOut * g->N, b0 = u * g->G, nb = TH_R(conv_unit_images)(g, u);
  int64_t b, o;
  for (b = b0; b < b0 + nb; b++)
    for (o = 0; o < g->nOut; o++) bacc[o] += TH_R(conv_row_sum)(go + b * outS + o * g->N, g->N);
}

/* acc = scale * gradOutput * columns^T of unit u + beta * acc */
static void TH_R(conv_params_unit)(const real *in, const real *go, real *acc, real beta,
                                   real *buf, int64_t u, const geom *g, const th_nn_window *w,
                                   real scale) {
  const int64_t inS = g->nIn * g->iH * g->iW, outS = g->nOut * g->N;
  const real *x = in + u * inS, *dy = go + u * outS;
  int64_t y0;
  if (g->G > 1) {
    const int64_t b0 = u * g->G, nb = TH_R(conv_unit_images)(g, u), ld = nb * g->N;
    real *cols = buf, *dyg = buf + g->K * g->tn;
    TH_R(conv_group_cols)(in, b0, nb, cols, g, w);
    TH_R(conv_group_gather)(go, b0, nb, dyg, g);
    GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g->nOut, (int)g->K, (int)ld, scale, dyg,
         (int)ld, cols, (int)ld, beta, acc, (int)g->K);
    return;
  }
  if (g->direct) {
    GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g->nOut, (int)g->K, (int)g->N, scale, dy,
         (int)g->N, x, (int)g->N, beta, acc, (int)g->K);
    return;
  }
  for (y0 = 0; y0 < g->oH; y0 += g->rows) {
    int64_t y1 = y0 + g->rows < g->oH ? y0 + g->rows : g->oH, tn = (y1 - y0) * g->oW;
    TH_R(th_nn_im2col)(x, g->nIn, g->iH, g->iW, g->oH, g->oW, w, y0, y1, buf, tn);
    GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g->nOut, (int)g->K, (int)tn, scale,
         dy + y0 * g->oW, (int)g->N, buf, (int)tn, beta, acc, (int)g->K);
    beta = 1;
  }
}

/* each thread accumulates scale * gradOutput * columns^T over the units it
   takes into 'acc' (gradWeight itself for thread 0, else its partial) and,
   with 'bacc', its units' gradOutput plane sums into bacc. Thread t takes
   units t, t + nt, ...: a fixed split, so the sums (and the gradients) are
   the same from run to run */
static void TH_R(conv_backward_params_thread)(const real *in, const real *go, real *acc,
                                              real beta0, real *buf, accreal *bacc,
                                              const geom *g, const th_nn_window *w, real scale,
                                              int t, int nt) {
  real beta = beta0;
  int64_t u;
  if (bacc) memset(bacc, 0, sizeof(accreal) * (size_t)g->nOut);
  for (u = t; u < g->units; u += nt) {
    TH_R(conv_params_unit)(in, go, acc, beta, buf, u, g, w, scale);
    beta = 1;
    if (bacc) TH_R(conv_bias_unit)(go, bacc, u, g);
  }
  if (beta == 0) memset(acc, 0, sizeof(real) * (size_t)(g->nOut * g->K));
}

/* share t of conv_backward_params_thread's fixed split, with scratch row t
   (whichever thread runs it) */
typedef struct TH_R(params_job) {
  const real *in, *go;
  real *gw, *parts, *buf;
  accreal *bacc;
  int64_t rowS, nw;
  const geom *g;
  const th_nn_window *w;
  real scale;
  int nt;
} TH_R(params_job);

static void TH_R(params_share)(void *arg, int t) {
  const TH_R(params_job) *j = arg;
  TH_R(conv_backward_params_thread)(j->in, j->go, t == 0 ? j->gw : j->parts + t * j->nw,
                                    t == 0 ? 1 : 0, j->buf + t * j->rowS,
                                    j->bacc ? j->bacc + t * j->g->nOut : NULL, j->g, j->w,
                                    j->scale, t, j->nt);
}

/* gb[o] += scale * the sum of gradOutput's plane o over the batch */
typedef struct TH_R(bias_job) {
  const real *go;
  real *gb;
  const geom *g;
  double scale;
} TH_R(bias_job);

static void TH_R(conv_bias_plane)(void *arg, int64_t o) {
  const TH_R(bias_job) *j = arg;
  const geom *g = j->g;
  const int64_t outS = g->nOut * g->N;
  accreal s = 0;
  int64_t b;
  for (b = 0; b < g->B; b++) s += TH_R(conv_row_sum)(j->go + b * outS + o * g->N, g->N);
  j->gb[o] += (real)(j->scale * s);
}

static void TH_R(conv_bias_grad)(const real *go, real *gb, const geom *g, double scale) {
  TH_R(bias_job) j;
  j.go = go, j.gb = gb, j.g = g, j.scale = scale;
  th_pool_for(th_nn_threads_over(g->B * g->nOut * g->N, TH_NN_PAR_MIN_ELEMS), g->nOut,
              TH_R(conv_bias_plane), &j);
}

static int TH_R(conv_backward_params)(const th_tensor *input, const th_tensor *gradOutput,
                                      th_tensor *gradWeight, th_tensor *gradBias,
                                      th_tensor *fgradInput, const geom *g,
                                      const th_nn_window *w, int nt, double scale, int64_t rows,
                                      int64_t rowS) {
  const real *in = th_tensor_data(input), *go = th_tensor_data(gradOutput);
  real *gw = th_tensor_data(gradWeight), *buf = th_tensor_data(fgradInput);
  /* thread t's scratch at t * rowS; its partial gradWeight (t > 0) after
     the rows; then, with a gradBias, nt accreal plane sums (from an even
     element: a float scratch holds them in pairs) */
  const int64_t nw = g->nOut * g->K, bat = (rows * rowS + (rows - 1) * nw + 1) / 2 * 2;
  real *parts = buf + rows * rowS - nw;
  accreal *bacc = gradBias ? (accreal *)(void *)(buf + bat) : NULL;
  int64_t o;
  if (nt <= 1) {
    TH_R(conv_backward_params_thread)(in, go, gw, 1, buf, bacc, g, w, (real)scale, 0, 1);
  } else {
    int old = th_nn_blas_single_begin();
    int64_t k;
    TH_R(params_job) j;
    j.in = in, j.go = go, j.gw = gw, j.parts = parts, j.buf = buf, j.bacc = bacc;
    j.rowS = rowS, j.nw = nw;
    j.g = g, j.w = w, j.scale = (real)scale, j.nt = nt;
    th_pool_run(nt, nt, TH_R(params_share), &j);
    th_nn_blas_single_end(old);
    for (o = 1; o < nt; o++) {
      const real *p = parts + o * nw;
      for (k = 0; k < nw; k++) gw[k] += p[k];
    }
  }
  if (gradBias) {
    /* the threads' plane sums in thread order: the same from run to run */
    real *gb = th_tensor_data(gradBias);
    int t, nb = nt <= 1 ? 1 : nt;
    for (o = 0; o < g->nOut; o++) {
      accreal s = 0;
      for (t = 0; t < nb; t++) s += bacc[t * g->nOut + o];
      gb[o] += (real)(scale * s);
    }
  }
  return TH_OK;
}

/* the Winograd path's gradBias */
static int TH_R(conv_bias_only)(const th_tensor *gradOutput, th_tensor *gradBias, const geom *g,
                                double scale) {
  TH_R(conv_bias_grad)(th_tensor_data(gradOutput), th_tensor_data(gradBias), g, scale);
  return TH_OK;
}

#undef GEMM
