/* generic/indexlinear.c: IndexLinear loops for 'real' (included by
   th_nn_indexlinear.c); every key, size and shape already checked */

static int TH_R(il_output)(const int64_t *keys, int64_t off, const real *values,
                           const int64_t *sizes, int64_t batch, real *out, real *w, int64_t ws0,
                           const real *bias, int64_t outDim, int64_t norm, real *nv, int train) {
  int64_t j, i, k, at = 0;
  for (j = 0; j < batch; j++) {
    real *o = out + j * outDim;
    for (k = 0; k < outDim; k++) o[k] = bias[k];
    for (i = 0; i < sizes[j]; i++, at++) {
      real *row = w + (keys[at] + off) * ws0;
      real v = values[at];
      if (norm) {
        real a = (real)fabs((double)v);
        if (train) {
          if (a > row[0]) {
            row[0] = a;
            row[1] = 1 / a;
          }
          row[2] = 1;
        }
        /* clamp to [-1, 1] beyond the max seen, then shift */
        v = (a > row[0] ? (real)((v > 0) - (v < 0)) : v * row[1]) + row[3];
        nv[at] = v;
        row += norm;
      }
      for (k = 0; k < outDim; k++) o[k] += row[k] * v;
    }
  }
  return TH_OK;
}

static int TH_R(il_grad)(const int64_t *sizes, int64_t batch, const real *values, const real *go,
                         real *gw, real *gb, int64_t outDim, int norm, double scale) {
  const real sc = (real)scale;
  int64_t j, i, k, at = 0;
  const int64_t width = outDim * (norm ? 2 : 1);
  for (j = 0; j < batch; j++) {
    const real *g = go + j * outDim;
    for (k = 0; k < outDim; k++) gb[k] += sc * g[k];
    for (i = 0; i < sizes[j]; i++, at++) {
      real *row = gw + at * width;
      const real v = values[at] * sc;
      if (norm) {
        for (k = 0; k < outDim; k++) row[k] = g[k] * sc;
        row += outDim;
      }
      for (k = 0; k < outDim; k++) row[k] = v * g[k];
    }
  }
  return TH_OK;
}

/* one key's step: weight row (after the norm columns) -= lr' * grad, the
   offset column -= lr' * grad0 . row, decay first; lr' scaled by the
   feature's update scale with normalisation */
static void TH_R(il_step)(real *row, int64_t norm, const real *g0, const real *g, int64_t outDim,
                          real lr, real wd) {
  int64_t k;
  if (norm) {
    real *r = row + norm;
    lr *= row[2];
    wd *= row[2];
    for (k = 0; k < outDim; k++) row[3] -= g0[k] * r[k] * lr;
    row = r;
  }
  if (wd != 0)
    for (k = 0; k < outDim; k++) row[k] -= row[k] * wd;
  for (k = 0; k < outDim; k++) row[k] -= g[k] * lr;
}

static int TH_R(il_update)(const real *gw, const real *gb, real *w, int64_t ws0, real *bias,
                           const int64_t *keys, int64_t n, int64_t off, int64_t outDim,
                           int64_t norm, double weightDecay, double lr) {
  int64_t j, k;
  const int64_t width = outDim * (norm ? 2 : 1);
  for (k = 0; k < outDim; k++) bias[k] -= (real)lr * gb[k];
  for (j = 0; j < n; j++) {
    const real *g = gw + j * width;
    TH_R(il_step)(w + (keys[j] + off) * ws0, norm, g, norm ? g + outDim : g, outDim, (real)lr,
                  (real)weightDecay);
  }
  return TH_OK;
}

static int TH_R(il_acc_update)(const int64_t *keys, int64_t off, const real *values,
                               const int64_t *sizes, int64_t batch, const real *go, real *w,
                               int64_t ws0, real *bias, int64_t outDim, int64_t norm,
                               double weightDecay, double scale) {
  int64_t j, i, k, at = 0;
  const real sc = (real)scale;
  real *g1 = malloc((size_t)outDim * 2 * sizeof(real));
  real *g0 = g1 + outDim;
  if (!g1) return th_error_set("out of memory (%lld elements)", (long long)outDim * 2);
  for (j = 0; j < batch; j++) {
    const real *g = go + j * outDim;
    for (k = 0; k < outDim; k++) bias[k] -= sc * g[k];
    for (k = 0; k < outDim; k++) g0[k] = sc * g[k];
    for (i = 0; i < sizes[j]; i++, at++) {
      const real v = values[at] * sc;
      for (k = 0; k < outDim; k++) g1[k] = v * g[k];
      TH_R(il_step)(w + (keys[at] + off) * ws0, norm, g0, g1, outDim, 1, (real)weightDecay);
    }
  }
  free(g1);
  return TH_OK;
}
