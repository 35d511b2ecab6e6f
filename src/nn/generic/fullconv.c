/* generic/fullconv.c: full convolution compute for 'real' (included by th_nn_fullconv.c) */

#ifdef TH_REAL_IS_FLOAT
#define GEMM th_sgemm
#else
#define GEMM cblas_dgemm
#endif

/* one call's operands for th_pool's chunks: images (forward: input to
   output; gradInput: gradOutput 'in' to gradInput 'out') or the fixed
   shares of the gradWeight sum (input, gradOutput 'go' into 'out') */
typedef struct TH_R(fc_job) {
  const real *in, *go, *wt, *bs;
  real *out, *buf;
  int64_t bufS, rowS;
  const geom *g;
  const th_nn_window *w;
  real scale;
  int nt;
} TH_R(fc_job);

/* output[b] = col2im(weight^T * input[b]) + bias; the output plays the
   image and the input grid the convolution's output grid */
static void TH_R(fullconv_forward_image)(const real *x, real *y, const real *wt,
                                         const real *bias, real *cols, const geom *g,
                                         const th_nn_window *w) {
  const int64_t P = g->oH * g->oW;
  int64_t o, n;
  if (g->direct) {
    GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g->K, (int)g->N, (int)g->nIn, 1, wt,
         (int)g->K, x, (int)g->N, 0, y, (int)g->N);
  } else {
    GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g->K, (int)g->N, (int)g->nIn, 1, wt,
         (int)g->K, x, (int)g->N, 0, cols, (int)g->N);
    memset(y, 0, sizeof(real) * (size_t)(g->nOut * P));
    TH_R(th_nn_col2im)(cols, g->nOut, g->oH, g->oW, g->iH, g->iW, w, 0, g->iH, y, g->iH * g->iW);
  }
  if (bias) {
    for (o = 0; o < g->nOut; o++) {
      real v = bias[o], *row = y + o * P;
      for (n = 0; n < P; n++) row[n] += v;
    }
  }
}

static void TH_R(fullconv_forward_chunk)(void *arg, int i, int slot) {
  const TH_R(fc_job) *j = arg;
  const geom *g = j->g;
  TH_R(fullconv_forward_image)(j->in + i * g->nIn * g->N, j->out + i * g->nOut * g->oH * g->oW,
                               j->wt, j->bs, j->buf ? j->buf + slot * j->bufS : NULL, g, j->w);
}

static int TH_R(fullconv_forward)(const th_tensor *input, th_tensor *output,
                                  const th_tensor *weight, const th_tensor *bias,
                                  th_tensor *finput, const geom *g, const th_nn_window *w,
                                  int nt) {
  const real *in = th_tensor_data(input), *wt = th_tensor_data(weight);
  const real *bs = bias ? th_tensor_data(bias) : NULL;
  real *out = th_tensor_data(output), *cols = g->direct ? NULL : th_tensor_data(finput);
  const int64_t inS = g->nIn * g->N, outS = g->nOut * g->oH * g->oW, colS = g->K * g->N;
  int64_t b;
  if (nt <= 1) {
    for (b = 0; b < g->B; b++)
      TH_R(fullconv_forward_image)(in + b * inS, out + b * outS, wt, bs, cols, g, w);
    return TH_OK;
  }
  {
    TH_R(fc_job) j;
    int old = th_nn_blas_single_begin();
    j.in = in, j.wt = wt, j.bs = bs, j.out = out, j.buf = cols, j.bufS = colS, j.g = g, j.w = w;
    th_pool_run_slot(nt, (int)g->B, TH_R(fullconv_forward_chunk), &j);
    th_nn_blas_single_end(old);
  }
  return TH_OK;
}

/* gradInput[b] = weight * im2col(gradOutput[b]) */
static void TH_R(fullconv_backward_input_image)(const real *go, real *gi, const real *wt,
                                                real *cols, const geom *g,
                                                const th_nn_window *w) {
  const real *m = go;
  if (!g->direct) {
    TH_R(th_nn_im2col)(go, g->nOut, g->oH, g->oW, g->iH, g->iW, w, 0, g->iH, cols, g->iH * g->iW);
    m = cols;
  }
  GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g->nIn, (int)g->N, (int)g->K, 1, wt,
       (int)g->K, m, (int)g->N, 0, gi, (int)g->N);
}

static void TH_R(fullconv_backward_input_chunk)(void *arg, int i, int slot) {
  const TH_R(fc_job) *j = arg;
  const geom *g = j->g;
  TH_R(fullconv_backward_input_image)(j->in + i * g->nOut * g->oH * g->oW, j->out + i * g->nIn * g->N,
                                      j->wt, j->buf ? j->buf + slot * j->bufS : NULL, g, j->w);
}

