/* generic/localsum.c: zero-padded local sums for 'real' (included by th_nn_localsum.c) */

/* out[y][x] = sum k[i][j] in[y + s (i - pH)][x + s (j - pW)], s = 1, or
   s = -1 for the adjoint; positions outside the plane count as zero */
static int TH_R(localsum_run)(const th_tensor *input, const th_tensor *kernel, th_tensor *output,
                              int transpose) {
  const real *in = th_tensor_data(input), *k = th_tensor_data(kernel);
  real *out = th_tensor_data(output);
  const int64_t P = input->size[0], H = input->size[1], W = input->size[2];
  const int64_t kH = kernel->size[0], kW = kernel->size[1], pH = kH / 2, pW = kW / 2;
  const int64_t s = transpose ? -1 : 1;
  int64_t p;
#pragma omp parallel for if (P * H * W * kH * kW > TH_NN_PAR_MIN_ELEMS)
  for (p = 0; p < P; p++) {
    const real *ip = in + p * H * W;
    real *op = out + p * H * W;
    int64_t y, x, i, j;
    for (y = 0; y < H; y++)
      for (x = 0; x < W; x++) {
        accreal sum = 0;
        for (i = 0; i < kH; i++) {
          const int64_t yy = y + s * (i - pH);
          if (yy < 0 || yy >= H) continue;
          for (j = 0; j < kW; j++) {
            const int64_t xx = x + s * (j - pW);
            if (xx < 0 || xx >= W) continue;
            sum += (accreal)k[i * kW + j] * ip[yy * W + xx];
          }
        }
        op[y * W + x] = (real)sum;
      }
  }
  return TH_OK;
}
