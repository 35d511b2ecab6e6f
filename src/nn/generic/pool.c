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
TH_CPU_CLONES static void TH_R(maxpool_plane)(const real *ip, real *op, int64_t *xp, const geom *g,
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

/* the same for strides 1 and 2, windows at most POOL_KW wide and rows of
   at most POOL_ROW outputs (2 x POOL_ROW inputs), with every loop
   unit-stride so that it vectorizes: a stride-2 row is split into its even
   and odd elements once, the window column j then reads one of the two
   halves contiguously. Bests are kept in stack rows, positions as int32
   (the caller checks the plane size): the same compares in the same order
   as above, so the same results */
TH_CPU_CLONES static void TH_R(maxpool_plane_rows)(const real *ip, real *op, int64_t *xp,
                                                   const geom *g, const th_nn_window *w) {
  const int64_t dW = w->dW, padW = w->padW, iW = g->iW, oW = g->oW;
  real bv[POOL_ROW], half[2][POOL_ROW];
  int32_t bi[POOL_ROW];
  int64_t oy, ox, y, j, i, lo[POOL_KW], hi[POOL_KW];
  /* the outputs whose window column j lies inside a row: lo[j] <= ox < hi[j] */
  for (j = 0; j < w->kW; j++) {
    int64_t a = padW - j, b = iW - 1 + padW - j;
    lo[j] = a <= 0 ? 0 : (a + dW - 1) / dW;
    hi[j] = b < 0 ? 0 : b / dW + 1;
    if (hi[j] > oW) hi[j] = oW;
  }
  for (oy = 0; oy < g->oH; oy++) {
    int64_t y0 = oy * w->dH - w->padH, y1 = y0 + w->kH;
    if (y1 > g->iH) y1 = g->iH;
    if (y0 < 0) y0 = 0;
    /* -inf loses every compare but leaves the window's first position:
       what the window's first element as start value gives */
    for (ox = 0; ox < oW; ox++) {
      int64_t x0 = ox * dW - padW;
      if (x0 < 0) x0 = 0;
      bv[ox] = (real)-HUGE_VAL;
      bi[ox] = (int32_t)(y0 * iW + x0);
    }
    for (y = y0; y < y1; y++) {
      const real *row = ip + y * iW;
      if (dW == 2) {
        for (i = 0; i < (iW + 1) / 2; i++) half[0][i] = row[2 * i];
        for (i = 0; i < iW / 2; i++) half[1][i] = row[2 * i + 1];
      }
      for (j = 0; j < w->kW; j++) {
        /* output ox reads x = ox * dW + c, element ox + m of 'src' */
        int64_t c = j - padW, m;
        const real *src;
        int32_t pos0;
        if (dW == 2) {
          src = half[c & 1];
          m = (c - (c & 1)) / 2;
        } else {
          src = row;
          m = c;
        }
        pos0 = (int32_t)(y * iW + c);
#pragma omp simd
        for (ox = lo[j]; ox < hi[j]; ox++) {
          real v = src[ox + m], best = bv[ox];
          int32_t k = bi[ox], q = pos0 + (int32_t)(ox * dW);
          /* selects written as arithmetic: a short row's scalar tail would
             otherwise branch, unpredictably, on every element */
          int32_t gt = -(int32_t)(v > best);
          bv[ox] = v > best ? v : best;
          bi[ox] = k ^ ((k ^ q) & gt);
        }
      }
    }
    for (ox = 0; ox < oW; ox++) {
      op[oy * oW + ox] = bv[ox];
      xp[oy * oW + ox] = (int64_t)bi[ox] + 1;
    }
  }
}

TH_CPU_CLONES static int TH_R(plane_has_nan)(const real *ip, int64_t n) {
  int nan = 0;
  int64_t i;
#pragma omp simd reduction(| : nan)
  for (i = 0; i < n; i++) nan |= ip[i] != ip[i];
  return nan;
}

/* a th_pool job over planes */
typedef struct TH_R(pool_job) {
  const real *in;
  real *out;
  int64_t *ind;
  const int64_t *cind;
  const geom *g;
  const th_nn_window *w;
  int rows, count_include_pad;
  _Atomic int64_t bad;
} TH_R(pool_job);

static void TH_R(maxpool_forward_plane)(void *arg, int64_t p) {
  TH_R(pool_job) *j = arg;
  const geom *g = j->g;
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  const real *ip = j->in + p * iS;
  if (TH_R(plane_has_nan)(ip, iS))
    TH_R(maxpool_plane_nan)(ip, j->out + p * oS, j->ind + p * oS, g, j->w);
  else if (j->rows)
    TH_R(maxpool_plane_rows)(ip, j->out + p * oS, j->ind + p * oS, g, j->w);
  else
    TH_R(maxpool_plane)(ip, j->out + p * oS, j->ind + p * oS, g, j->w);
}

static int TH_R(maxpool_forward)(const th_tensor *input, th_tensor *output, th_tensor *indices,
                                 const geom *g, const th_nn_window *w) {
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  TH_R(pool_job) j;
  j.in = th_tensor_data(input), j.out = th_tensor_data(output), j.ind = th_tensor_data(indices);
  j.g = g, j.w = w;
  j.rows = (w->dW == 1 || w->dW == 2) && w->kW <= POOL_KW && g->oW <= POOL_ROW &&
           g->iW <= 2 * POOL_ROW && iS + g->iW < INT32_MAX;
  th_pool_for(th_nn_threads_over(g->planes * oS * w->kH * w->kW, TH_NN_PAR_MIN_POOL), g->planes,
              TH_R(maxpool_forward_plane), &j);
  return TH_OK;
}

/* scatters a plane's gradient through its indices, counting the indices
   outside the plane */
static void TH_R(maxpool_backward_plane)(void *arg, int64_t p) {
  TH_R(pool_job) *j = arg;
  const geom *g = j->g;
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  const real *gp = j->in + p * oS;
  const int64_t *xp = j->cind + p * oS;
  real *dst = j->out + p * iS;
  int64_t k, bad = 0;
  for (k = 0; k < oS; k++) {
    int64_t i = xp[k] - 1;
    if (i < 0 || i >= iS) bad++;
    else dst[i] += gp[k];
  }
  if (bad) atomic_fetch_add(&j->bad, bad);
}

static int TH_R(maxpool_backward)(const th_tensor *gradOutput, th_tensor *gradInput,
                                  const th_tensor *indices, const geom *g) {
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  TH_R(pool_job) j;
  int64_t bad;
  j.in = th_tensor_data(gradOutput), j.out = th_tensor_data(gradInput);
  j.cind = th_tensor_data(indices), j.g = g;
  atomic_init(&j.bad, 0);
  memset(j.out, 0, sizeof(real) * (size_t)(g->planes * iS));
  th_pool_for(th_nn_threads_over(g->planes * oS, TH_NN_PAR_MIN_POOL_BWD), g->planes,
              TH_R(maxpool_backward_plane), &j);
  bad = atomic_load(&j.bad);
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

/* a 1x1 window without padding (the subsampling of ResNet's shortcut A):
   every divisor is 1, so the average is the element itself (added to 0,
   as the general loop's sum is: -0 becomes 0 there too) */
static void TH_R(subsample_plane)(const real *ip, real *op, const geom *g,
                                  const th_nn_window *w) {
  int64_t oy, ox;
  for (oy = 0; oy < g->oH; oy++) {
    const real *row = ip + oy * w->dH * g->iW;
    real *o = op + oy * g->oW;
    for (ox = 0; ox < g->oW; ox++) o[ox] = (real)0 + row[ox * w->dW];
  }
}

static void TH_R(subsample_job_plane)(void *arg, int64_t p) {
  const TH_R(pool_job) *j = arg;
  const int64_t iS = j->g->iH * j->g->iW, oS = j->g->oH * j->g->oW;
  TH_R(subsample_plane)(j->in + p * iS, j->out + p * oS, j->g, j->w);
}

static void TH_R(avgpool_forward_plane)(void *arg, int64_t p) {
  const TH_R(pool_job) *j = arg;
  const geom *g = j->g;
  const th_nn_window *w = j->w;
  const int count_include_pad = j->count_include_pad;
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  const real *ip = j->in + p * iS;
  real *op = j->out + p * oS;
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

static int TH_R(avgpool_forward)(const th_tensor *input, th_tensor *output, const geom *g,
                                 const th_nn_window *w, int count_include_pad) {
  const int64_t oS = g->oH * g->oW;
  TH_R(pool_job) j;
  j.in = th_tensor_data(input), j.out = th_tensor_data(output), j.g = g, j.w = w;
  j.count_include_pad = count_include_pad;
  if (w->kH == 1 && w->kW == 1 && w->padH == 0 && w->padW == 0) {
    th_pool_for(th_nn_threads_over(g->planes * oS, TH_NN_PAR_MIN_POOL), g->planes,
                TH_R(subsample_job_plane), &j);
    return TH_OK;
  }
  th_pool_for(th_nn_threads_over(g->planes * oS * w->kH * w->kW, TH_NN_PAR_MIN_POOL), g->planes,
              TH_R(avgpool_forward_plane), &j);
  return TH_OK;
}

static void TH_R(avgpool_backward_plane)(void *arg, int64_t p) {
  const TH_R(pool_job) *j = arg;
  const geom *g = j->g;
  const th_nn_window *w = j->w;
  const int count_include_pad = j->count_include_pad;
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  const real *gp = j->in + p * oS;
  real *dst = j->out + p * iS;
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

static int TH_R(avgpool_backward)(const th_tensor *gradOutput, th_tensor *gradInput,
                                  const geom *g, const th_nn_window *w, int count_include_pad) {
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  TH_R(pool_job) j;
  j.in = th_tensor_data(gradOutput), j.out = th_tensor_data(gradInput), j.g = g, j.w = w;
  j.count_include_pad = count_include_pad;
  memset(j.out, 0, sizeof(real) * (size_t)(g->planes * iS));
  th_pool_for(th_nn_threads_over(g->planes * oS * w->kH * w->kW, TH_NN_PAR_MIN_POOL), g->planes,
              TH_R(avgpool_backward_plane), &j);
  return TH_OK;
}

#undef TH_AVG_WINDOW
