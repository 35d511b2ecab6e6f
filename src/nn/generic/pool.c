/* generic/pool.c: max and average pooling for 'real' (included by th_nn_pool.c) */

/* max pooling of one plane, Torch7's scan: windows read row by row, the
   first maximum wins, and the first NaN wins over everything */
static void TH_R(maxpool_plane_nan)(const real *ip, real *op, int64_t *xp, const geom *g,
                                    const th_nn_window *w) {
  int64_t oy, ox;
  for (oy = 0; oy < g->oH; oy++) {
    int64_t y0 = oy * w->dH - w->padH, y1 = y0 + w->kH;
    if (y1 > g->iH) y1 = g->iH;
    if (y0 < 0) y0 = 0;
    for (ox = 0; ox < g->oW; ox++) {
      int64_t x0 = ox * w->dW - w->padW, x1 = x0 + w->kW, y, x;
      int64_t best = -1;
      real bv = 0;
      if (x1 > g->iW) x1 = g->iW;
      if (x0 < 0) x0 = 0;
      for (y = y0; y < y1; y++) {
        for (x = x0; x < x1; x++) {
          real v = ip[y * g->iW + x];
          if (best < 0 || v > bv || isnan(v)) {
            bv = v;
            best = y * g->iW + x;
            if (isnan(v)) goto found;
          }
        }
      }
    found:
      op[oy * g->oW + ox] = bv;
      xp[oy * g->oW + ox] = best + 1;
    }
  }
}

/* the same for a plane without NaN, a whole output row at a time: for each
   window offset (y, j) one loop over the row's outputs, which the compiler
   vectorizes (a per-window scan branches unpredictably on every element) */
static void TH_R(maxpool_plane)(const real *ip, real *op, int64_t *xp, const geom *g,
                                const th_nn_window *w) {
  const int64_t dW = w->dW, padW = w->padW, iW = g->iW, oW = g->oW;
  int64_t oy, ox, y, j;
  for (oy = 0; oy < g->oH; oy++) {
    int64_t y0 = oy * w->dH - w->padH, y1 = y0 + w->kH;
    real *bv = op + oy * oW;
    int64_t *bi = xp + oy * oW;
    if (y1 > g->iH) y1 = g->iH;
    if (y0 < 0) y0 = 0;
    /* each window starts at its first element */
    for (ox = 0; ox < oW; ox++) {
      int64_t x0 = ox * dW - padW;
      if (x0 < 0) x0 = 0;
      bi[ox] = y0 * iW + x0;
      bv[ox] = ip[bi[ox]];
    }
    for (y = y0; y < y1; y++) {
      const real *row = ip + y * iW;
      for (j = 0; j < w->kW; j++) {
        /* outputs whose window column j lies inside the row */
        int64_t a = padW - j, b = iW - 1 + padW - j, lo, hi;
        lo = a <= 0 ? 0 : (a + dW - 1) / dW;
        hi = b < 0 ? 0 : b / dW + 1;
        if (hi > oW) hi = oW;
        for (ox = lo; ox < hi; ox++) {
          int64_t x = ox * dW - padW + j;
          real v = row[x];
          if (v > bv[ox]) {
            bv[ox] = v;
            bi[ox] = y * iW + x;
          }
        }
      }
    }
    for (ox = 0; ox < oW; ox++) bi[ox] += 1;
  }
}

static int TH_R(maxpool_forward)(const th_tensor *input, th_tensor *output, th_tensor *indices,
                                 const geom *g, const th_nn_window *w) {
  const real *in = th_tensor_data(input);
  real *out = th_tensor_data(output);
  int64_t *ind = th_tensor_data(indices);
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  int64_t p;
#pragma omp parallel for if (g->planes * oS > TH_NN_PAR_MIN_ELEMS)
  for (p = 0; p < g->planes; p++) {
    const real *ip = in + p * iS;
    int nan = 0;
    int64_t i;
#pragma omp simd reduction(| : nan)
    for (i = 0; i < iS; i++) nan |= ip[i] != ip[i];
    if (nan)
      TH_R(maxpool_plane_nan)(ip, out + p * oS, ind + p * oS, g, w);
    else
      TH_R(maxpool_plane)(ip, out + p * oS, ind + p * oS, g, w);
  }
  return TH_OK;
}

