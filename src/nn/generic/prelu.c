/* generic/prelu.c: PReLU for 'real' (included by th_nn_prelu.c); every
   operand contiguous, laid out as pl->bs x pl->n x pl->ks */

static int TH_R(prelu_forward)(const th_tensor *input, th_tensor *output, const th_tensor *weight,
                               const planes *pl) {
  const real *x = th_tensor_data(input), *w = th_tensor_data(weight);
  real *y = th_tensor_data(output);
  int64_t i, j, k;
  for (i = 0; i < pl->bs; i++)
    for (j = 0; j < pl->n; j++) {
      const real s = w[j];
      int64_t base = (i * pl->n + j) * pl->ks;
      for (k = 0; k < pl->ks; k++) {
        real a = x[base + k];
        y[base + k] = a > 0 ? a : s * a;
      }
    }
  return TH_OK;
}

static int TH_R(prelu_backward)(const th_tensor *input, const th_tensor *gradOutput,
                                th_tensor *gradInput, const th_tensor *weight, const planes *pl) {
  const real *x = th_tensor_data(input), *go = th_tensor_data(gradOutput);
  const real *w = th_tensor_data(weight);
  real *g = th_tensor_data(gradInput);
  int64_t i, j, k;
  for (i = 0; i < pl->bs; i++)
    for (j = 0; j < pl->n; j++) {
      const real s = w[j];
      int64_t base = (i * pl->n + j) * pl->ks;
      for (k = 0; k < pl->ks; k++) g[base + k] = x[base + k] > 0 ? go[base + k] : go[base + k] * s;
    }
  return TH_OK;
}

/* sums in accreal, as many terms as a plane has elements over the batch */
static int TH_R(prelu_acc)(const th_tensor *input, const th_tensor *gradOutput,
                           th_tensor *gradWeight, const planes *pl, double scale) {
  const real *x = th_tensor_data(input), *go = th_tensor_data(gradOutput);
  real *gw = th_tensor_data(gradWeight);
  int64_t i, j, k;
  for (j = 0; j < pl->n; j++) {
    accreal sum = 0;
    for (i = 0; i < pl->bs; i++) {
      int64_t base = (i * pl->n + j) * pl->ks;
      for (k = 0; k < pl->ks; k++)
        if (x[base + k] <= 0) sum += (accreal)x[base + k] * go[base + k];
    }
    gw[j] += (real)(scale * sum);
  }
  return TH_OK;
}
