/* generic/dilconv.c: dilated / depthwise convolution compute for 'real'
   (included by th_nn_dilconv.c). Group q of an image: input planes
   [q*Cg, (q+1)*Cg), output planes [q*Mg, (q+1)*Mg), kernels at weight +
   q*wg, 'lda' apart. A tile is output rows [y0, y1); its columns are
   Kg x (y1-y0)*oW in the thread's buffer. */

#ifdef TH_REAL_IS_FLOAT
#define GEMM th_sgemm
#else
#define GEMM cblas_dgemm
#endif

/* one call's operands for th_pool's chunks: images (forward: in to out;
   gradInput: gradOutput 'in' to gradInput 'out') with the participant's
   column buffer, or the fixed shares of the gradWeight sum (input 'in',
   gradOutput 'go' into 'out' and the partial sums 'parts') */
typedef struct TH_R(dc_job) {
  const real *in, *go, *wt, *bs;
  real *out, *buf, *parts;
  int64_t per;
  const geom *g;
  const th_nn_dilconv *p;
  real scale;
  int nt;
} TH_R(dc_job);

/* columns of output rows y0 <= y < y1 of the Cg planes at 'in': row
   (c*kH + i)*kW + j, column (y-y0)*oW + x holds
   in[c][y*dH - padH + i*dilH][x*dW - padW + j*dilW], 0 outside */
static void TH_R(dil_im2col)(const real *in, const geom *g, const th_nn_dilconv *p, int64_t y0,
                             int64_t y1, real *col) {
  const th_nn_window *w = &p->w;
  const int64_t ld = (y1 - y0) * g->oW;
  int64_t c, i, j, y, x;
  if (p->dilW == 1 && p->dilH == 1) {
    TH_R(th_nn_im2col)(in, g->Cg, g->H, g->W, g->oH, g->oW, w, y0, y1, col, ld);
    return;
  }
  for (c = 0; c < g->Cg; c++)
    for (i = 0; i < g->kH; i++)
      for (j = 0; j < g->kW; j++) {
        real *dst = col + ((c * g->kH + i) * g->kW + j) * ld;
        int64_t xlo, xhi;
        span(g->W, g->oW, w->dW, j * p->dilW - w->padW, &xlo, &xhi);
        for (y = y0; y < y1; y++) {
          const int64_t iy = y * w->dH - w->padH + i * p->dilH;
          real *d = dst + (y - y0) * g->oW;
          const real *s;
          if (iy < 0 || iy >= g->H || xlo >= xhi) {
            memset(d, 0, sizeof(real) * (size_t)g->oW);
            continue;
          }
          s = in + (c * g->H + iy) * g->W + j * p->dilW - w->padW;
          for (x = 0; x < xlo; x++) d[x] = 0;
          for (x = xlo; x < xhi; x++) d[x] = s[x * w->dW];
          for (x = xhi; x < g->oW; x++) d[x] = 0;
        }
      }
}

/* adds such columns back into the Cg planes at 'in' */
static void TH_R(dil_col2im)(const real *col, const geom *g, const th_nn_dilconv *p, int64_t y0,
                             int64_t y1, real *in) {
  const th_nn_window *w = &p->w;
  const int64_t ld = (y1 - y0) * g->oW;
  int64_t c, i, j, y, x;
  if (p->dilW == 1 && p->dilH == 1) {
    TH_R(th_nn_col2im)(col, g->Cg, g->H, g->W, g->oH, g->oW, w, y0, y1, in, ld);
    return;
  }
  for (c = 0; c < g->Cg; c++)
    for (i = 0; i < g->kH; i++)
      for (j = 0; j < g->kW; j++) {
        const real *src = col + ((c * g->kH + i) * g->kW + j) * ld;
        int64_t xlo, xhi;
        span(g->W, g->oW, w->dW, j * p->dilW - w->padW, &xlo, &xhi);
        if (xlo >= xhi) continue;
        for (y = y0; y < y1; y++) {
          const int64_t iy = y * w->dH - w->padH + i * p->dilH;
          const real *s = src + (y - y0) * g->oW;
          real *d;
          if (iy < 0 || iy >= g->H) continue;
          d = in + (c * g->H + iy) * g->W + j * p->dilW - w->padW;
          for (x = xlo; x < xhi; x++) d[x * w->dW] += s[x];
        }
      }
}

