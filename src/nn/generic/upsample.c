/* generic/upsample.c: nearest and linear up-sampling for 'real' (included by th_nn_upsample.c) */

static int TH_R(upnearest_forward)(const th_tensor *input, th_tensor *output, const geom *g,
                                   int64_t s) {
  const real *in = th_tensor_data(input);
  real *out = th_tensor_data(output);
  const int64_t iS = g->i[0] * g->i[1] * g->i[2], oS = g->o[0] * g->o[1] * g->o[2];
  int64_t p;
#pragma omp parallel for if (g->planes * oS > TH_NN_PAR_MIN_ELEMS)
  for (p = 0; p < g->planes; p++) {
    const real *ip = in + p * iS;
    real *op = out + p * oS;
    int64_t z, y, x;
    for (z = 0; z < g->o[0]; z++)
      for (y = 0; y < g->o[1]; y++) {
        const real *row = ip + ((z / s) * g->i[1] + y / s) * g->i[2];
        real *orow = op + (z * g->o[1] + y) * g->o[2];
        for (x = 0; x < g->o[2]; x++) orow[x] = row[x / s];
      }
  }
  return TH_OK;
}

static int TH_R(upnearest_backward)(const th_tensor *gradOutput, th_tensor *gradInput,
                                    const geom *g, int64_t s) {
  const real *go = th_tensor_data(gradOutput);
  real *gi = th_tensor_data(gradInput);
  const int64_t iS = g->i[0] * g->i[1] * g->i[2], oS = g->o[0] * g->o[1] * g->o[2];
  int64_t p;
  memset(gi, 0, sizeof(real) * (size_t)(g->planes * iS));
#pragma omp parallel for if (g->planes * oS > TH_NN_PAR_MIN_ELEMS)
  for (p = 0; p < g->planes; p++) {
    real *ip = gi + p * iS;
    const real *op = go + p * oS;
    int64_t z, y, x;
    for (z = 0; z < g->o[0]; z++)
      for (y = 0; y < g->o[1]; y++) {
        real *row = ip + ((z / s) * g->i[1] + y / s) * g->i[2];
        const real *orow = op + (z * g->o[1] + y) * g->o[2];
        for (x = 0; x < g->o[2]; x++) row[x / s] += orow[x];
      }
  }
  return TH_OK;
}

/* per output coordinate of one axis: source index, offset of its
   neighbour (0 at the last source), the two weights; Torch7's float math */
typedef struct TH_R(tap) {
  int64_t i, n;
  real l0, l1;
} TH_R(tap);

static void TH_R(taps)(TH_R(tap) *t, int64_t in, int64_t out) {
  const float r = out > 1 ? (float)(in - 1) / (float)(out - 1) : 0.f;
  int64_t o;
  for (o = 0; o < out; o++) {
    const float pr = r * (float)o;
    int64_t i = (int64_t)pr;
    if (i > in - 1) i = in - 1;  /* float rounding never reaches past the end */
    t[o].i = i;
    t[o].n = i < in - 1 ? 1 : 0;
    t[o].l1 = (real)(pr - (float)i);
    t[o].l0 = (real)1. - t[o].l1;
  }
}

/* forward (back = 0): out = interpolation of in; backward (back = 1): 'a'
   is gradInput, 'b' gradOutput, each output's gradient spread on its corners */
static int TH_R(uplinear_run)(th_tensor *a, th_tensor *b, const geom *g, int back) {
  real *A = th_tensor_data(a), *B = th_tensor_data(b);
  const int64_t iD = g->i[0], iH = g->i[1], iW = g->i[2];
  const int64_t oD = g->o[0], oH = g->o[1], oW = g->o[2];
  const int64_t iS = iD * iH * iW, oS = oD * oH * oW;
  const int same = iD == oD && iH == oH && iW == oW;
  TH_R(tap) *td, *th, *tw;
  int64_t p;
  td = malloc(sizeof(TH_R(tap)) * (size_t)(oD + oH + oW));
  if (!td) return th_error_set("out of memory for interpolation tables");
  th = td + oD;
  tw = th + oH;
  TH_R(taps)(td, iD, oD);
  TH_R(taps)(th, iH, oH);
  TH_R(taps)(tw, iW, oW);
  if (back) memset(A, 0, sizeof(real) * (size_t)(g->planes * iS));
#pragma omp parallel for if (g->planes * oS > TH_NN_PAR_MIN_ELEMS)
  for (p = 0; p < g->planes; p++) {
    real *ip = A + p * iS;
    real *op = B + p * oS;
    int64_t z, y, x;
    for (z = 0; z < oD; z++)
      for (y = 0; y < oH; y++)
        for (x = 0; x < oW; x++) {
          real *o = op + (z * oH + y) * oW + x;
          real *c = ip + (td[z].i * iH + th[y].i) * iW + tw[x].i;
          const int64_t dz = td[z].n * iH * iW, dy = th[y].n * iW, dx = tw[x].n;
          const real h0 = th[y].l0, h1 = th[y].l1, w0 = tw[x].l0, w1 = tw[x].l1;
          if (same) {
            if (back) c[0] += o[0];
            else o[0] = c[0];
          } else if (g->nsp == 2) {
            if (back) {
              c[0] += h0 * w0 * o[0];
              c[dx] += h0 * w1 * o[0];
              c[dy] += h1 * w0 * o[0];
              c[dy + dx] += h1 * w1 * o[0];
            } else {
              o[0] = h0 * (w0 * c[0] + w1 * c[dx]) + h1 * (w0 * c[dy] + w1 * c[dy + dx]);
            }
          } else {
            const real t0 = td[z].l0, t1 = td[z].l1;
            if (back) {
              c[0] += t0 * h0 * w0 * o[0];
              c[dx] += t0 * h0 * w1 * o[0];
              c[dy] += t0 * h1 * w0 * o[0];
              c[dy + dx] += t0 * h1 * w1 * o[0];
              c[dz] += t1 * h0 * w0 * o[0];
              c[dz + dx] += t1 * h0 * w1 * o[0];
              c[dz + dy] += t1 * h1 * w0 * o[0];
              c[dz + dy + dx] += t1 * h1 * w1 * o[0];
            } else {
              o[0] = t0 * (h0 * (w0 * c[0] + w1 * c[dx]) + h1 * (w0 * c[dy] + w1 * c[dy + dx])) +
                     t1 * (h0 * (w0 * c[dz] + w1 * c[dz + dx]) +
                           h1 * (w0 * c[dz + dy] + w1 * c[dz + dy + dx]));
            }
          }
        }
  }
  free(td);
  return TH_OK;
}
