/* generic/lookup.c: LookupTable loops for 'real' (included by th_nn_lookup.c);
   indices already checked to lie in 1..nIndex */

typedef struct TH_R(gather_job) {
  const real *w;
  real *out;
  const int64_t *ix;
  int64_t d, s0, s1;
} TH_R(gather_job);

static void TH_R(lookup_gather_rows)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(gather_job) *j = arg;
  const int64_t d = j->d, s1 = j->s1;
  int64_t i;
  for (i = lo; i < hi; i++) {
    const real *row = j->w + (j->ix[i] - 1) * j->s0;
    real *o = j->out + i * d;
    int64_t k;
    for (k = 0; k < d; k++) o[k] = row[k * s1];
  }
}

static int TH_R(lookup_gather)(const th_tensor *weight, const th_tensor *idx, th_tensor *output) {
  TH_R(gather_job) j;
  const int64_t n = th_tensor_numel(idx);
  j.w = th_tensor_data(weight), j.out = th_tensor_data(output), j.ix = th_tensor_data(idx);
  j.d = weight->size[1], j.s0 = weight->stride[0], j.s1 = weight->stride[1];
  th_pool_ranges(th_nn_threads_over(n * j.d, 65535), n, TH_R(lookup_gather_rows), &j);
  return TH_OK;
}

static int TH_R(lookup_scatter)(const th_tensor *idx, const th_tensor *gradOutput,
                                th_tensor *gradWeight, int64_t padding, double scale) {
  real *gw = th_tensor_data(gradWeight);
  const real *go = th_tensor_data(gradOutput);
  const int64_t *ix = th_tensor_data(idx);
  const int64_t n = th_tensor_numel(idx), d = gradWeight->size[1];
  const int64_t s0 = gradWeight->stride[0], s1 = gradWeight->stride[1];
  const real sc = (real)scale;
  int64_t i, j;
  /* serial: the same row may be named many times */
  for (i = 0; i < n; i++) {
    real *row;
    const real *g = go + i * d;
    if (ix[i] == padding) continue;
    row = gw + (ix[i] - 1) * s0;
    for (j = 0; j < d; j++) row[j * s1] += sc * g[j];
  }
  return TH_OK;
}

static int TH_R(lookup_renorm)(th_tensor *weight, const th_tensor *sorted, double maxNorm,
                               double normType) {
  real *w = th_tensor_data(weight);
  const int64_t *ix = th_tensor_data(sorted);
  const int64_t n = th_tensor_numel(sorted), d = weight->size[1];
  const int64_t s0 = weight->stride[0], s1 = weight->stride[1];
  int64_t i, j;
  for (i = 0; i < n; i++) {
    real *row;
    accreal norm = 0;
    if (i > 0 && ix[i] == ix[i - 1]) continue;
    row = w + (ix[i] - 1) * s0;
    for (j = 0; j < d; j++) {
      accreal a = fabs((accreal)row[j * s1]);
      norm += normType == 1 ? a : normType == 2 ? a * a : pow(a, normType);
    }
    norm = normType == 1 ? norm : normType == 2 ? sqrt(norm) : pow(norm, 1.0 / normType);
    if (norm > maxNorm) {
      real f = (real)(maxNorm / (norm + 1e-7));
      for (j = 0; j < d; j++) row[j * s1] *= f;
    }
  }
  return TH_OK;
}
