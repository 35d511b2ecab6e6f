/* generic/volpool.c: volumetric max, average and fractional max pooling
   for 'real' (included by th_nn_volpool.c) */

/* max of each window of one plane; first maximum in (t, y, x) order wins,
   a NaN wins over everything. Per dimension the taps inside the volume
   are a range [lo, hi) (tap_range), so the scan itself tests no bounds. */
static void TH_R(volmax_plane)(const real *ip, real *op, int64_t *xp, const geom *g,
                               const th_nn_vol *v) {
  int64_t ot, oy, ox;
  for (ot = 0; ot < g->oT; ot++) {
    const int64_t t0 = ot * v->dT - v->padT;
    int64_t alo, ahi;
    tap_range(t0, v->kT, v->dilT, g->iT, &alo, &ahi);
    for (oy = 0; oy < g->oH; oy++) {
      const int64_t y0 = oy * v->dH - v->padH;
      int64_t blo, bhi;
      tap_range(y0, v->kH, v->dilH, g->iH, &blo, &bhi);
      for (ox = 0; ox < g->oW; ox++) {
        const int64_t x0 = ox * v->dW - v->padW;
        int64_t a, b, e, elo, ehi, best = -1;
        real bv = 0;
        tap_range(x0, v->kW, v->dilW, g->iW, &elo, &ehi);
        for (a = alo; a < ahi; a++) {
          for (b = blo; b < bhi; b++) {
            const int64_t row = ((t0 + a * v->dilT) * g->iH + y0 + b * v->dilH) * g->iW + x0;
            for (e = elo; e < ehi; e++) {
              const int64_t k = row + e * v->dilW;
              const real val = ip[k];
              if (best < 0 || val > bv || isnan(val)) {
                bv = val;
                best = k;
                if (isnan(val)) goto found;
              }
            }
          }
        }
      found:
        /* a window always holds an input cell: the padding is at most half
           the kernel and a last window starting in the padding is dropped */
        op[(ot * g->oH + oy) * g->oW + ox] = bv;
        xp[(ot * g->oH + oy) * g->oW + ox] = best + 1;
      }
    }
  }
}

typedef struct TH_R(vol_job) {
  real *a, *b;
  int64_t *ind;
  const geom *g;
  const th_nn_vol *v;
  int count_include_pad, back;
} TH_R(vol_job);

static void TH_R(volmax_planes)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(vol_job) *j = arg;
  const geom *g = j->g;
  const int64_t iS = g->iT * g->iH * g->iW, oS = g->oT * g->oH * g->oW;
  int64_t p;
  for (p = lo; p < hi; p++)
    TH_R(volmax_plane)(j->a + p * iS, j->b + p * oS, j->ind + p * oS, g, j->v);
}

static int TH_R(volmax_forward)(const th_tensor *input, th_tensor *output, th_tensor *indices,
                                const geom *g, const th_nn_vol *v) {
  TH_R(vol_job) j;
  j.a = th_tensor_data(input), j.b = th_tensor_data(output), j.ind = th_tensor_data(indices);
  j.g = g, j.v = v;
  th_pool_ranges(th_nn_threads_over(g->planes * g->oT * g->oH * g->oW, TH_NN_PAR_MIN_ELEMS),
                 g->planes, TH_R(volmax_planes), &j);
  return TH_OK;
}

/* gradInput = 0, then each plane's gradOutput added at its 1-based
   indices; returns how many indices fell outside the plane (nothing is
   written for those) */
typedef struct TH_R(scatter_job) {
  const real *go;
  real *gi;
  const int64_t *ind;
  int64_t oS, iS;
  _Atomic int64_t bad;
} TH_R(scatter_job);

static void TH_R(vol_scatter_planes)(void *arg, int64_t lo, int64_t hi) {
  TH_R(scatter_job) *j = arg;
  const int64_t oS = j->oS, iS = j->iS;
  int64_t p, bad = 0;
  for (p = lo; p < hi; p++) {
    const real *gp = j->go + p * oS;
    const int64_t *xp = j->ind + p * oS;
    real *dst = j->gi + p * iS;
    int64_t k;
    for (k = 0; k < oS; k++) {
      int64_t i = xp[k] - 1;
      if (i < 0 || i >= iS) bad++;
      else dst[i] += gp[k];
    }
  }
  if (bad) atomic_fetch_add(&j->bad, bad);
}

