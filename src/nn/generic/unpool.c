/* generic/unpool.c: max unpooling for 'real' (included by th_nn_unpool.c);
   both return the number of out-of-range indices (0 when all is well) */

/* 'in' the pooled side (input, gradInput), 'out' the unpooled side */
typedef struct TH_R(unpool_job) {
  real *in, *out;
  const int64_t *ind;
  const geom *g;
  _Atomic int64_t bad;
} TH_R(unpool_job);

static void TH_R(maxunpool_forward_planes)(void *arg, int64_t lo, int64_t hi) {
  TH_R(unpool_job) *j = arg;
  const geom *g = j->g;
  int64_t p, bad = 0;
  for (p = lo; p < hi; p++) {
    const real *ip = j->in + p * g->iS;
    const int64_t *xp = j->ind + p * g->iS;
    real *op = j->out + p * g->oS;
    int64_t k;
    for (k = 0; k < g->iS; k++) {
      int64_t i = xp[k] - 1;
      if (i < 0 || i >= g->oS) bad++;
      else op[i] = ip[k];
    }
  }
  if (bad) atomic_fetch_add(&j->bad, bad);
}

static void TH_R(maxunpool_backward_planes)(void *arg, int64_t lo, int64_t hi) {
  TH_R(unpool_job) *j = arg;
  const geom *g = j->g;
  int64_t p, bad = 0;
  for (p = lo; p < hi; p++) {
    const real *gp = j->out + p * g->oS;
    const int64_t *xp = j->ind + p * g->iS;
    real *dst = j->in + p * g->iS;
    int64_t k;
    for (k = 0; k < g->iS; k++) {
      int64_t i = xp[k] - 1;
      if (i < 0 || i >= g->oS) {
        bad++;
        dst[k] = 0;
      } else {
        dst[k] = gp[i];
      }
    }
  }
  if (bad) atomic_fetch_add(&j->bad, bad);
}

static int64_t TH_R(maxunpool_run)(real *in, real *out, const th_tensor *indices, const geom *g,
                                   void (*planes)(void *, int64_t, int64_t)) {
  TH_R(unpool_job) j;
  j.in = in, j.out = out, j.ind = th_tensor_data(indices), j.g = g;
  atomic_init(&j.bad, 0);
  th_pool_ranges(th_nn_threads_over(g->planes * g->iS, TH_NN_PAR_MIN_ELEMS), g->planes, planes,
                 &j);
  return atomic_load(&j.bad);
}

static int64_t TH_R(maxunpool_forward)(const th_tensor *input, th_tensor *output,
                                       const th_tensor *indices, const geom *g) {
  real *out = th_tensor_data(output);
  memset(out, 0, sizeof(real) * (size_t)(g->planes * g->oS));
  return TH_R(maxunpool_run)(th_tensor_data(input), out, indices, g,
                             TH_R(maxunpool_forward_planes));
}

static int64_t TH_R(maxunpool_backward)(const th_tensor *gradOutput, th_tensor *gradInput,
                                        const th_tensor *indices, const geom *g) {
  return TH_R(maxunpool_run)(th_tensor_data(gradInput), th_tensor_data(gradOutput), indices, g,
                             TH_R(maxunpool_backward_planes));
}
