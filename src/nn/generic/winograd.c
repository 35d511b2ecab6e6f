/* generic/winograd.c: Winograd F(2x2,3x3) compute for 'real' (included by
   th_nn_winograd.c). Transforms (Lavin and Gray 2015):
     B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]       input tile d, 4x4
     G   = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]      kernel g, 3x3
     A^T = [1 1 1 0; 0 1 -1 -1]                           output tile, 2x2
   y = A^T [(G g G^T) .* (B^T d B)] A. A block's transformed input V is
   16 x C x nb and its transformed output M 16 x K x nb (nb tiles, entry xi
   = 4k + l of the 4x4 tile): one gemm per xi, M[xi] = U[xi] V[xi]. */

#ifdef TH_REAL_IS_FLOAT
#define GEMM cblas_sgemm
#else
#define GEMM cblas_dgemm
#endif

/* U[xi] (K x C) = G g G^T of each 3x3 kernel. w is nOut x nIn x 3 x 3;
   flip: the kernel of gradInput's correlation, K = nIn, C = nOut, g the
   kernel w[o][c] rotated by 180 degrees */
static void TH_R(wino_kernel)(const real *w, int64_t nOut, int64_t nIn, int flip, real *U) {
  const int64_t K = flip ? nIn : nOut, C = flip ? nOut : nIn;
  int64_t o, c, i, j;
  for (o = 0; o < nOut; o++)
    for (c = 0; c < nIn; c++) {
      const real *g = w + (o * nIn + c) * 9;
      real k[9], t[4][3];
      for (i = 0; i < 9; i++) k[i] = flip ? g[8 - i] : g[i];
      for (j = 0; j < 3; j++) {
        t[0][j] = k[j];
        t[1][j] = (k[j] + k[3 + j] + k[6 + j]) / 2;
        t[2][j] = (k[j] - k[3 + j] + k[6 + j]) / 2;
        t[3][j] = k[6 + j];
      }
      for (i = 0; i < 4; i++) {
        const int64_t row = flip ? c : o, col = flip ? o : c;
        real *u = U + (4 * i * K + row) * C + col;
        u[0] = t[i][0];
        u[K * C] = (t[i][0] + t[i][1] + t[i][2]) / 2;
        u[2 * K * C] = (t[i][0] - t[i][1] + t[i][2]) / 2;
        u[3 * K * C] = t[i][2];
      }
    }
}

/* 4 input rows of unit (b, ty, tx0..tx0+n), zero-padded, split into even
   and odd columns (pe[r][j] = column x0 + 2j, po[r][j] = x0 + 2j + 1,
   j <= n), so that every later loop runs over contiguous j */
static void TH_R(wino_rows)(const real *plane, const wplan *p, int64_t ty, int64_t tx0,
                            int64_t n, real *rows) {
  const int64_t L = p->segw + 1, x0 = 2 * tx0 - p->padW;
  /* j in [jlo, jhi) has both columns inside the image */
  int64_t jlo = x0 >= 0 ? 0 : (1 - x0) / 2, jhi = (p->W - x0) / 2, r, j;
  if (jhi > n + 1) jhi = n + 1;
  if (jlo > jhi) jlo = jhi;
  for (r = 0; r < 4; r++) {
    const int64_t y = 2 * ty - p->padH + r;
    real *pe = rows + 2 * r * L, *po = pe + L;
    const real *s;
    if (y < 0 || y >= p->H) {
      for (j = 0; j <= n; j++) pe[j] = po[j] = 0;
      continue;
    }
    s = plane + y * p->W + x0;
    for (j = 0; j < jlo; j++) {
      const int64_t x = x0 + 2 * j;
      pe[j] = x >= 0 && x < p->W ? s[2 * j] : 0;
      po[j] = x + 1 >= 0 && x + 1 < p->W ? s[2 * j + 1] : 0;
    }
    for (j = jlo; j < jhi; j++) {
      pe[j] = s[2 * j];
      po[j] = s[2 * j + 1];
    }
    for (j = jhi; j <= n; j++) {
      const int64_t x = x0 + 2 * j;
      pe[j] = x >= 0 && x < p->W ? s[2 * j] : 0;
      po[j] = x + 1 >= 0 && x + 1 < p->W ? s[2 * j + 1] : 0;
    }
  }
}

