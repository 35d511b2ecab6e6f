/* generic/margin.c: margin criterion loops for 'real' (included by th_nn_margin.c).
   Targets are 1-based Long values already checked to be in range. */

static double TH_R(multimargin_forward)(const struct rows *r, int p, double margin) {
  const real *x = th_tensor_data(&r->x);
  const real *w = r->has_w ? th_tensor_data(&r->w) : NULL;
  const int64_t *t = th_tensor_data(&r->t);
  accreal sum = 0;
  int64_t b, i;
  for (b = 0; b < r->B; b++) {
    const real *row = x + b * r->C;
    const int64_t y = t[b] - 1;
    const accreal wy = w ? w[y] : 1;
    for (i = 0; i < r->C; i++) {
      accreal z = margin - row[y] + row[i];
      if (i == y || z <= 0) continue;
      sum += wy * (p == 1 ? z : z * z);
    }
  }
  return (double)sum;
}

/* gradInput is zeroed and contiguous (resized by the caller) */
static int TH_R(multimargin_backward)(const struct rows *r, int p, double margin, double g,
                                      th_tensor *gradInput) {
  const real *x = th_tensor_data(&r->x);
  const real *w = r->has_w ? th_tensor_data(&r->w) : NULL;
  const int64_t *t = th_tensor_data(&r->t);
  real *gi = th_tensor_data(gradInput);
  int64_t b, i;
  for (b = 0; b < r->B; b++) {
    const real *row = x + b * r->C;
    real *grow = gi + b * r->C;
    const int64_t y = t[b] - 1;
    const accreal wy = w ? w[y] : 1;
    accreal gy = 0;
    for (i = 0; i < r->C; i++) {
      accreal z = margin - row[y] + row[i];
      accreal h;
      if (i == y || z <= 0) continue;
      h = wy * (p == 1 ? g : 2 * g * z);
      grow[i] = (real)h;
      gy -= h;
    }
    grow[y] = (real)gy;
  }
  return TH_OK;
}

/* isTarget (contiguous, the input's shape): 1 at each row's target classes */
static int TH_R(multilabel_mark)(const struct rows *r, th_tensor *isTarget) {
  const int64_t *t = th_tensor_data(&r->t);
  real *m = th_tensor_data(isTarget);
  int64_t b, j;
  for (b = 0; b < r->B * r->C; b++) m[b] = 0;
  for (b = 0; b < r->B; b++) {
    for (j = 0; j < r->C && t[b * r->C + j] != 0; j++) m[b * r->C + t[b * r->C + j] - 1] = 1;
  }
  return TH_OK;
}

static double TH_R(multilabel_forward)(const struct rows *r, const th_tensor *isTarget) {
  const real *x = th_tensor_data(&r->x), *m = th_tensor_data(isTarget);
  const int64_t *t = th_tensor_data(&r->t);
  accreal sum = 0;
  int64_t b, j, i;
  for (b = 0; b < r->B; b++) {
    const real *row = x + b * r->C, *mrow = m + b * r->C;
    const int64_t *trow = t + b * r->C;
    for (j = 0; j < r->C && trow[j] != 0; j++) {
      const real xt = row[trow[j] - 1];
      for (i = 0; i < r->C; i++) {
        accreal z = 1 - (accreal)xt + row[i];
        if (!mrow[i] && z > 0) sum += z;
      }
    }
  }
  return (double)sum;
}

static int TH_R(multilabel_backward)(const struct rows *r, const th_tensor *isTarget, double g,
                                     th_tensor *gradInput) {
  const real *x = th_tensor_data(&r->x), *m = th_tensor_data(isTarget);
  const int64_t *t = th_tensor_data(&r->t);
  real *gi = th_tensor_data(gradInput);
  int64_t b, j, i;
  for (b = 0; b < r->B; b++) {
    const real *row = x + b * r->C, *mrow = m + b * r->C;
    const int64_t *trow = t + b * r->C;
    real *grow = gi + b * r->C;
    for (j = 0; j < r->C && trow[j] != 0; j++) {
      const int64_t y = trow[j] - 1;
      for (i = 0; i < r->C; i++) {
        accreal z = 1 - (accreal)row[y] + row[i];
        if (!mrow[i] && z > 0) {
          grow[y] -= (real)g;
          grow[i] += (real)g;
        }
      }
    }
  }
  return TH_OK;
}
