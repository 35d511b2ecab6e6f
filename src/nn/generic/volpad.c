/* generic/volpad.c: replication padding for 'real' (included by th_nn_volpad.c).
   Forward (back = 0) copies 'a' (input) into 'b' (output); backward
   (back = 1) adds 'b' (gradOutput) into 'a' (gradInput, zeroed first). */
typedef struct TH_R(volpad_job) {
  real *a, *b;
  const geom *g;
  int back;
} TH_R(volpad_job);

static void TH_R(volpad_planes)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(volpad_job) *j = arg;
  const geom *g = j->g;
  const int64_t iS = g->iT * g->iH * g->iW, oS = g->oT * g->oH * g->oW;
  int64_t p;
  for (p = lo; p < hi; p++) {
    real *ip = j->a + p * iS, *op = j->b + p * oS;
    int64_t t, y, x;
    for (t = 0; t < g->oT; t++) {
      const int64_t it = clamp(t - g->pf, g->iT);
      for (y = 0; y < g->oH; y++) {
        real *irow = ip + (it * g->iH + clamp(y - g->pt, g->iH)) * g->iW;
        real *orow = op + (t * g->oH + y) * g->oW;
        if (j->back)
          for (x = 0; x < g->oW; x++) irow[clamp(x - g->pl, g->iW)] += orow[x];
        else
          for (x = 0; x < g->oW; x++) orow[x] = irow[clamp(x - g->pl, g->iW)];
      }
    }
  }
}

static int TH_R(volpad)(th_tensor *at, th_tensor *bt, const geom *g, int back) {
  TH_R(volpad_job) j;
  j.a = th_tensor_data(at), j.b = th_tensor_data(bt), j.g = g, j.back = back;
  if (back) memset(j.a, 0, sizeof(real) * (size_t)(g->planes * g->iT * g->iH * g->iW));
  th_pool_ranges(th_nn_threads_over(g->planes * g->oT * g->oH * g->oW, TH_NN_PAR_MIN_ELEMS),
                 g->planes, TH_R(volpad_planes), &j);
  return TH_OK;
}
