/* generic/localsum.c: zero-padded local sums for 'real' (included by th_nn_localsum.c) */

typedef struct TH_R(localsum_job) {
  const real *in, *k;
  real *out;
  int64_t H, W, kH, kW, s;
} TH_R(localsum_job);

/* out[y][x] = sum k[i][j] in[y + s (i - pH)][x + s (j - pW)] over planes
   [lo, hi); positions outside the plane count as zero */
static void TH_R(localsum_planes)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(localsum_job) *j = arg;
  const real *k = j->k;
  const int64_t H = j->H, W = j->W, kH = j->kH, kW = j->kW, pH = kH / 2, pW = kW / 2, s = j->s;
  int64_t p;
  for (p = lo; p < hi; p++) {
    const real *ip = j->in + p * H * W;
    real *op = j->out + p * H * W;
    int64_t y, x, i, jj;
    for (y = 0; y < H; y++)
      for (x = 0; x < W; x++) {
        accreal sum = 0;
        for (i = 0; i < kH; i++) {
          const int64_t yy = y + s * (i - pH);
          if (yy < 0 || yy >= H) continue;
          for (jj = 0; jj < kW; jj++) {
            const int64_t xx = x + s * (jj - pW);
            if (xx < 0 || xx >= W) continue;
            sum += (accreal)k[i * kW + jj] * ip[yy * W + xx];
          }
        }
        op[y * W + x] = (real)sum;
      }
  }
}

/* s = 1, or s = -1 for the adjoint */
static int TH_R(localsum_run)(const th_tensor *input, const th_tensor *kernel, th_tensor *output,
                              int transpose) {
  TH_R(localsum_job) j;
  const int64_t P = input->size[0];
  j.in = th_tensor_data(input), j.k = th_tensor_data(kernel), j.out = th_tensor_data(output);
  j.H = input->size[1], j.W = input->size[2], j.kH = kernel->size[0], j.kW = kernel->size[1];
  j.s = transpose ? -1 : 1;
  th_pool_ranges(th_nn_threads_over(P * j.H * j.W * j.kH * j.kW, TH_NN_PAR_MIN_ELEMS), P,
                 TH_R(localsum_planes), &j);
  return TH_OK;
}