/* image b: output = kernels * columns + bias, group by group, tile by tile */
static void TH_R(dilconv_forward_image)(const real *x, real *out, const real *wt,
                                        const real *bias, real *buf, int64_t b, const geom *g,
                                        const th_nn_dilconv *p) {
  const int64_t inS = g->nIn * g->H * g->W, outS = g->nOut * g->N;
  int64_t q, o, n, y0;
  x += b * inS;
  out += b * outS;
  for (q = 0; q < g->G; q++) {
    const real *xq = x + q * g->Cg * g->H * g->W, *a = wt + q * g->wg;
    real *yq = out + q * g->Mg * g->N, beta = 0;
    if (bias) {
      for (o = 0; o < g->Mg; o++) {
        const real v = bias[q * g->bg + o * g->bo];
        real *row = yq + o * g->N;
        for (n = 0; n < g->N; n++) row[n] = v;
      }
      beta = 1;
    }
    for (y0 = 0; y0 < g->oH; y0 += g->rows) {
      const int64_t y1 = y0 + g->rows < g->oH ? y0 + g->rows : g->oH, tn = (y1 - y0) * g->oW;
      TH_R(dil_im2col)(xq, g, p, y0, y1, buf);
      GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g->Mg, (int)tn, (int)g->Kg, 1, a,
           (int)g->lda, buf, (int)tn, beta, yq + y0 * g->oW, (int)g->N);
    }
  }
}

static void TH_R(dilconv_forward_chunk)(void *arg, int i, int slot) {
  const TH_R(dc_job) *j = arg;
  TH_R(dilconv_forward_image)(j->in, j->out, j->wt, j->bs, j->buf + slot * j->per, i, j->g, j->p);
}

static int TH_R(dilconv_forward)(const th_tensor *input, th_tensor *output,
                                 const th_tensor *weight, const th_tensor *bias,
                                 th_tensor *finput, const geom *g, const th_nn_dilconv *p,
                                 int nt) {
  const real *in = th_tensor_data(input), *wt = th_tensor_data(weight);
  const real *bs = bias ? th_tensor_data(bias) : NULL;
  real *out = th_tensor_data(output), *buf = th_tensor_data(finput);
  const int64_t per = g->Kg * g->tn;
  int64_t b;
  if (nt <= 1) {
    for (b = 0; b < g->B; b++) TH_R(dilconv_forward_image)(in, out, wt, bs, buf, b, g, p);
    return TH_OK;
  }
  {
    TH_R(dc_job) j;
    int old = th_nn_blas_single_begin();
    j.in = in, j.out = out, j.wt = wt, j.bs = bs, j.buf = buf, j.per = per, j.g = g, j.p = p;
    th_pool_run_slot(nt, (int)g->B, TH_R(dilconv_forward_chunk), &j);
    th_nn_blas_single_end(old);
  }
  return TH_OK;
}

/* image b: gradInput = col2im(kernels^T * gradOutput), group by group */
static void TH_R(dilconv_backward_input_image)(const real *go, real *gi, const real *wt,
                                               real *buf, int64_t b, const geom *g,
                                               const th_nn_dilconv *p) {
  const int64_t inS = g->nIn * g->H * g->W, outS = g->nOut * g->N;
  int64_t q, y0;
  go += b * outS;
  gi += b * inS;
  memset(gi, 0, sizeof(real) * (size_t)inS);
  for (q = 0; q < g->G; q++) {
    const real *gq = go + q * g->Mg * g->N, *a = wt + q * g->wg;
    real *iq = gi + q * g->Cg * g->H * g->W;
    for (y0 = 0; y0 < g->oH; y0 += g->rows) {
      const int64_t y1 = y0 + g->rows < g->oH ? y0 + g->rows : g->oH, tn = (y1 - y0) * g->oW;
      GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g->Kg, (int)tn, (int)g->Mg, 1, a,
           (int)g->lda, gq + y0 * g->oW, (int)g->N, 0, buf, (int)tn);
      TH_R(dil_col2im)(buf, g, p, y0, y1, iq);
    }
  }
}

static void TH_R(dilconv_backward_input_chunk)(void *arg, int i, int slot) {
  const TH_R(dc_job) *j = arg;
  TH_R(dilconv_backward_input_image)(j->in, j->out, j->wt, j->buf + slot * j->per, i, j->g, j->p);
}