static int64_t TH_R(vol_scatter)(const th_tensor *gradOutput, th_tensor *gradInput,
                                 const th_tensor *indices, int64_t planes, int64_t oS,
                                 int64_t iS) {
  TH_R(scatter_job) j;
  j.go = th_tensor_data(gradOutput), j.gi = th_tensor_data(gradInput);
  j.ind = th_tensor_data(indices), j.oS = oS, j.iS = iS;
  atomic_init(&j.bad, 0);
  memset(j.gi, 0, sizeof(real) * (size_t)(planes * iS));
  th_pool_ranges(th_nn_threads_over(planes * oS, TH_NN_PAR_MIN_ELEMS), planes,
                 TH_R(vol_scatter_planes), &j);
  return atomic_load(&j.bad);
}

/* average pooling: forward (back = 0) reads 'a' (input) into 'b'
   (output); backward (back = 1) spreads 'b' (gradOutput) into 'a'
   (gradInput). The divisor is the window clipped to the padded volume
   (count_include_pad) or to the volume. */
static void TH_R(volavg_planes)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(vol_job) *j = arg;
  const geom *g = j->g;
  const th_nn_vol *v = j->v;
  const int count_include_pad = j->count_include_pad, back = j->back;
  real *A = j->a, *Bp = j->b;
  const int64_t iS = g->iT * g->iH * g->iW, oS = g->oT * g->oH * g->oW;
  int64_t p;
  for (p = lo; p < hi; p++) {
    real *ip = A + p * iS, *op = Bp + p * oS;
    int64_t ot, oy, ox;
    for (ot = 0; ot < g->oT; ot++)
      for (oy = 0; oy < g->oH; oy++)
        for (ox = 0; ox < g->oW; ox++) {
          int64_t t0 = ot * v->dT - v->padT, y0 = oy * v->dH - v->padH, x0 = ox * v->dW - v->padW;
          int64_t t1 = t0 + v->kT, y1 = y0 + v->kH, x1 = x0 + v->kW, div, t, y, x;
          if (t1 > g->iT + v->padT) t1 = g->iT + v->padT;
          if (y1 > g->iH + v->padH) y1 = g->iH + v->padH;
          if (x1 > g->iW + v->padW) x1 = g->iW + v->padW;
          div = (t1 - t0) * (y1 - y0) * (x1 - x0);
          if (t0 < 0) t0 = 0;
          if (y0 < 0) y0 = 0;
          if (x0 < 0) x0 = 0;
          if (t1 > g->iT) t1 = g->iT;
          if (y1 > g->iH) y1 = g->iH;
          if (x1 > g->iW) x1 = g->iW;
          if (!count_include_pad) div = (t1 - t0) * (y1 - y0) * (x1 - x0);
          if (back) {
            real val = div > 0 ? op[(ot * g->oH + oy) * g->oW + ox] / (real)div : 0;
            for (t = t0; t < t1; t++)
              for (y = y0; y < y1; y++)
                for (x = x0; x < x1; x++) ip[(t * g->iH + y) * g->iW + x] += val;
          } else {
            accreal s = 0;
            for (t = t0; t < t1; t++)
              for (y = y0; y < y1; y++)
                for (x = x0; x < x1; x++) s += ip[(t * g->iH + y) * g->iW + x];
            op[(ot * g->oH + oy) * g->oW + ox] = div > 0 ? (real)(s / div) : 0;
          }
        }
  }
}

static int TH_R(volavg)(th_tensor *at, th_tensor *bt, const geom *g, const th_nn_vol *v,
                        int count_include_pad, int back) {
  TH_R(vol_job) j;
  j.a = th_tensor_data(at), j.b = th_tensor_data(bt), j.g = g, j.v = v;
  j.count_include_pad = count_include_pad, j.back = back;
  if (back) memset(j.a, 0, sizeof(real) * (size_t)(g->planes * g->iT * g->iH * g->iW));
  th_pool_ranges(th_nn_threads_over(g->planes * g->oT * g->oH * g->oW, TH_NN_PAR_MIN_ELEMS),
                 g->planes, TH_R(volavg_planes), &j);
  return TH_OK;
}

