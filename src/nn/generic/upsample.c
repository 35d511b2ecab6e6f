/* generic/upsample.c: nearest and linear up-sampling for 'real' (included by th_nn_upsample.c) */

/* nearest up-sampling of planes [lo, hi): forward copies 'a' (input)
   into 'b' (output); backward adds 'b' (gradOutput) into 'a' (gradInput) */
typedef struct TH_R(near_job) {
  real *a, *b;
  const geom *g;
  int64_t s;
  int back;
} TH_R(near_job);

static void TH_R(upnearest_planes)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(near_job) *j = arg;
  const geom *g = j->g;
  const int64_t s = j->s;
  const int64_t iS = g->i[0] * g->i[1] * g->i[2], oS = g->o[0] * g->o[1] * g->o[2];
  int64_t p;
  for (p = lo; p < hi; p++) {
    real *ip = j->a + p * iS, *op = j->b + p * oS;
    int64_t z, y, x;
    for (z = 0; z < g->o[0]; z++)
      for (y = 0; y < g->o[1]; y++) {
        real *row = ip + ((z / s) * g->i[1] + y / s) * g->i[2];
        real *orow = op + (z * g->o[1] + y) * g->o[2];
        if (j->back)
          for (x = 0; x < g->o[2]; x++) row[x / s] += orow[x];
        else
          for (x = 0; x < g->o[2]; x++) orow[x] = row[x / s];
      }
  }
}

static void TH_R(upnearest_run)(real *a, real *b, const geom *g, int64_t s, int back) {
  TH_R(near_job) j;
  const int64_t oS = g->o[0] * g->o[1] * g->o[2];
  j.a = a, j.b = b, j.g = g, j.s = s, j.back = back;
  th_pool_ranges(th_nn_threads_over(g->planes * oS, TH_NN_PAR_MIN_ELEMS), g->planes,
                 TH_R(upnearest_planes), &j);
}

static int TH_R(upnearest_forward)(const th_tensor *input, th_tensor *output, const geom *g,
                                   int64_t s) {
  TH_R(upnearest_run)(th_tensor_data(input), th_tensor_data(output), g, s, 0);
  return TH_OK;
}

static int TH_R(upnearest_backward)(const th_tensor *gradOutput, th_tensor *gradInput,
                                    const geom *g, int64_t s) {
  const int64_t iS = g->i[0] * g->i[1] * g->i[2];
  real *gi = th_tensor_data(gradInput);
  memset(gi, 0, sizeof(real) * (size_t)(g->planes * iS));
  TH_R(upnearest_run)(gi, th_tensor_data(gradOutput), g, s, 1);
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

/* linear up-sampling of planes [lo, hi): forward (back = 0) 'b' (output)
   = interpolation of 'a' (input); backward (back = 1): 'a' is gradInput,
   'b' gradOutput, each output's gradient spread on its corners */
typedef struct TH_R(lin_job) {
  real *a, *b;
  const geom *g;
  const TH_R(tap) *td, *th, *tw;
  int back;
} TH_R(lin_job);

static void TH_R(uplinear_planes)(void *arg, int64_t lo, int64_t hi) {
  const TH_R(lin_job) *j = arg;
  const geom *g = j->g;
  const TH_R(tap) *td = j->td, *th = j->th, *tw = j->tw;
  real *A = j->a, *B = j->b;
  const int back = j->back;
  const int64_t iD = g->i[0], iH = g->i[1], iW = g->i[2];
  const int64_t oD = g->o[0], oH = g->o[1], oW = g->o[2];
  const int64_t iS = iD * iH * iW, oS = oD * oH * oW;
  const int same = iD == oD && iH == oH && iW == oW;
  int64_t p;
  for (p = lo; p < hi; p++) {
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
}

static int TH_R(uplinear_run)(th_tensor *a, th_tensor *b, const geom *g, int back) {
  const int64_t iS = g->i[0] * g->i[1] * g->i[2], oS = g->o[0] * g->o[1] * g->o[2];
  const int64_t oD = g->o[0], oH = g->o[1], oW = g->o[2];
  TH_R(lin_job) j;
  TH_R(tap) *td, *th, *tw;
  td = malloc(sizeof(TH_R(tap)) * (size_t)(oD + oH + oW));
  if (!td) return th_error_set("out of memory for interpolation tables");
  th = td + oD;
  tw = th + oH;
  TH_R(taps)(td, g->i[0], oD);
  TH_R(taps)(th, g->i[1], oH);
  TH_R(taps)(tw, g->i[2], oW);
  j.a = th_tensor_data(a), j.b = th_tensor_data(b), j.g = g, j.back = back;
  j.td = td, j.th = th, j.tw = tw;
  if (back) memset(j.a, 0, sizeof(real) * (size_t)(g->planes * iS));
  th_pool_ranges(th_nn_threads_over(g->planes * oS, TH_NN_PAR_MIN_ELEMS), g->planes,
                 TH_R(uplinear_planes), &j);
  free(td);
  return TH_OK;
}
