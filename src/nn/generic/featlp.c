/* generic/featlp.c: FeatureLPPooling for 'real' (included by th_nn_featlp.c) */

/* the operands of one call; forward reads in and writes out, backward
   reads go, in and out and adds into gi */
typedef struct TH_R(featlp_job) {
  const real *in, *out, *go;
  real *dst;
  const geom *g;
  double power;
  int64_t width, stride;
} TH_R(featlp_job);

static void TH_R(featlp_forward_batch)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(featlp_job) *j = arg;
  const geom *g = j->g;
  const int64_t S = g->A * g->C;   /* positions per feature */
  int64_t b;
  for (b = lo; b < hi; b++) {
    const real *ib = j->in + b * g->F * S;
    real *ob = j->dst + b * g->oF * S;
    int64_t f, s, i;
    for (f = 0; f < g->oF; f++)
      for (s = 0; s < S; s++) {
        double v = 0;
        for (i = 0; i < j->width; i++) v += pow((double)ib[(f * j->stride + i) * S + s], j->power);
        ob[f * S + s] = (real)pow(v, 1.0 / j->power);
      }
  }
}

static int TH_R(featlp_forward)(const th_tensor *input, th_tensor *output, const geom *g,
                                double power, int64_t width, int64_t stride) {
  TH_R(featlp_job) j;
  j.in = th_tensor_data(input), j.dst = th_tensor_data(output), j.out = j.go = NULL;
  j.g = g, j.power = power, j.width = width, j.stride = stride;
  th_pool_ranges(th_nn_threads_over(g->B * g->F * g->A * g->C, TH_NN_PAR_MIN_ELEMS), g->B,
                 TH_R(featlp_forward_batch), &j);
  return TH_OK;
}

static void TH_R(featlp_backward_batch)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(featlp_job) *j = arg;
  const geom *g = j->g;
  const int64_t S = g->A * g->C;
  int64_t b;
  for (b = lo; b < hi; b++) {
    const real *ib = j->in + b * g->F * S, *ob = j->out + b * g->oF * S;
    const real *gb = j->go + b * g->oF * S;
    real *db = j->dst + b * g->F * S;
    int64_t f, s, i;
    for (f = 0; f < g->oF; f++)
      for (s = 0; s < S; s++) {
        const real y = ob[f * S + s];
        if (y == (real)0) continue;   /* Torch7: no gradient through a zero output */
        for (i = 0; i < j->width; i++) {
          const int64_t k = (f * j->stride + i) * S + s;
          db[k] += (real)(gb[f * S + s] * pow((double)(ib[k] / y), j->power - 1.0));
        }
      }
  }
}

static int TH_R(featlp_backward)(const th_tensor *gradOutput, const th_tensor *input,
                                 const th_tensor *output, th_tensor *gradInput, const geom *g,
                                 double power, int64_t width, int64_t stride) {
  const int64_t S = g->A * g->C;
  TH_R(featlp_job) j;
  j.go = th_tensor_data(gradOutput), j.in = th_tensor_data(input);
  j.out = th_tensor_data(output), j.dst = th_tensor_data(gradInput);
  j.g = g, j.power = power, j.width = width, j.stride = stride;
  memset(j.dst, 0, sizeof(real) * (size_t)(g->B * g->F * S));
  th_pool_ranges(th_nn_threads_over(g->B * g->F * S, TH_NN_PAR_MIN_ELEMS), g->B,
                 TH_R(featlp_backward_batch), &j);
  return TH_OK;
}