/* V[xi][c][t0 + j] = (B^T d B)[xi] of the unit's tiles, ld = nb */
static void TH_R(wino_in_unit)(const real *in, const wplan *p, int64_t u, int64_t t0,
                               int64_t nb, real *V, real *rows) {
  const int64_t L = p->segw + 1, r = u / p->nseg, s = u % p->nseg;
  const int64_t b = r / p->tH, ty = r % p->tH, tx0 = s * p->segw;
  const int64_t n = p->tW - tx0 < p->segw ? p->tW - tx0 : p->segw, S = p->C * nb;
  int64_t c, j, k;
  for (c = 0; c < p->C; c++) {
    real *d0 = rows, *d1 = rows + 2 * L, *d2 = rows + 4 * L, *d3 = rows + 6 * L;
    TH_R(wino_rows)(in + (b * p->C + c) * p->H * p->W, p, ty, tx0, n, rows);
    /* B^T down the columns, even and odd halves (2L values) at once */
    for (j = 0; j < 2 * L; j++) {
      const real a = d0[j], e = d1[j], f = d2[j], h = d3[j];
      d0[j] = a - f;
      d1[j] = e + f;
      d2[j] = f - e;
      d3[j] = e - h;
    }
    /* B along the rows: columns 2j..2j+3 are E[j], O[j], E[j+1], O[j+1] */
    for (k = 0; k < 4; k++) {
      const real *E = rows + 2 * k * L, *O = E + L;
      real *v0 = V + 4 * k * S + c * nb + t0, *v1 = v0 + S, *v2 = v1 + S, *v3 = v2 + S;
      for (j = 0; j < n; j++) {
        v0[j] = E[j] - E[j + 1];
        v1[j] = O[j] + E[j + 1];
        v2[j] = E[j + 1] - O[j];
        v3[j] = O[j] - O[j + 1];
      }
    }
  }
}

/* output of the unit's tiles from M (ld nb): A^T m A + bias, the last
   column / row of an odd-sized output left out */
static void TH_R(wino_out_unit)(const real *M, const wplan *p, int64_t u, int64_t t0,
                                int64_t nb, const real *bias, real *out) {
  const int64_t r = u / p->nseg, s = u % p->nseg;
  const int64_t b = r / p->tH, ty = r % p->tH, tx0 = s * p->segw;
  const int64_t n = p->tW - tx0 < p->segw ? p->tW - tx0 : p->segw, S = p->K * nb;
  const int two = 2 * ty + 1 < p->oH;
  const int64_t full = 2 * (tx0 + n) <= p->oW ? n : n - 1;
  int64_t o, j;
  for (o = 0; o < p->K; o++) {
    const real *m = M + o * nb + t0, v = bias ? bias[o] : 0;
    real *y0 = out + ((b * p->K + o) * p->oH + 2 * ty) * p->oW + 2 * tx0, *y1 = y0 + p->oW;
    for (j = 0; j < n; j++) {
      real q[4][2];
      int k;
      for (k = 0; k < 4; k++) {
        const real *mk = m + 4 * k * S + j;
        q[k][0] = mk[0] + mk[S] + mk[2 * S];
        q[k][1] = mk[S] - mk[2 * S] - mk[3 * S];
      }
      y0[2 * j] = q[0][0] + q[1][0] + q[2][0] + v;
      if (j < full) y0[2 * j + 1] = q[0][1] + q[1][1] + q[2][1] + v;
      if (two) {
        y1[2 * j] = q[1][0] - q[2][0] - q[3][0] + v;
        if (j < full) y1[2 * j + 1] = q[1][1] - q[2][1] - q[3][1] + v;
      }
    }
  }
}

/* tiles of block blk, and the first unit */
static int64_t TH_R(wino_block)(const wplan *p, int64_t blk, int64_t *u0, int64_t *u1) {
  int64_t u, nb = 0;
  *u0 = blk * p->R;
  *u1 = *u0 + p->R < p->units ? *u0 + p->R : p->units;
  for (u = *u0; u < *u1; u++) {
    const int64_t tx0 = (u % p->nseg) * p->segw;
    nb += p->tW - tx0 < p->segw ? p->tW - tx0 : p->segw;
  }
  return nb;
}

static int64_t TH_R(wino_unit_tiles)(const wplan *p, int64_t u) {
  const int64_t tx0 = (u % p->nseg) * p->segw;
  return p->tW - tx0 < p->segw ? p->tW - tx0 : p->segw;
}

