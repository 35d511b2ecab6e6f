/* generic/pad.c: padding through index maps for 'real' (included by th_nn_pad.c) */

static int TH_R(pad_forward)(const th_tensor *input, th_tensor *output, const geom *g) {
  const real *in = th_tensor_data(input);
  real *out = th_tensor_data(output);
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  int64_t p;
#pragma omp parallel for if (g->planes * oS > TH_NN_PAR_MIN_ELEMS)
  for (p = 0; p < g->planes; p++) {
    const real *ip = in + p * iS;
    real *op = out + p * oS;
    int64_t y, x;
    for (y = 0; y < g->oH; y++) {
      const real *row = ip + g->my[y] * g->iW;
      for (x = 0; x < g->oW; x++) op[y * g->oW + x] = row[g->mx[x]];
    }
  }
  return TH_OK;
}

static int TH_R(pad_backward)(const th_tensor *gradOutput, th_tensor *gradInput, const geom *g) {
  const real *go = th_tensor_data(gradOutput);
  real *gi = th_tensor_data(gradInput);
  const int64_t iS = g->iH * g->iW, oS = g->oH * g->oW;
  int64_t p;
  memset(gi, 0, sizeof(real) * (size_t)(g->planes * iS));
#pragma omp parallel for if (g->planes * oS > TH_NN_PAR_MIN_ELEMS)
  for (p = 0; p < g->planes; p++) {
    const real *gp = go + p * oS;
    real *ip = gi + p * iS;
    int64_t y, x;
    for (y = 0; y < g->oH; y++) {
      real *row = ip + g->my[y] * g->iW;
      for (x = 0; x < g->oW; x++) row[g->mx[x]] += gp[y * g->oW + x];
    }
  }
  return TH_OK;
}