static int TH_R(dilconv_backward_input)(const th_tensor *gradOutput, th_tensor *gradInput,
                                        const th_tensor *weight, th_tensor *fgradInput,
                                        const geom *g, const th_nn_dilconv *p, int nt) {
  const real *go = th_tensor_data(gradOutput), *wt = th_tensor_data(weight);
  real *gi = th_tensor_data(gradInput), *buf = th_tensor_data(fgradInput);
  const int64_t per = g->Kg * g->tn;
  int64_t b;
  if (nt <= 1) {
    for (b = 0; b < g->B; b++) TH_R(dilconv_backward_input_image)(go, gi, wt, buf, b, g, p);
    return TH_OK;
  }
  {
    TH_R(dc_job) j;
    int old = th_nn_blas_single_begin();
    j.in = go, j.out = gi, j.wt = wt, j.buf = buf, j.per = per, j.g = g, j.p = p;
    th_pool_run_slot(nt, (int)g->B, TH_R(dilconv_backward_input_chunk), &j);
    th_nn_blas_single_end(old);
  }
  return TH_OK;
}

/* thread t of nt adds scale * gradOutput * columns^T of images t, t + nt,
   ... into 'acc' (laid out as the weight): a fixed split, so the sums
   repeat from run to run */
static void TH_R(dilconv_params_thread)(const real *in, const real *go, real *acc, real *buf,
                                        const geom *g, const th_nn_dilconv *p, real scale, int t,
                                        int nt) {
  const int64_t inS = g->nIn * g->H * g->W, outS = g->nOut * g->N;
  int64_t b, q, y0;
  for (b = t; b < g->B; b += nt)
    for (q = 0; q < g->G; q++) {
      const real *xq = in + b * inS + q * g->Cg * g->H * g->W;
      const real *gq = go + b * outS + q * g->Mg * g->N;
      for (y0 = 0; y0 < g->oH; y0 += g->rows) {
        const int64_t y1 = y0 + g->rows < g->oH ? y0 + g->rows : g->oH, tn = (y1 - y0) * g->oW;
        TH_R(dil_im2col)(xq, g, p, y0, y1, buf);
        GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g->Mg, (int)g->Kg, (int)tn, scale,
             gq + y0 * g->oW, (int)g->N, buf, (int)tn, 1, acc + q * g->wg, (int)g->lda);
      }
    }
}

/* share t of nt: into gradWeight (t = 0) or the t-th partial sum */
static void TH_R(dilconv_params_share)(void *arg, int t) {
  const TH_R(dc_job) *j = arg;
  const geom *g = j->g;
  if (t > 0) memset(j->parts + t * g->nW, 0, sizeof(real) * (size_t)g->nW);
  TH_R(dilconv_params_thread)(j->in, j->go, t == 0 ? j->out : j->parts + t * g->nW,
                              j->buf + t * j->per, g, j->p, j->scale, t, j->nt);
}

static int TH_R(dilconv_backward_params)(const th_tensor *input, const th_tensor *gradOutput,
                                         th_tensor *gradWeight, th_tensor *gradBias,
                                         th_tensor *fgradInput, const geom *g,
                                         const th_nn_dilconv *p, int nt, double scale,
                                         int64_t rows) {
  const real *in = th_tensor_data(input), *go = th_tensor_data(gradOutput);
  real *gw = th_tensor_data(gradWeight), *buf = th_tensor_data(fgradInput);
  const int64_t per = g->Kg * g->tn, outS = g->nOut * g->N;
  /* thread t's partial gradWeight (t > 0) after the rows of columns */
  real *parts = buf + rows * per - g->nW;
  int64_t q, o;
  if (nt <= 1) {
    TH_R(dilconv_params_thread)(in, go, gw, buf, g, p, (real)scale, 0, 1);
  } else {
    int old = th_nn_blas_single_begin();
    int64_t k;
    TH_R(dc_job) j;
    j.in = in, j.go = go, j.out = gw, j.parts = parts, j.buf = buf, j.per = per, j.g = g, j.p = p;
    j.scale = (real)scale, j.nt = nt;
    th_pool_run(nt, nt, TH_R(dilconv_params_share), &j);
    th_nn_blas_single_end(old);
    for (o = 1; o < nt; o++) {
      const real *s = parts + o * g->nW;
      for (k = 0; k < g->nW; k++) gw[k] += s[k];
    }
  }
  if (gradBias) {
    real *gb = th_tensor_data(gradBias);
    for (q = 0; q < g->G; q++)
      for (o = 0; o < g->Mg; o++) {
        const int64_t c = q * g->Mg + o;
        accreal s = 0;
        int64_t b, n;
        for (b = 0; b < g->B; b++) {
          const real *row = go + b * outS + c * g->N;
          for (n = 0; n < g->N; n++) s += row[n];
        }
        gb[q * g->bg + o * g->bo] += (real)(scale * s);
      }
  }
  return TH_OK;
}

#undef GEMM
