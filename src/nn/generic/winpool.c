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

/* the operands of one call: 'a' the input side (input, gradInput), 'b'
   the output side (output, gradOutput); 'bad' counts indices outside a plane */
typedef struct TH_R(win_job) {
  real *a, *b;
  int64_t *ind;
  const geom *g;
  const spans *s;
  int back;
  _Atomic int64_t bad;
} TH_R(win_job);

static void TH_R(winmax_planes)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(win_job) *j = arg;
  const geom *g = j->g;
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  int64_t p;
  for (p = lo; p < hi; p++)
    TH_R(winmax_plane)(j->a + p * iS, j->b + p * oS, j->ind + p * oS, g, j->s,
                       j->s->stride_y ? p : 0);
}

static int TH_R(winmax_forward)(const th_tensor *input, th_tensor *output, th_tensor *indices,
                                const geom *g, const spans *s) {
  TH_R(win_job) j;
  j.a = th_tensor_data(input), j.b = th_tensor_data(output), j.ind = th_tensor_data(indices);
  j.g = g, j.s = s;
  th_pool_ranges(th_nn_threads_over(g->planes * g->iH * g->iW, TH_NN_PAR_MIN_ELEMS), g->planes,
                 TH_R(winmax_planes), &j);
  return TH_OK;
}

static void TH_R(indexmax_planes)(void *arg, int64_t lo, int64_t hi) {
  TH_R(win_job) *j = arg;
  const geom *g = j->g;
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  int64_t p, bad = 0;
  for (p = lo; p < hi; p++) {
    const real *gp = j->b + p * oS;
    const int64_t *xp = j->ind + p * oS;
    real *dst = j->a + p * iS;
    int64_t k;
    for (k = 0; k < oS; k++) {
      int64_t i = xp[k] - 1;
      if (i >= iS || i < -1) bad++;
      else if (i >= 0) dst[i] += gp[k];
    }
  }
  if (bad) atomic_fetch_add(&j->bad, bad);
}

/* gradInput = gradOutput scattered through 1-based indices (0: nowhere) */
static int TH_R(indexmax_backward)(const th_tensor *gradOutput, th_tensor *gradInput,
                                   const th_tensor *indices, const geom *g) {
  TH_R(win_job) j;
  int64_t bad;
  j.a = th_tensor_data(gradInput), j.b = th_tensor_data(gradOutput);
  j.ind = th_tensor_data(indices), j.g = g, j.s = NULL;
  atomic_init(&j.bad, 0);
  memset(j.a, 0, sizeof(real) * (size_t)(g->planes * g->iH * g->iW));
  th_pool_ranges(th_nn_threads_over(g->planes * g->oH * g->oW, TH_NN_PAR_MIN_ELEMS), g->planes,
                 TH_R(indexmax_planes), &j);
  bad = atomic_load(&j.bad);
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

/* average over each output's span (back = 0: 'b' from 'a'), or each
   output's gradient spread over its span (back = 1: 'a' from 'b') */
static void TH_R(winavg_planes)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(win_job) *j = arg;
  const geom *g = j->g;
  const spans *s = j->s;
  const int back = j->back;
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  int64_t p;
  for (p = lo; p < hi; p++) {
    real *ip = j->a + p * iS, *op = j->b + p * oS;
    int64_t oy, ox, y, x;
    for (oy = 0; oy < g->oH; oy++) {
      for (ox = 0; ox < g->oW; ox++) {
        if (back) {
          real v = op[oy * g->oW + ox] / (real)(s->x1[ox] - s->x0[ox]) / (real)(s->y1[oy] - s->y0[oy]);
          for (y = s->y0[oy]; y < s->y1[oy]; y++)
            for (x = s->x0[ox]; x < s->x1[ox]; x++) ip[y * g->iW + x] += v;
        } else {
          real sum = 0;
          for (y = s->y0[oy]; y < s->y1[oy]; y++)
            for (x = s->x0[ox]; x < s->x1[ox]; x++) sum += ip[y * g->iW + x];
          /* Torch7 divides twice, in 'real' */
          op[oy * g->oW + ox] = sum / (real)(s->x1[ox] - s->x0[ox]) / (real)(s->y1[oy] - s->y0[oy]);
        }
      }
    }
  }
}

static void TH_R(winavg_run)(real *a, real *b, const geom *g, const spans *s, int back) {
  TH_R(win_job) j;
  j.a = a, j.b = b, j.ind = NULL, j.g = g, j.s = s, j.back = back;
  th_pool_ranges(th_nn_threads_over(g->planes * g->iH * g->iW, TH_NN_PAR_MIN_ELEMS), g->planes,
                 TH_R(winavg_planes), &j);
}

static int TH_R(winavg_forward)(const th_tensor *input, th_tensor *output, const geom *g,
                                const spans *s) {
  TH_R(winavg_run)(th_tensor_data(input), th_tensor_data(output), g, s, 0);
  return TH_OK;
}

static int TH_R(winavg_backward)(const th_tensor *gradOutput, th_tensor *gradInput, const geom *g,
                                 const spans *s) {
  real *gi = th_tensor_data(gradInput);
  memset(gi, 0, sizeof(real) * (size_t)(g->planes * g->iH * g->iW));
  TH_R(winavg_run)(gi, th_tensor_data(gradOutput), g, s, 1);
  return TH_OK;
}
