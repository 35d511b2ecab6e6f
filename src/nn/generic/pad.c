/* generic/pad.c: padding through index maps for 'real' (included by th_nn_pad.c) */

/* forward (back = 0) copies 'a' (input) into 'b' (output) through the
   maps; backward (back = 1) adds 'b' (gradOutput) into 'a' (gradInput) */
typedef struct TH_R(pad_job) {
  real *a, *b;
  const geom *g;
  int back;
} TH_R(pad_job);

static void TH_R(pad_planes)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(pad_job) *j = arg;
  const geom *g = j->g;
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  int64_t p;
  for (p = lo; p < hi; p++) {
    real *ip = j->a + p * iS, *op = j->b + p * oS;
    int64_t y, x;
    for (y = 0; y < g->oH; y++) {
      real *row = ip + g->my[y] * g->iW, *orow = op + y * g->oW;
      if (j->back)
        for (x = 0; x < g->oW; x++) row[g->mx[x]] += orow[x];
      else
        for (x = 0; x < g->oW; x++) orow[x] = row[g->mx[x]];
    }
  }
}

static void TH_R(pad_run)(real *a, real *b, const geom *g, int back) {
  TH_R(pad_job) j;
  j.a = a, j.b = b, j.g = g, j.back = back;
  th_pool_ranges(th_nn_threads_over(g->planes * g->oH * g->oW, TH_NN_PAR_MIN_ELEMS), g->planes,
                 TH_R(pad_planes), &j);
}

static int TH_R(pad_forward)(const th_tensor *input, th_tensor *output, const geom *g) {
  TH_R(pad_run)(th_tensor_data(input), th_tensor_data(output), g, 0);
  return TH_OK;
}

static int TH_R(pad_backward)(const th_tensor *gradOutput, th_tensor *gradInput, const geom *g) {
  real *gi = th_tensor_data(gradInput);
  memset(gi, 0, sizeof(real) * (size_t)(g->planes * g->iH * g->iW));
  TH_R(pad_run)(gi, th_tensor_data(gradOutput), g, 1);
  return TH_OK;
}
