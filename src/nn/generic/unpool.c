/* generic/unpool.c: max unpooling for 'real' (included by th_nn_unpool.c);
   both return the number of out-of-range indices (0 when all is well) */

static int64_t TH_R(maxunpool_forward)(const th_tensor *input, th_tensor *output,
                                       const th_tensor *indices, const geom *g) {
  const real *in = th_tensor_data(input);
  const int64_t *ind = th_tensor_data(indices);
  real *out = th_tensor_data(output);
  int64_t p, bad = 0;
  memset(out, 0, sizeof(real) * (size_t)(g->planes * g->oS));
#pragma omp parallel for if (g->planes * g->iS > TH_NN_PAR_MIN_ELEMS) reduction(+ : bad)
  for (p = 0; p < g->planes; p++) {
    const real *ip = in + p * g->iS;
    const int64_t *xp = ind + p * g->iS;
    real *op = out + p * g->oS;
    int64_t k;
    for (k = 0; k < g->iS; k++) {
      int64_t j = xp[k] - 1;
      if (j < 0 || j >= g->oS) bad++;
      else op[j] = ip[k];
    }
  }
  return bad;
}

static int64_t TH_R(maxunpool_backward)(const th_tensor *gradOutput, th_tensor *gradInput,
                                        const th_tensor *indices, const geom *g) {
  const real *go = th_tensor_data(gradOutput);
  const int64_t *ind = th_tensor_data(indices);
  real *gi = th_tensor_data(gradInput);
  int64_t p, bad = 0;
#pragma omp parallel for if (g->planes * g->iS > TH_NN_PAR_MIN_ELEMS) reduction(+ : bad)
  for (p = 0; p < g->planes; p++) {
    const real *gp = go + p * g->oS;
    const int64_t *xp = ind + p * g->iS;
    real *dst = gi + p * g->iS;
    int64_t k;
    for (k = 0; k < g->iS; k++) {
      int64_t j = xp[k] - 1;
      if (j < 0 || j >= g->oS) {
        bad++;
        dst[k] = 0;
      } else {
        dst[k] = gp[j];
      }
    }
  }
  return bad;
}
