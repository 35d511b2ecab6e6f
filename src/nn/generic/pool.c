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

/* the same for strides 1 and 2, windows of at most POOL_KH x POOL_KW and
   rows of at most POOL_ROW outputs (2 x POOL_ROW inputs), a vector of
   outputs at a time with its running maxima in registers. Each input row a
   window reads is copied once into a ring slot between margins of -inf, a
   stride-2 row split into its even and odd elements: the window tap (y, j)
   of the outputs ox.. ox+L-1 is then one unit-stride load, and the window
   edges need no bounds (-inf loses every compare). The taps go in the
   scan's row-major order with a strict compare, so the first maximum wins
   as in Torch7; a lane that no tap beat (every element -inf) points at
   the window's first element, as there. Planes with a NaN take the scan
   above. */
#if defined(TH_REAL_IS_FLOAT)
typedef int32_t TH_R(pool_lane_int);
#else
typedef int64_t TH_R(pool_lane_int);
#endif
/* GCC vector types: 64 bytes, lowered to the clone's widest registers */
typedef real TH_R(pool_vr) __attribute__((vector_size(64)));
typedef TH_R(pool_lane_int) TH_R(pool_vi) __attribute__((vector_size(64)));
#define PV_L ((int64_t)(64 / sizeof(real)))
/* a ring slot: two half rows (or one row) of POOL_SLOT elements, each
   with POOL_PAD elements of -inf before */
#define POOL_PAD 16
#define POOL_HALF (POOL_PAD + POOL_ROW + POOL_KW + 16)
#define POOL_SLOT (2 * POOL_HALF)

/* row y into its slot (whose left margins hold -inf already), inlined
   into the caller's clones so that it runs with their vectors */
static inline __attribute__((always_inline)) void TH_R(maxpool_fill_row)(const real *row, int64_t iW,
                                                                          int64_t dW, int64_t end,
                                                                          real *slot) {
  const real ninf = (real)-HUGE_VAL;
  real *d0 = slot + POOL_PAD, *d1 = slot + POOL_HALF + POOL_PAD;
  int64_t i, n0 = iW, n1 = 0;
  if (dW == 2) {
    n0 = (iW + 1) / 2, n1 = iW / 2;
    for (i = 0; i < n1; i++) {
      d0[i] = row[2 * i];
      d1[i] = row[2 * i + 1];
    }
    if (n0 > n1) d0[n1] = row[iW - 1];
    for (i = n1; i < end; i++) d1[i] = ninf;
  } else {
    memcpy(d0, row, sizeof(real) * (size_t)iW);
  }
  for (i = n0; i < end; i++) d0[i] = ninf;
}

TH_CPU_CLONES static void TH_R(maxpool_plane_taps)(const real *ip, real *op, int64_t *xp,
                                                  const geom *g, const th_nn_window *w) {
  typedef TH_R(pool_vr) vr;
  typedef TH_R(pool_vi) vi;
  typedef TH_R(pool_lane_int) li;
  const int64_t dW = w->dW, padW = w->padW, iW = g->iW, oW = g->oW, kW = w->kW;
  const int64_t oWv = (oW + PV_L - 1) / PV_L * PV_L;
  const li none = (li)INT32_MIN;
  real ring[POOL_KH][POOL_SLOT];
  int64_t held[POOL_KH];
  real bv[POOL_ROW + 64 / sizeof(float)];
  li bq[POOL_ROW + 64 / sizeof(float)];
  real ninf_row[POOL_ROW + 64 / sizeof(float)];
  const real *sp[POOL_KH * POOL_KW + 1];
  li q[POOL_KH * POOL_KW + 1];
  int64_t oy, ox, y, j, t, T;
  for (ox = 0; ox < oWv; ox++) ninf_row[ox] = (real)-HUGE_VAL;
  for (y = 0; y < w->kH; y++) {
    held[y] = -1;
    for (j = 0; j < POOL_PAD; j++) ring[y][j] = ring[y][POOL_HALF + j] = (real)-HUGE_VAL;
  }
  for (oy = 0; oy < g->oH; oy++) {
    int64_t y0 = oy * w->dH - w->padH, y1 = y0 + w->kH;
    if (y1 > g->iH) y1 = g->iH;
    if (y0 < 0) y0 = 0;
    T = 0;
    for (y = y0; y < y1; y++) {
      real *slot = ring[y % w->kH];
      if (held[y % w->kH] != y) {
        /* the reads reach element oWv - 1 + (kW - 1 - padW) / dW of a half */
        TH_R(maxpool_fill_row)(ip + y * iW, iW, dW, oWv + kW, slot);
        held[y % w->kH] = y;
      }
      for (j = 0; j < kW; j++) {
        /* output ox reads x = ox * dW + c: element ox + m of half c & 1 */
        int64_t c = j - padW, odd = dW == 2 ? (c & 1) : 0, m = dW == 2 ? (c - odd) >> 1 : c;
        sp[T] = slot + odd * POOL_HALF + POOL_PAD + m;
        q[T++] = (li)(y * iW + c);
      }
    }
    /* two chains, the first and second half of the taps, then the second
       wins where it is greater: the scan's result (a first maximum of the
       whole is the first of its half), with half the dependent latency */
    /* an odd count gets a last tap of -inf, which changes nothing */
    sp[T] = ninf_row;
    q[T] = 0;
    for (ox = 0; ox < oWv; ox += PV_L) {
      vr best = (vr){0} + (real)-HUGE_VAL, best2 = best;
      vi at = (vi){0} + none, at2 = at, gt;
      const int64_t h = (T + 1) / 2;
      for (t = 0; t < h; t++) {
        vr v, v2;
        vi gt2;
        memcpy(&v, sp[t] + ox, sizeof v);
        memcpy(&v2, sp[h + t] + ox, sizeof v2);
        gt = v > best;
        gt2 = v2 > best2;
        best = (vr)(((vi)v & gt) | ((vi)best & ~gt));
        at = (at & ~gt) | (((vi){0} + q[t]) & gt);
        best2 = (vr)(((vi)v2 & gt2) | ((vi)best2 & ~gt2));
        at2 = (at2 & ~gt2) | (((vi){0} + q[h + t]) & gt2);
      }
      gt = best2 > best;
      best = (vr)(((vi)best2 & gt) | ((vi)best & ~gt));
      at = (at & ~gt) | (at2 & gt);
      memcpy(bv + ox, &best, sizeof best);
      memcpy(bq + ox, &at, sizeof at);
    }
    for (ox = 0; ox < oW; ox++) {
      int64_t x0 = ox * dW - padW;
      op[oy * oW + ox] = bv[ox];
      xp[oy * oW + ox] = (bq[ox] == none ? y0 * iW + (x0 < 0 ? 0 : x0) : bq[ox] + ox * dW) + 1;
    }
  }
}