/* one block of the correlation: transform, 16 gemms, inverse transform */
static void TH_R(wino_conv_block)(const real *in, real *out, const real *U, const real *bias,
                                  const wplan *p, int64_t blk, real *buf) {
  real *V = buf, *M = V + 16 * p->C * p->T, *rows = M + 16 * p->K * p->T;
  int64_t u0, u1, u, t, xi;
  const int64_t nb = TH_R(wino_block)(p, blk, &u0, &u1);
  for (u = u0, t = 0; u < u1; t += TH_R(wino_unit_tiles)(p, u), u++)
    TH_R(wino_in_unit)(in, p, u, t, nb, V, rows);
  for (xi = 0; xi < 16; xi++)
    GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)p->K, (int)nb, (int)p->C, 1,
         U + xi * p->K * p->C, (int)p->C, V + xi * p->C * nb, (int)nb, 0, M + xi * p->K * nb,
         (int)nb);
  for (u = u0, t = 0; u < u1; t += TH_R(wino_unit_tiles)(p, u), u++)
    TH_R(wino_out_unit)(M, p, u, t, nb, bias, out);
}

static void TH_R(wino_conv)(const real *in, real *out, const real *U, const real *bias,
                            const wplan *p, real *buf, int64_t bufS, int nt) {
  int64_t blk;
  if (nt <= 1) {
    for (blk = 0; blk < p->blocks; blk++) TH_R(wino_conv_block)(in, out, U, bias, p, blk, buf);
    return;
  }
  {
    int old = th_nn_blas_single_begin();
#pragma omp parallel num_threads(nt)
    {
      int t = 0;
      int64_t i;
#ifdef _OPENMP
      t = omp_get_thread_num();
#endif
#pragma omp for schedule(dynamic, 1)
      for (i = 0; i < p->blocks; i++)
        TH_R(wino_conv_block)(in, out, U, bias, p, i, buf + t * bufS);
    }
    th_nn_blas_single_end(old);
  }
}

/* Yh[xi][o][t0 + j] = (A dy A^T)[xi] of the unit's 2x2 gradOutput tiles
   (0 beyond an odd-sized output), A = [1 0; 1 1; 1 -1; 0 -1] */
static void TH_R(wino_grad_unit)(const real *go, const wplan *p, int64_t u, int64_t t0,
                                 int64_t nb, real *Yh) {
  const int64_t r = u / p->nseg, s = u % p->nseg;
  const int64_t b = r / p->tH, ty = r % p->tH, tx0 = s * p->segw;
  const int64_t n = p->tW - tx0 < p->segw ? p->tW - tx0 : p->segw, S = p->K * nb;
  const int two = 2 * ty + 1 < p->oH;
  const int64_t full = 2 * (tx0 + n) <= p->oW ? n : n - 1;
  int64_t o, j;
  for (o = 0; o < p->K; o++) {
    const real *g0 = go + ((b * p->K + o) * p->oH + 2 * ty) * p->oW + 2 * tx0, *g1 = g0 + p->oW;
    real *h = Yh + o * nb + t0;
    for (j = 0; j < n; j++) {
      const real a0 = g0[2 * j], a1 = j < full ? g0[2 * j + 1] : 0;
      const real b0 = two ? g1[2 * j] : 0, b1 = two && j < full ? g1[2 * j + 1] : 0;
      const real q0[4] = {a0, a0 + a1, a0 - a1, -a1}, q1[4] = {b0, b0 + b1, b0 - b1, -b1};
      int l;
      for (l = 0; l < 4; l++) {
        h[l * S + j] = q0[l];
        h[(4 + l) * S + j] = q0[l] + q1[l];
        h[(8 + l) * S + j] = q0[l] - q1[l];
        h[(12 + l) * S + j] = -q1[l];
      }
    }
  }
}

/* thread t's blocks t, t + nt, ...: acc[xi] (K x C) = sum of Yh[xi] V[xi]^T.
   A fixed split, so that the sums are the same from run to run */
static void TH_R(wino_params_thread)(const real *in, const real *go, const wplan *p, real *buf,
                                     real *acc, int t, int nt) {
  real *V = buf, *Yh = V + 16 * p->C * p->T, *rows = Yh + 16 * p->K * p->T;
  real beta = 0;
  int64_t blk;
  for (blk = t; blk < p->blocks; blk += nt) {
    int64_t u0, u1, u, tt, xi;
    const int64_t nb = TH_R(wino_block)(p, blk, &u0, &u1);
    for (u = u0, tt = 0; u < u1; tt += TH_R(wino_unit_tiles)(p, u), u++) {
      TH_R(wino_in_unit)(in, p, u, tt, nb, V, rows);
      TH_R(wino_grad_unit)(go, p, u, tt, nb, Yh);
    }
    for (xi = 0; xi < 16; xi++)
      GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)p->K, (int)p->C, (int)nb, 1,
           Yh + xi * p->K * nb, (int)nb, V + xi * p->C * nb, (int)nb, beta,
           acc + xi * p->K * p->C, (int)p->C);
    beta = 1;
  }
  if (beta == 0) memset(acc, 0, sizeof(real) * (size_t)(16 * p->K * p->C));
}