static int TH_R(fullconv_backward_input)(const th_tensor *gradOutput, th_tensor *gradInput,
                                         const th_tensor *weight, th_tensor *fgradInput,
                                         const geom *g, const th_nn_window *w, int nt) {
  const real *go = th_tensor_data(gradOutput), *wt = th_tensor_data(weight);
  real *gi = th_tensor_data(gradInput), *cols = g->direct ? NULL : th_tensor_data(fgradInput);
  const int64_t inS = g->nIn * g->N, outS = g->nOut * g->oH * g->oW, colS = g->K * g->N;
  int64_t b;
  if (nt <= 1) {
    for (b = 0; b < g->B; b++)
      TH_R(fullconv_backward_input_image)(go + b * outS, gi + b * inS, wt, cols, g, w);
    return TH_OK;
  }
  {
    TH_R(fc_job) j;
    int old = th_nn_blas_single_begin();
    j.in = go, j.wt = wt, j.out = gi, j.buf = cols, j.bufS = colS, j.g = g, j.w = w;
    th_pool_run_slot(nt, (int)g->B, TH_R(fullconv_backward_input_chunk), &j);
    th_nn_blas_single_end(old);
  }
  return TH_OK;
}

/* thread t of nt: acc += scale * input[b] * im2col(gradOutput[b])^T over
   images t, t + nt, ...: a fixed split, so the gradients are the same from
   run to run */
static void TH_R(fullconv_backward_params_thread)(const real *in, const real *go, real *acc,
                                                  real beta0, real *cols, const geom *g,
                                                  const th_nn_window *w, real scale,
                                                  int t, int nt) {
  const int64_t inS = g->nIn * g->N, outS = g->nOut * g->oH * g->oW;
  real beta = beta0;
  int64_t i;
  for (i = t; i < g->B; i += nt) {
    const real *m = go + i * outS;
    if (!g->direct) {
      TH_R(th_nn_im2col)(m, g->nOut, g->oH, g->oW, g->iH, g->iW, w, 0, g->iH, cols, g->iH * g->iW);
      m = cols;
    }
    GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g->nIn, (int)g->K, (int)g->N, scale,
         in + i * inS, (int)g->N, m, (int)g->N, beta, acc, (int)g->K);
    beta = 1;
  }
  if (beta == 0) memset(acc, 0, sizeof(real) * (size_t)(g->nIn * g->K));
}

/* share t of nt: into gradWeight (t = 0) or the t-th partial sum */
static void TH_R(fullconv_params_share)(void *arg, int t) {
  const TH_R(fc_job) *j = arg;
  real *row = j->buf + t * j->rowS;
  TH_R(fullconv_backward_params_thread)(j->in, j->go, t == 0 ? j->out : row + j->bufS, t == 0 ? 1 : 0,
                                        row, j->g, j->w, j->scale, t, j->nt);
}

typedef struct TH_R(fcbias_job) {
  const real *go;
  real *gb;
  const geom *g;
  double scale;
} TH_R(fcbias_job);

/* gradBias of output plane o */
static void TH_R(fullconv_bias_plane)(void *arg, int64_t o) {
  const TH_R(fcbias_job) *j = arg;
  const geom *g = j->g;
  const int64_t P = g->oH * g->oW, outS = g->nOut * P;
  accreal s = 0;
  int64_t b, n;
  for (b = 0; b < g->B; b++) {
    const real *row = j->go + b * outS + o * P;
    real rs = 0;
    for (n = 0; n < P; n++) rs += row[n];
    s += rs;
  }
  j->gb[o] += (real)(j->scale * s);
}

static int TH_R(fullconv_backward_params)(const th_tensor *input, const th_tensor *gradOutput,
                                          th_tensor *gradWeight, th_tensor *gradBias,
                                          th_tensor *fgradInput, const geom *g,
                                          const th_nn_window *w, int nt, double scale) {
  const real *in = th_tensor_data(input), *go = th_tensor_data(gradOutput);
  real *gw = th_tensor_data(gradWeight), *buf = th_tensor_data(fgradInput);
  const int64_t colS = g->direct ? 0 : g->K * g->N, rowS = colS + g->nIn * g->K;
  const int64_t P = g->oH * g->oW, outS = g->nOut * P, nw = g->nIn * g->K;
  int64_t o;
  if (nt <= 1) {
    TH_R(fullconv_backward_params_thread)(in, go, gw, 1, buf, g, w, (real)scale, 0, 1);
  } else {
    int old = th_nn_blas_single_begin();
    int64_t k;
    TH_R(fc_job) j;
    j.in = in, j.go = go, j.out = gw, j.buf = buf, j.rowS = rowS, j.bufS = colS, j.g = g, j.w = w;
    j.scale = (real)scale, j.nt = nt;
    th_pool_run(nt, nt, TH_R(fullconv_params_share), &j);
    th_nn_blas_single_end(old);
    for (o = 1; o < nt; o++) {
      const real *p = buf + o * rowS + colS;
      for (k = 0; k < nw; k++) gw[k] += p[k];
    }
  }
  if (gradBias) {
    TH_R(fcbias_job) j;
    j.go = go, j.gb = th_tensor_data(gradBias), j.g = g, j.scale = scale;
    th_pool_for(th_nn_threads_over(g->B * outS, TH_NN_PAR_MIN_ELEMS), g->nOut,
                TH_R(fullconv_bias_plane), &j);
  }
  return TH_OK;
}

#undef GEMM