#undef PV_L
#undef POOL_PAD
#undef POOL_HALF
#undef POOL_SLOT

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
  real *op = j->out + p * oS;
  int64_t *xp = j->ind + p * oS;
  if (TH_R(plane_has_nan)(ip, iS)) {
    TH_R(maxpool_plane_nan)(ip, op, xp, g, j->w);
  } else if (j->rows) {
    TH_R(maxpool_plane_taps)(ip, op, xp, g, j->w);
  } else {
    TH_R(maxpool_plane)(ip, op, xp, g, j->w);
  }
}

static int TH_R(maxpool_forward)(const th_tensor *input, th_tensor *output, th_tensor *indices,
                                 const geom *g, const th_nn_window *w) {
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  TH_R(pool_job) j;
  j.in = th_tensor_data(input), j.out = th_tensor_data(output), j.ind = th_tensor_data(indices);
  j.g = g, j.w = w;
  j.rows = (w->dW == 1 || w->dW == 2) && w->kW <= POOL_KW && w->kH <= POOL_KH &&
           g->oW <= POOL_ROW && g->iW <= 2 * POOL_ROW && iS + g->iW < INT32_MAX;
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

/* the backward of the 1x1 subsampling: each input takes at most one
   output's gradient, written (added to the 0 the general loop adds it to:
   -0 becomes 0 there too) into the zeroed plane */
static void TH_R(subsample_backward_plane)(void *arg, int64_t p) {
  const TH_R(pool_job) *j = arg;
  const geom *g = j->g;
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  const real *gp = j->in + p * oS;
  real *dst = j->out + p * iS;
  int64_t oy, ox;
  for (oy = 0; oy < g->oH; oy++) {
    real *row = dst + oy * j->w->dH * g->iW;
    const real *o = gp + oy * g->oW;
    for (ox = 0; ox < g->oW; ox++) row[ox * j->w->dW] = (real)0 + o[ox];
  }
}

static int TH_R(avgpool_backward)(const th_tensor *gradOutput, th_tensor *gradInput,
                                  const geom *g, const th_nn_window *w, int count_include_pad) {
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  TH_R(pool_job) j;
  j.in = th_tensor_data(gradOutput), j.out = th_tensor_data(gradInput), j.g = g, j.w = w;
  j.count_include_pad = count_include_pad;
  memset(j.out, 0, sizeof(real) * (size_t)(g->planes * iS));
  if (w->kH == 1 && w->kW == 1 && w->padH == 0 && w->padW == 0) {
    th_pool_for(th_nn_threads_over(g->planes * iS, TH_NN_PAR_MIN_POOL), g->planes,
                TH_R(subsample_backward_plane), &j);
    return TH_OK;
  }
  th_pool_for(th_nn_threads_over(g->planes * oS * w->kH * w->kW, TH_NN_PAR_MIN_POOL), g->planes,
              TH_R(avgpool_backward_plane), &j);
  return TH_OK;
}

#undef TH_AVG_WINDOW
