/* generic/winpool.c: pooling over per-output spans for 'real' (included by th_nn_winpool.c) */

/* max over each output's span; first maximum in row-major order wins, the
   first NaN wins over everything; an empty span gives -inf and index 0 */
static void TH_R(winmax_plane)(const real *ip, real *op, int64_t *xp, const geom *g,
                               const spans *s, int64_t p) {
  const int64_t *y0 = s->y0 + p * s->stride_y, *y1 = s->y1 + p * s->stride_y;
  const int64_t *x0 = s->x0 + p * s->stride_x, *x1 = s->x1 + p * s->stride_x;
  int64_t oy, ox, y, x;
  for (oy = 0; oy < g->oH; oy++) {
    for (ox = 0; ox < g->oW; ox++) {
      int64_t best = -1;
      real bv = -INFINITY;
      for (y = y0[oy]; y < y1[oy]; y += s->sy) {
        for (x = x0[ox]; x < x1[ox]; x += s->sx) {
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

static int TH_R(winmax_forward)(const th_tensor *input, th_tensor *output, th_tensor *indices,
                                const geom *g, const spans *s) {
  const real *in = th_tensor_data(input);
  real *out = th_tensor_data(output);
  int64_t *ind = th_tensor_data(indices);
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  int64_t p;
#pragma omp parallel for if (g->planes * iS > TH_NN_PAR_MIN_ELEMS)
  for (p = 0; p < g->planes; p++)
    TH_R(winmax_plane)(in + p * iS, out + p * oS, ind + p * oS, g, s, s->stride_y ? p : 0);
  return TH_OK;
}

/* gradInput = gradOutput scattered through 1-based indices (0: nowhere) */
static int TH_R(indexmax_backward)(const th_tensor *gradOutput, th_tensor *gradInput,
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
      if (j >= iS || j < -1) bad++;
      else if (j >= 0) dst[j] += gp[k];
    }
  }
  if (bad)
    return th_error_set("indices hold %lld positions outside the %lldx%lld input planes (were they computed for this input?)",
                        (long long)bad, (long long)g->iH, (long long)g->iW);
  return TH_OK;
}

/* Torch7's generateIntervals, in 'real' as Torch7 computes it: window
   starts ((i + u) a) - (u a) truncated, a = (n - pool) / (o - 1), the
   last window flush with the end */
static void TH_R(frac_seq)(real u, int64_t n, int64_t o, int64_t pool, int64_t *a0, int64_t *a1) {
  real alpha = (real)(n - pool) / (real)(o - 1);
  int64_t i;
  for (i = 0; i < o - 1; i++) {
    a0[i] = (int64_t)(((real)i + u) * alpha) - (int64_t)(u * alpha);
    a1[i] = a0[i] + pool;
  }
  a0[o - 1] = n - pool;
  a1[o - 1] = n;
}

static int TH_R(frac_spans)(const th_tensor *samples, spans *s, const geom *g, int64_t poolW,
                            int64_t poolH) {
  const real *u = th_tensor_data(samples);
  int64_t p;
  for (p = 0; p < g->planes; p++) {
    if (!(u[2 * p] >= 0 && u[2 * p] < 1 && u[2 * p + 1] >= 0 && u[2 * p + 1] < 1))
      return th_error_set("randomSamples must lie in [0, 1), got %g, %g for plane %lld",
                          (double)u[2 * p], (double)u[2 * p + 1], (long long)p + 1);
    TH_R(frac_seq)(u[2 * p], g->iW, g->oW, poolW, s->x0 + p * g->oW, s->x1 + p * g->oW);
    TH_R(frac_seq)(u[2 * p + 1], g->iH, g->oH, poolH, s->y0 + p * g->oH, s->y1 + p * g->oH);
  }
  return TH_OK;
}

static int TH_R(winavg_forward)(const th_tensor *input, th_tensor *output, const geom *g,
                                const spans *s) {
  const real *in = th_tensor_data(input);
  real *out = th_tensor_data(output);
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  int64_t p;
#pragma omp parallel for if (g->planes * iS > TH_NN_PAR_MIN_ELEMS)
  for (p = 0; p < g->planes; p++) {
    const real *ip = in + p * iS;
    real *op = out + p * oS;
    int64_t oy, ox, y, x;
    for (oy = 0; oy < g->oH; oy++) {
      for (ox = 0; ox < g->oW; ox++) {
        real sum = 0;
        for (y = s->y0[oy]; y < s->y1[oy]; y++)
          for (x = s->x0[ox]; x < s->x1[ox]; x++) sum += ip[y * g->iW + x];
        /* Torch7 divides twice, in 'real' */
        op[oy * g->oW + ox] = sum / (real)(s->x1[ox] - s->x0[ox]) / (real)(s->y1[oy] - s->y0[oy]);
      }
    }
  }
  return TH_OK;
}

static int TH_R(winavg_backward)(const th_tensor *gradOutput, th_tensor *gradInput, const geom *g,
                                 const spans *s) {
  const real *go = th_tensor_data(gradOutput);
  real *gi = th_tensor_data(gradInput);
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  int64_t p;
  memset(gi, 0, sizeof(real) * (size_t)(g->planes * iS));
#pragma omp parallel for if (g->planes * iS > TH_NN_PAR_MIN_ELEMS)
  for (p = 0; p < g->planes; p++) {
    const real *gp = go + p * oS;
    real *ip = gi + p * iS;
    int64_t oy, ox, y, x;
    for (oy = 0; oy < g->oH; oy++) {
      for (ox = 0; ox < g->oW; ox++) {
        real v = gp[oy * g->oW + ox] / (real)(s->x1[ox] - s->x0[ox]) / (real)(s->y1[oy] - s->y0[oy]);
        for (y = s->y0[oy]; y < s->y1[oy]; y++)
          for (x = s->x0[ox]; x < s->x1[ox]; x++) ip[y * g->iW + x] += v;
      }
    }
  }
  return TH_OK;
}
