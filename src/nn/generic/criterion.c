/* generic/criterion.c: criterion loops for 'real' (included by th_nn_criterion.c) */

/* the loss of elements [lo, hi), summed in order from 0 */
static accreal TH_R(crit_sum)(th_nn_crit op, const double *p, const struct operands *o,
                              int64_t lo, int64_t hi) {
  const real *x = th_tensor_data(&o->x), *y = th_tensor_data(&o->y);
  const real *w = o->has_w ? th_tensor_data(&o->w) : NULL;
  accreal sum = 0;
  int64_t i;
  switch (op) {
    case TH_NN_MSE:
      for (i = lo; i < hi; i++) {
        accreal z = (accreal)x[i] - y[i];
        sum += z * z;
      }
      break;
    case TH_NN_ABS:
      for (i = lo; i < hi; i++) sum += fabs((accreal)x[i] - y[i]);
      break;
    case TH_NN_SMOOTHL1:
      for (i = lo; i < hi; i++) {
        accreal z = fabs((accreal)x[i] - y[i]);
        sum += z < 1 ? 0.5 * z * z : z - 0.5;
      }
      break;
    case TH_NN_MARGIN: {
      const accreal margin = p[0];
      for (i = lo; i < hi; i++) {
        accreal z = margin - (accreal)x[i] * y[i];
        sum += z > 0 ? z : 0;
      }
      break;
    }
    case TH_NN_DISTKLDIV:
      for (i = lo; i < hi; i++)
        sum += y[i] > 0 ? (accreal)y[i] * (log((accreal)y[i]) - x[i]) : 0;
      break;
    case TH_NN_BCE: {
      const int64_t wn = o->wn;
      for (i = lo; i < hi; i++) {
        accreal xi = x[i], yi = y[i];
        accreal l = yi * log(xi + BCE_EPS) + (1 - yi) * log(1 - xi + BCE_EPS);
        sum -= w ? w[i % wn] * l : l;
      }
      break;
    }
    default: break;
  }
  return sum;
}

typedef struct TH_R(crit_job) {
  th_nn_crit op;
  const double *p;
  const struct operands *o;
  int64_t bs;
  accreal *part;
  real *g;
  double norm;
} TH_R(crit_job);

static void TH_R(crit_sum_blocks)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(crit_job) *j = arg;
  int64_t k;
  for (k = lo; k < hi; k++) {
    const int64_t a = k * j->bs, b = a + j->bs < j->o->n ? a + j->bs : j->o->n;
    j->part[k] = TH_R(crit_sum)(j->op, j->p, j->o, a, b);
  }
}

/* the loss summed over all elements (not yet averaged). From CRIT_PAR_MIN
   elements on, blocks whose size depends on n alone are summed apart
   (over th_pool) and their sums added in order: the same bits for every
   thread count (the OpenMP reduction before it gave one thread's serial
   sum and two threads' half sums added, two different results) */
static double TH_R(crit_forward)(th_nn_crit op, const double *p, const struct operands *o) {
  const int64_t n = o->n;
  TH_R(crit_job) j;
  accreal part[CRIT_MAX_BLOCKS], sum = 0;
  int64_t k, nb;
  if (n < CRIT_PAR_MIN) return (double)TH_R(crit_sum)(op, p, o, 0, n);
  j.op = op, j.p = p, j.o = o, j.part = part;
  j.bs = (n + CRIT_MAX_BLOCKS - 1) / CRIT_MAX_BLOCKS;
  if (j.bs < CRIT_BLOCK) j.bs = CRIT_BLOCK;
  nb = (n + j.bs - 1) / j.bs;
  th_pool_ranges(th_nn_threads_over(n, 0), nb, TH_R(crit_sum_blocks), &j);
  for (k = 0; k < nb; k++) sum += part[k];
  return (double)sum;
}

/* gradInput of elements [lo, hi) */
static void TH_R(crit_grad)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(crit_job) *j = arg;
  const struct operands *o = j->o;
  const real *x = th_tensor_data(&o->x), *y = th_tensor_data(&o->y);
  const real *w = o->has_w ? th_tensor_data(&o->w) : NULL;
  real *g = j->g;
  const double norm_d = j->norm;
  const real norm = (real)norm_d;
  int64_t i;
  switch (j->op) {
    case TH_NN_MSE:
      for (i = lo; i < hi; i++) g[i] = 2 * norm * (x[i] - y[i]);
      break;
    case TH_NN_ABS:
      for (i = lo; i < hi; i++) g[i] = x[i] - y[i] >= 0 ? norm : -norm;
      break;
    case TH_NN_SMOOTHL1:
      for (i = lo; i < hi; i++) {
        real z = x[i] - y[i];
        g[i] = z < -1 ? -norm : z > 1 ? norm : norm * z;
      }
      break;
    case TH_NN_MARGIN: {
      const real margin = (real)j->p[0];
      for (i = lo; i < hi; i++) g[i] = margin - x[i] * y[i] > 0 ? -norm * y[i] : 0;
      break;
    }
    case TH_NN_DISTKLDIV:
      for (i = lo; i < hi; i++) g[i] = y[i] > 0 ? -norm * y[i] : 0;
      break;
    case TH_NN_BCE: {
      const int64_t wn = o->wn;
      /* Torch7's form: (x - y) / (x (1 + eps - x) + eps) */
      for (i = lo; i < hi; i++) {
        accreal xi = x[i];
        accreal d = (xi - y[i]) / (xi * (1 + BCE_EPS - xi) + BCE_EPS);
        g[i] = (real)(norm_d * (w ? w[i % wn] * d : d));
      }
      break;
    }
    default: break;
  }
}

static int TH_R(crit_backward)(th_nn_crit op, const double *p, const struct operands *o,
                               double norm_d, th_tensor *gradInput) {
  TH_R(crit_job) j;
  if ((unsigned)op >= TH_NN_NCRIT) return th_error_set("unknown criterion %d", (int)op);
  j.op = op, j.p = p, j.o = o, j.g = th_tensor_data(gradInput), j.norm = norm_d;
  th_pool_ranges(th_nn_threads_over(o->n, CRIT_PAR_MIN - 1), o->n, TH_R(crit_grad), &j);
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
