/* generic/criterion.c: criterion loops for 'real' (included by th_nn_criterion.c) */

/* the loss summed over all elements (not yet averaged) */
static double TH_R(crit_forward)(th_nn_crit op, const double *p, const struct operands *o) {
  const real *x = th_tensor_data(&o->x), *y = th_tensor_data(&o->y);
  const real *w = o->has_w ? th_tensor_data(&o->w) : NULL;
  const int64_t n = o->n;
  accreal sum = 0;
  int64_t i;
  switch (op) {
    case TH_NN_MSE:
#pragma omp parallel for reduction(+ : sum) if (n >= OMP_MIN)
      for (i = 0; i < n; i++) {
        accreal z = (accreal)x[i] - y[i];
        sum += z * z;
      }
      break;
    case TH_NN_ABS:
#pragma omp parallel for reduction(+ : sum) if (n >= OMP_MIN)
      for (i = 0; i < n; i++) sum += fabs((accreal)x[i] - y[i]);
      break;
    case TH_NN_SMOOTHL1:
#pragma omp parallel for reduction(+ : sum) if (n >= OMP_MIN)
      for (i = 0; i < n; i++) {
        accreal z = fabs((accreal)x[i] - y[i]);
        sum += z < 1 ? 0.5 * z * z : z - 0.5;
      }
      break;
    case TH_NN_MARGIN: {
      const accreal margin = p[0];
#pragma omp parallel for reduction(+ : sum) if (n >= OMP_MIN)
      for (i = 0; i < n; i++) {
        accreal z = margin - (accreal)x[i] * y[i];
        sum += z > 0 ? z : 0;
      }
      break;
    }
    case TH_NN_DISTKLDIV:
#pragma omp parallel for reduction(+ : sum) if (n >= OMP_MIN)
      for (i = 0; i < n; i++)
        sum += y[i] > 0 ? (accreal)y[i] * (log((accreal)y[i]) - x[i]) : 0;
      break;
    case TH_NN_BCE: {
      const int64_t wn = o->wn;
#pragma omp parallel for reduction(+ : sum) if (n >= OMP_MIN)
      for (i = 0; i < n; i++) {
        accreal xi = x[i], yi = y[i];
        accreal l = yi * log(xi + BCE_EPS) + (1 - yi) * log(1 - xi + BCE_EPS);
        sum -= w ? w[i % wn] * l : l;
      }
      break;
    }
    default: break;
  }
  return (double)sum;
}

static int TH_R(crit_backward)(th_nn_crit op, const double *p, const struct operands *o,
                               double norm_d, th_tensor *gradInput) {
  const real *x = th_tensor_data(&o->x), *y = th_tensor_data(&o->y);
  const real *w = o->has_w ? th_tensor_data(&o->w) : NULL;
  real *g = th_tensor_data(gradInput);
  const int64_t n = o->n;
  const real norm = (real)norm_d;
  int64_t i;
  switch (op) {
    case TH_NN_MSE:
#pragma omp parallel for if (n >= OMP_MIN)
      for (i = 0; i < n; i++) g[i] = 2 * norm * (x[i] - y[i]);
      break;
    case TH_NN_ABS:
#pragma omp parallel for if (n >= OMP_MIN)
      for (i = 0; i < n; i++) g[i] = x[i] - y[i] >= 0 ? norm : -norm;
      break;
    case TH_NN_SMOOTHL1:
#pragma omp parallel for if (n >= OMP_MIN)
      for (i = 0; i < n; i++) {
        real z = x[i] - y[i];
        g[i] = z < -1 ? -norm : z > 1 ? norm : norm * z;
      }
      break;
    case TH_NN_MARGIN: {
      const real margin = (real)p[0];
#pragma omp parallel for if (n >= OMP_MIN)
      for (i = 0; i < n; i++) g[i] = margin - x[i] * y[i] > 0 ? -norm * y[i] : 0;
      break;
    }
    case TH_NN_DISTKLDIV:
#pragma omp parallel for if (n >= OMP_MIN)
      for (i = 0; i < n; i++) g[i] = y[i] > 0 ? -norm * y[i] : 0;
      break;
    case TH_NN_BCE: {
      const int64_t wn = o->wn;
      /* Torch7's form: (x - y) / (x (1 + eps - x) + eps) */
#pragma omp parallel for if (n >= OMP_MIN)
      for (i = 0; i < n; i++) {
        accreal xi = x[i];
        accreal d = (xi - y[i]) / (xi * (1 + BCE_EPS - xi) + BCE_EPS);
        g[i] = (real)(norm_d * (w ? w[i % wn] * d : d));
      }
      break;
    }
    default: return th_error_set("unknown criterion %d", (int)op);
  }
  return TH_OK;
}

static int TH_R(nll_forward)(const struct nll *s, int64_t ignore, double *output,
                             double *total_weight) {
  const real *x = th_tensor_data(&s->x);
  const real *w = s->has_w ? th_tensor_data(&s->w) : NULL;
  const int64_t *t = th_tensor_data(&s->t);
  accreal sum = 0, tw = 0;
  int64_t b;
  for (b = 0; b < s->B; b++) {
    int64_t c = t[b];
    accreal wc;
    if (c == ignore) continue;
    wc = w ? w[c - 1] : 1;
    sum -= wc * x[b * s->C + c - 1];
    tw += wc;
  }
  *output = (double)sum;
  *total_weight = (double)tw;
  return TH_OK;
}

static int TH_R(nll_backward)(const struct nll *s, int64_t ignore, double norm,
                              th_tensor *gradInput) {
  const real *w = s->has_w ? th_tensor_data(&s->w) : NULL;
  const int64_t *t = th_tensor_data(&s->t);
  real *g = th_tensor_data(gradInput);
  int64_t b;
  for (b = 0; b < s->B; b++) {
    int64_t c = t[b];
    if (c == ignore) continue;
    g[b * s->C + c - 1] = (real)(-(w ? w[c - 1] : 1) * norm);
  }
  return TH_OK;
}