/* gw[o][c] += scale * G^T acc G, G^T = [1 1/2 1/2 0; 0 1/2 -1/2 0; 0 1/2 1/2 1] */
static void TH_R(wino_params_finish)(const real *acc, const wplan *p, real *gw, real scale) {
  const int64_t KC = p->K * p->C;
  int64_t oc, i, l;
  for (oc = 0; oc < KC; oc++) {
    real a[4][4], t[3][4];
    real *d = gw + oc * 9;
    for (i = 0; i < 16; i++) a[i / 4][i % 4] = acc[i * KC + oc];
    for (l = 0; l < 4; l++) {
      t[0][l] = a[0][l] + (a[1][l] + a[2][l]) / 2;
      t[1][l] = (a[1][l] - a[2][l]) / 2;
      t[2][l] = (a[1][l] + a[2][l]) / 2 + a[3][l];
    }
    for (i = 0; i < 3; i++) {
      d[3 * i] += scale * (t[i][0] + (t[i][1] + t[i][2]) / 2);
      d[3 * i + 1] += scale * ((t[i][1] - t[i][2]) / 2);
      d[3 * i + 2] += scale * ((t[i][1] + t[i][2]) / 2 + t[i][3]);
    }
  }
}

static void TH_R(wino_params)(const real *in, const real *go, real *gw, const wplan *p,
                              real *buf, int64_t bufS, real *accs, int nt, real scale) {
  const int64_t na = 16 * p->K * p->C;
  int64_t k;
  int o;
  if (nt <= 1) {
    TH_R(wino_params_thread)(in, go, p, buf, accs, 0, 1);
  } else {
    int old = th_nn_blas_single_begin();
#pragma omp parallel num_threads(nt)
    {
      int t = 0;
#ifdef _OPENMP
      t = omp_get_thread_num();
#endif
      TH_R(wino_params_thread)(in, go, p, buf + t * bufS, accs + t * na, t, nt);
    }
    th_nn_blas_single_end(old);
    for (o = 1; o < nt; o++)
      for (k = 0; k < na; k++) accs[k] += accs[o * na + k];
  }
  TH_R(wino_params_finish)(accs, p, gw, scale);
}

static int TH_R(wino_forward)(const th_tensor *input, th_tensor *output, const th_tensor *weight,
                              const th_tensor *bias, th_tensor *scratch, const wplan *p,
                              int64_t bufS, int nt) {
  real *s = th_tensor_data(scratch);
  TH_R(wino_kernel)(th_tensor_data(weight), p->K, p->C, 0, s);
  TH_R(wino_conv)(th_tensor_data(input), th_tensor_data(output), s,
                  bias ? (const real *)th_tensor_data(bias) : NULL, p, s + 16 * p->K * p->C,
                  bufS, nt);
  return TH_OK;
}

static int TH_R(wino_backward_input)(const th_tensor *gradOutput, th_tensor *gradInput,
                                     const th_tensor *weight, th_tensor *scratch,
                                     const wplan *p, int64_t bufS, int nt) {
  real *s = th_tensor_data(scratch);
  /* p is the plan of gradInput's correlation: C = nOut, K = nIn */
  TH_R(wino_kernel)(th_tensor_data(weight), p->C, p->K, 1, s);
  TH_R(wino_conv)(th_tensor_data(gradOutput), th_tensor_data(gradInput), s, NULL, p,
                  s + 16 * p->K * p->C, bufS, nt);
  return TH_OK;
}

static int TH_R(wino_backward_params)(const th_tensor *input, const th_tensor *gradOutput,
                                      th_tensor *gradWeight, th_tensor *scratch,
                                      const wplan *p, int64_t off, int64_t bufS, int nt,
                                      double scale) {
  /* the threads' 16 x K x C sums first, then their block buffers at 'off' */
  real *s = th_tensor_data(scratch);
  TH_R(wino_params)(th_tensor_data(input), th_tensor_data(gradOutput), th_tensor_data(gradWeight),
                    p, s + off, bufS, s, nt, (real)scale);
  return TH_OK;
}

#undef GEMM