/* Torch7's pseudorandom region starts for one dimension: with
   alpha = (in - pool) / (out - 1), start i = floor((i + u) alpha) -
   floor(u alpha), the last one in - pool (computed in 'real' as Torch7) */
static void TH_R(fmp_starts)(real u, int64_t in, int64_t out, int64_t pool, int64_t *seq) {
  real alpha = (real)(in - pool) / (real)(out - 1);
  int64_t i;
  for (i = 0; i < out - 1; i++) seq[i] = (int64_t)((i + u) * alpha) - (int64_t)(u * alpha);
  seq[out - 1] = in - pool;
}

/* fractional max pooling of every plane (layout H x W x T); 'seqs' holds
   room for oT + oW + oH region starts per plane */
typedef struct TH_R(fmp_job) {
  const real *in, *u;
  real *out;
  int64_t *ind, *seqs;
  const fgeom *g;
} TH_R(fmp_job);

static void TH_R(volfmp_planes)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(fmp_job) *j = arg;
  const fgeom *g = j->g;
  const real *in = j->in, *u = j->u;
  real *out = j->out;
  int64_t *ind = j->ind, *seqs = j->seqs;
  const int64_t iS = g->iT * g->iW * g->iH, oS = g->oT * g->oW * g->oH;
  const int64_t ns = g->oT + g->oW + g->oH;
  int64_t p;
  for (p = lo; p < hi; p++) {
    int64_t *sT = seqs + p * ns, *sW = sT + g->oT, *sH = sW + g->oW;
    const real *ip = in + p * iS;
    real *op = out + p * oS;
    int64_t *xp = ind + p * oS, h, w, t;
    TH_R(fmp_starts)(u[p * 3 + 0], g->iT, g->oT, g->pT, sT);
    TH_R(fmp_starts)(u[p * 3 + 1], g->iW, g->oW, g->pW, sW);
    TH_R(fmp_starts)(u[p * 3 + 2], g->iH, g->oH, g->pH, sH);
    for (h = 0; h < g->oH; h++)
      for (w = 0; w < g->oW; w++)
        for (t = 0; t < g->oT; t++) {
          int64_t h2, w2, t2, best = -1;
          real bv = 0;
          for (h2 = sH[h]; h2 < sH[h] + g->pH; h2++)
            for (w2 = sW[w]; w2 < sW[w] + g->pW; w2++)
              for (t2 = sT[t]; t2 < sT[t] + g->pT; t2++) {
                int64_t k = (h2 * g->iW + w2) * g->iT + t2;
                real val = ip[k];
                if (best < 0 || val > bv || (isnan(val) && !isnan(bv))) {
                  bv = val;
                  best = k;
                }
              }
          op[(h * g->oW + w) * g->oT + t] = bv;
          xp[(h * g->oW + w) * g->oT + t] = best + 1;
        }
  }
}

static int TH_R(volfmp_forward)(const th_tensor *input, th_tensor *output, th_tensor *indices,
                                const th_tensor *samples, const fgeom *g) {
  const int64_t ns = g->oT + g->oW + g->oH;
  TH_R(fmp_job) j;
  j.seqs = malloc(sizeof(int64_t) * (size_t)ns * (size_t)g->planes);
  if (j.seqs == NULL) return th_error_set("out of memory (%lld pooling region starts)", (long long)(ns * g->planes));
  j.in = th_tensor_data(input), j.u = th_tensor_data(samples), j.out = th_tensor_data(output);
  j.ind = th_tensor_data(indices), j.g = g;
  th_pool_ranges(th_nn_threads_over(g->planes * g->oT * g->oW * g->oH, TH_NN_PAR_MIN_ELEMS),
                 g->planes, TH_R(volfmp_planes), &j);
  free(j.seqs);
  return TH_OK;
}