static int TH_R(maxpool_backward)(const th_tensor *gradOutput, th_tensor *gradInput,
                                  const th_tensor *indices, const geom *g) {
  const real *go = th_tensor_data(gradOutput);
  real *gi = th_tensor_data(gradInput);
  const int64_t *ind = th_tensor_data(indices);
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  int64_t p, bad = 0;
  memset(gi, 0, sizeof(real) * (size_t)(g->planes * iS));
#pragma omp parallel for if (g->planes * oS > TH_NN_PAR_MIN_ELEMS) reduction(+ : bad)
  for (p = 0; p < g->planes; p++) {
    const real *gp = go + p * oS;
    const int64_t *xp = ind + p * oS;
    real *dst = gi + p * iS;
    int64_t k;
    for (k = 0; k < oS; k++) {
      int64_t j = xp[k] - 1;
      if (j < 0 || j >= iS) bad++;
      else dst[j] += gp[k];
    }
  }
  if (bad)
    return th_error_set("indices hold %lld positions outside the %lldx%lld input planes (were they computed for this input?)",
                        (long long)bad, (long long)g->iH, (long long)g->iW);
  return TH_OK;
}

/* the window of output (oy, ox): clipped bounds and Torch7's divisor */
#define TH_AVG_WINDOW                                                            \
  int64_t y0 = oy * w->dH - w->padH, x0 = ox * w->dW - w->padW;                 \
  int64_t y1 = y0 + w->kH, x1 = x0 + w->kW, div_;                               \
  if (y1 > g->iH + w->padH) y1 = g->iH + w->padH;                              \
  if (x1 > g->iW + w->padW) x1 = g->iW + w->padW;                              \
  div_ = (y1 - y0) * (x1 - x0);                                                 \
  if (y0 < 0) y0 = 0;                                                           \
  if (x0 < 0) x0 = 0;                                                           \
  if (y1 > g->iH) y1 = g->iH;                                                   \
  if (x1 > g->iW) x1 = g->iW;                                                   \
  if (!count_include_pad) div_ = (y1 - y0) * (x1 - x0);

static int TH_R(avgpool_forward)(const th_tensor *input, th_tensor *output, const geom *g,
                                 const th_nn_window *w, int count_include_pad) {
  const real *in = th_tensor_data(input);
  real *out = th_tensor_data(output);
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  int64_t p;
#pragma omp parallel for if (g->planes * oS > TH_NN_PAR_MIN_ELEMS)
  for (p = 0; p < g->planes; p++) {
    const real *ip = in + p * iS;
    real *op = out + p * oS;
    int64_t oy, ox;
    for (oy = 0; oy < g->oH; oy++) {
      for (ox = 0; ox < g->oW; ox++) {
        TH_AVG_WINDOW
        accreal s = 0;
        int64_t y, x;
        for (y = y0; y < y1; y++)
          for (x = x0; x < x1; x++) s += ip[y * g->iW + x];
        op[oy * g->oW + ox] = div_ > 0 ? (real)(s / div_) : 0;
      }
    }
  }
  return TH_OK;
}

static int TH_R(avgpool_backward)(const th_tensor *gradOutput, th_tensor *gradInput,
                                  const geom *g, const th_nn_window *w, int count_include_pad) {
  const real *go = th_tensor_data(gradOutput);
  real *gi = th_tensor_data(gradInput);
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  int64_t p;
  memset(gi, 0, sizeof(real) * (size_t)(g->planes * iS));
#pragma omp parallel for if (g->planes * oS > TH_NN_PAR_MIN_ELEMS)
  for (p = 0; p < g->planes; p++) {
    const real *gp = go + p * oS;
    real *dst = gi + p * iS;
    int64_t oy, ox;
    for (oy = 0; oy < g->oH; oy++) {
      for (ox = 0; ox < g->oW; ox++) {
        TH_AVG_WINDOW
        real v;
        int64_t y, x;
        if (div_ <= 0) continue;
        v = gp[oy * g->oW + ox] / (real)div_;
        for (y = y0; y < y1; y++)
          for (x = x0; x < x1; x++) dst[y * g->iW + x] += v;
      }
    }
  }
  return TH_OK;
}

#undef TH_AVG_WINDOW
