/* generic/volpad.c: replication padding for 'real' (included by th_nn_volpad.c).
   Forward (back = 0) copies 'a' (input) into 'b' (output); backward
   (back = 1) adds 'b' (gradOutput) into 'a' (gradInput, zeroed first). */
static int TH_R(volpad)(th_tensor *at, th_tensor *bt, const geom *g, int back) {
  real *A = th_tensor_data(at), *Bp = th_tensor_data(bt);
  const int64_t iS = g->iT * g->iH * g->iW, oS = g->oT * g->oH * g->oW;
  int64_t p;
  if (back) memset(A, 0, sizeof(real) * (size_t)(g->planes * iS));
#pragma omp parallel for if (g->planes * oS > TH_NN_PAR_MIN_ELEMS)
  for (p = 0; p < g->planes; p++) {
    real *ip = A + p * iS, *op = Bp + p * oS;
    int64_t t, y, x;
    for (t = 0; t < g->oT; t++) {
      const int64_t it = clamp(t - g->pf, g->iT);
      for (y = 0; y < g->oH; y++) {
        real *irow = ip + (it * g->iH + clamp(y - g->pt, g->iH)) * g->iW;
        real *orow = op + (t * g->oH + y) * g->oW;
        if (back)
          for (x = 0; x < g->oW; x++) irow[clamp(x - g->pl, g->iW)] += orow[x];
        else
          for (x = 0; x < g->oW; x++) orow[x] = irow[clamp(x - g->pl, g->iW)];
      }
    }
  }
  return TH_OK;
}
