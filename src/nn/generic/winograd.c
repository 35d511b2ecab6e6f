/* generic/winograd.c: Winograd F(2x2,3x3) compute for 'real' (included by
   th_nn_winograd.c), and the block drivers both tile sides share (F(4x4)'s
   transforms: winograd4.c). Transforms (Lavin and Gray 2015):
     B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]       input tile d, 4x4
     G   = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]      kernel g, 3x3
     A^T = [1 1 1 0; 0 1 -1 -1]                           output tile, 2x2
   y = A^T [(G g G^T) .* (B^T d B)] A. A block's transformed input V is
   16 x C x nb and its transformed output M 16 x K x nb (nb tiles, entry xi
   = 4k + l of the 4x4 tile): one gemm per xi, M[xi] = U[xi] V[xi]. */

#ifdef TH_REAL_IS_FLOAT
#define GEMM th_sgemm
#else
#define GEMM cblas_dgemm
#endif

/* U[xi] (K x C) = G g G^T of each 3x3 kernel. w is nOut x nIn x 3 x 3;
   flip: the kernel of gradInput's correlation, K = nIn, C = nOut, g the
   kernel w[o][c] rotated by 180 degrees */
typedef struct TH_R(wk_job) {
  const real *w;
  int64_t nOut, nIn;
  int flip;
  real *U;
} TH_R(wk_job);

/* row 'row' of every U[xi], written along its columns: with flip a row is
   an input plane c and its columns the output planes o */
static void TH_R(wino_kernel_row)(void *arg, int64_t row) {
  const TH_R(wk_job) *j = arg;
  const int64_t nIn = j->nIn, K = j->flip ? nIn : j->nOut, C = j->flip ? j->nOut : nIn;
  const int flip = j->flip;
  int64_t col, i, l;
  for (col = 0; col < C; col++) {
    const int64_t o = flip ? col : row, c = flip ? row : col;
    const real *g = j->w + (o * nIn + c) * 9;
    real k[9], t[4][3];
    for (i = 0; i < 9; i++) k[i] = flip ? g[8 - i] : g[i];
    for (l = 0; l < 3; l++) {
      t[0][l] = k[l];
      t[1][l] = (k[l] + k[3 + l] + k[6 + l]) / 2;
      t[2][l] = (k[l] - k[3 + l] + k[6 + l]) / 2;
      t[3][l] = k[6 + l];
    }
    for (i = 0; i < 4; i++) {
      real *u = j->U + (4 * i * K + row) * C + col;
      u[0] = t[i][0];
      u[K * C] = (t[i][0] + t[i][1] + t[i][2]) / 2;
      u[2 * K * C] = (t[i][0] - t[i][1] + t[i][2]) / 2;
      u[3 * K * C] = t[i][2];
    }
  }
}

static int64_t TH_R(wino_unit_tiles)(const wplan *p, int64_t u);
#include "winograd4.c"

/* U of either tile size (p->m) */
static void TH_R(wino_kernel)(const real *w, int64_t nOut, int64_t nIn, int flip, const wplan *p,
                              real *U) {
  const int64_t K = flip ? nIn : nOut, C = flip ? nOut : nIn;
  TH_R(wk_job) j;
  j.w = w, j.nOut = nOut, j.nIn = nIn, j.flip = flip, j.U = U;
  th_pool_for(th_nn_threads_over(p->a2 * K * C, TH_NN_PAR_MIN_ELEMS / 8), K,
              p->m == 4 ? TH_R(wino4_kernel_row) : TH_R(wino_kernel_row), &j);
}

/* 4 input rows of unit (b, ty, tx0..tx0+n), zero-padded, split into even
   and odd columns (pe[r][j] = column x0 + 2j, po[r][j] = x0 + 2j + 1,
   j <= n), so that every later loop runs over contiguous j. A row goes
   through a padded copy (lin, 2n + 2) first: both loops then run without
   a test per element */
TH_CPU_CLONES static void TH_R(wino_rows)(const real *plane, const wplan *p, int64_t ty, int64_t tx0,
                            int64_t n, real *rows, real *lin) {
  const int64_t L = p->segw + 1, x0 = 2 * tx0 - p->padW, len = 2 * n + 2;
  /* lin[i] = column x0 + i for i in [lo, hi), 0 outside */
  const int64_t lo = x0 >= 0 ? 0 : -x0, hi0 = p->W - x0, hi = hi0 < len ? hi0 : len;
  int64_t r, j;
  for (r = 0; r < 4; r++) {
    const int64_t y = 2 * ty - p->padH + r;
    real *restrict pe = rows + 2 * r * L, *restrict po = pe + L;
    const real *restrict q = lin;
    if (y < 0 || y >= p->H || lo >= hi) {
      memset(pe, 0, sizeof(real) * (size_t)(n + 1));
      memset(po, 0, sizeof(real) * (size_t)(n + 1));
      continue;
    }
    if (lo == 0 && hi == len) {
      q = plane + y * p->W + x0;  /* the whole span is inside the image */
    } else {
      memset(lin, 0, sizeof(real) * (size_t)lo);
      memcpy(lin + lo, plane + y * p->W + x0 + lo, sizeof(real) * (size_t)(hi - lo));
      memset(lin + hi, 0, sizeof(real) * (size_t)(len - hi));
    }
#pragma omp simd
    for (j = 0; j <= n; j++) {
      pe[j] = q[2 * j];
      po[j] = q[2 * j + 1];
    }
  }
}

/* V[xi][c][t0 + j] = (B^T d B)[xi] of the unit's tiles, ld = nb */
TH_CPU_CLONES static void TH_R(wino_in_unit)(const real *in, const wplan *p, int64_t u, int64_t t0,
                               int64_t nb, real *V, real *rows) {
  const int64_t L = p->segw + 1, r = u / p->nseg, s = u % p->nseg;
  const int64_t b = r / p->tH, ty = r % p->tH, tx0 = s * p->segw;
  const int64_t n = p->tW - tx0 < p->segw ? p->tW - tx0 : p->segw, S = p->C * nb;
  int64_t c, j, k;
  for (c = 0; c < p->C; c++) {
    real *d0 = rows, *d1 = rows + 2 * L, *d2 = rows + 4 * L, *d3 = rows + 6 * L;
    TH_R(wino_rows)(in + (b * p->C + c) * p->H * p->W, p, ty, tx0, n, rows, rows + 8 * L);
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
      const real *restrict E = rows + 2 * k * L, *restrict O = E + L;
      real *restrict v0 = V + 4 * k * S + c * nb + t0, *restrict v1 = v0 + S;
      real *restrict v2 = v1 + S, *restrict v3 = v2 + S;
#pragma omp simd
      for (j = 0; j < n; j++) {
        v0[j] = E[j] - E[j + 1];
        v1[j] = O[j] + E[j + 1];
        v2[j] = E[j + 1] - O[j];
        v3[j] = O[j] - O[j + 1];
      }
    }
  }
}

/* output of the unit's tiles from M (ld nb): A^T m A + bias, first into
   the even / odd columns of the two output rows (tmp, 4 x n, contiguous
   loops), then interleaved into the planes, the last column / row of an
   odd-sized output left out */
TH_CPU_CLONES static void TH_R(wino_out_unit)(const real *M, const wplan *p, int64_t u, int64_t t0,
                                int64_t nb, const real *bias, real *out, real *tmp) {
  const int64_t r = u / p->nseg, s = u % p->nseg;
  const int64_t b = r / p->tH, ty = r % p->tH, tx0 = s * p->segw;
  const int64_t n = p->tW - tx0 < p->segw ? p->tW - tx0 : p->segw, S = p->K * nb;
  const int two = 2 * ty + 1 < p->oH;
  const int64_t full = 2 * (tx0 + n) <= p->oW ? n : n - 1;
  real *restrict e0 = tmp, *restrict o0 = tmp + n, *restrict e1 = tmp + 2 * n;
  real *restrict o1 = tmp + 3 * n;
  int64_t o, j;
  for (o = 0; o < p->K; o++) {
    const real *m = M + o * nb + t0, v = bias ? bias[o] : 0;
    const real *restrict m0 = m, *restrict m1 = m + S, *restrict m2 = m + 2 * S;
    const real *restrict m3 = m + 3 * S, *restrict m4 = m + 4 * S, *restrict m5 = m + 5 * S;
    const real *restrict m6 = m + 6 * S, *restrict m7 = m + 7 * S, *restrict m8 = m + 8 * S;
    const real *restrict m9 = m + 9 * S, *restrict m10 = m + 10 * S, *restrict m11 = m + 11 * S;
    const real *restrict m12 = m + 12 * S, *restrict m13 = m + 13 * S;
    const real *restrict m14 = m + 14 * S, *restrict m15 = m + 15 * S;
    real *y0 = out + ((b * p->K + o) * p->oH + 2 * ty) * p->oW + 2 * tx0, *y1 = y0 + p->oW;
#pragma omp simd
    for (j = 0; j < n; j++) {
      const real q00 = m0[j] + m1[j] + m2[j], q01 = m1[j] - m2[j] - m3[j];
      const real q10 = m4[j] + m5[j] + m6[j], q11 = m5[j] - m6[j] - m7[j];
      const real q20 = m8[j] + m9[j] + m10[j], q21 = m9[j] - m10[j] - m11[j];
      const real q30 = m12[j] + m13[j] + m14[j], q31 = m13[j] - m14[j] - m15[j];
      e0[j] = q00 + q10 + q20 + v;
      o0[j] = q01 + q11 + q21 + v;
      e1[j] = q10 - q20 - q30 + v;
      o1[j] = q11 - q21 - q31 + v;
    }
    for (j = 0; j < full; j++) {
      y0[2 * j] = e0[j];
      y0[2 * j + 1] = o0[j];
    }
    if (full < n) y0[2 * full] = e0[full];
    if (!two) continue;
    for (j = 0; j < full; j++) {
      y1[2 * j] = e1[j];
      y1[2 * j + 1] = o1[j];
    }
    if (full < n) y1[2 * full] = e1[full];
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

/* one block of the correlation: transform, 16 (F(2x2)) or 36 (F(4x4))
   gemms, inverse transform */
static void TH_R(wino_conv_block)(const real *in, real *out, const real *U, const real *bias,
                                  const wplan *p, int64_t blk, real *buf) {
  real *V = buf, *M = V + p->a2 * p->C * p->T, *rows = M + p->a2 * p->K * p->T;
  int64_t u0, u1, u, t, xi;
  const int64_t nb = TH_R(wino_block)(p, blk, &u0, &u1);
  if (p->m == 4) {
    TH_R(wino4_in_block)(in, p, u0, u1, nb, V, rows);
  } else {
    for (u = u0, t = 0; u < u1; t += TH_R(wino_unit_tiles)(p, u), u++)
      TH_R(wino_in_unit)(in, p, u, t, nb, V, rows);
  }
  for (xi = 0; xi < p->a2; xi++)
    GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)p->K, (int)nb, (int)p->C, 1,
         U + xi * p->K * p->C, (int)p->C, V + xi * p->C * nb, (int)nb, 0, M + xi * p->K * nb,
         (int)nb);
  if (p->m == 4) {
    TH_R(wino4_out_block)(M, p, u0, u1, nb, bias, out, rows);
    return;
  }
  for (u = u0, t = 0; u < u1; t += TH_R(wino_unit_tiles)(p, u), u++)
    TH_R(wino_out_unit)(M, p, u, t, nb, bias, out, rows);
}

typedef struct TH_R(wc_job) {
  const real *in, *U, *bias;
  real *out, *buf;
  const wplan *p;
  int64_t bufS;
} TH_R(wc_job);

static void TH_R(wino_conv_chunk)(void *arg, int blk, int slot) {
  const TH_R(wc_job) *j = arg;
  TH_R(wino_conv_block)(j->in, j->out, j->U, j->bias, j->p, blk, j->buf + slot * j->bufS);
}

static void TH_R(wino_conv)(const real *in, real *out, const real *U, const real *bias,
                            const wplan *p, real *buf, int64_t bufS, int nt) {
  int64_t blk;
  if (nt <= 1 || p->blocks > (1 << 20)) {
    for (blk = 0; blk < p->blocks; blk++) TH_R(wino_conv_block)(in, out, U, bias, p, blk, buf);
    return;
  }
  {
    TH_R(wc_job) j;
    int old = th_nn_blas_single_begin();
    j.in = in, j.out = out, j.U = U, j.bias = bias, j.p = p, j.buf = buf, j.bufS = bufS;
    th_pool_run_slot(nt, (int)p->blocks, TH_R(wino_conv_chunk), &j);
    th_nn_blas_single_end(old);
  }
}

/* Yh[xi][o][t0 + j] = (A dy A^T)[xi] of the unit's 2x2 gradOutput tiles
   (0 beyond an odd-sized output), A = [1 0; 1 1; 1 -1; 0 -1]; the tiles'
   even / odd columns of both rows go through tmp (4 x n) first */
TH_CPU_CLONES static void TH_R(wino_grad_unit)(const real *go, const wplan *p, int64_t u, int64_t t0,
                                 int64_t nb, real *Yh, real *tmp) {
  const int64_t r = u / p->nseg, s = u % p->nseg;
  const int64_t b = r / p->tH, ty = r % p->tH, tx0 = s * p->segw;
  const int64_t n = p->tW - tx0 < p->segw ? p->tW - tx0 : p->segw, S = p->K * nb;
  const int two = 2 * ty + 1 < p->oH;
  const int64_t full = 2 * (tx0 + n) <= p->oW ? n : n - 1;
  real *restrict a0 = tmp, *restrict a1 = tmp + n, *restrict b0 = tmp + 2 * n;
  real *restrict b1 = tmp + 3 * n;
  int64_t o, j, l;
  for (o = 0; o < p->K; o++) {
    const real *g0 = go + ((b * p->K + o) * p->oH + 2 * ty) * p->oW + 2 * tx0, *g1 = g0 + p->oW;
    real *h = Yh + o * nb + t0;
    for (j = 0; j < full; j++) {
      a0[j] = g0[2 * j];
      a1[j] = g0[2 * j + 1];
    }
    if (full < n) a0[full] = g0[2 * full], a1[full] = 0;
    if (two) {
      for (j = 0; j < full; j++) {
        b0[j] = g1[2 * j];
        b1[j] = g1[2 * j + 1];
      }
      if (full < n) b0[full] = g1[2 * full], b1[full] = 0;
    } else {
      for (j = 0; j < n; j++) b0[j] = b1[j] = 0;
    }
    /* per row: q = (x0, x0 + x1, x0 - x1, -x1); rows: (q0, q0 + q1, q0 - q1, -q1) */
    for (l = 0; l < 4; l++) {
      const real ca = l == 3 ? 0 : 1, cb = l == 0 ? 0 : (l == 1 ? 1 : -1);
      real *restrict h0 = h + l * S, *restrict h1 = h + (4 + l) * S;
      real *restrict h2 = h + (8 + l) * S, *restrict h3 = h + (12 + l) * S;
#pragma omp simd
      for (j = 0; j < n; j++) {
        const real q0 = ca * a0[j] + cb * a1[j], q1 = ca * b0[j] + cb * b1[j];
        h0[j] = q0;
        h1[j] = q0 + q1;
        h2[j] = q0 - q1;
        h3[j] = -q1;
      }
    }
  }
}

/* thread t's blocks t, t + nt, ...: acc[xi] (K x C) = sum of Yh[xi] V[xi]^T.
   A fixed split, so that the sums are the same from run to run */
static void TH_R(wino_params_thread)(const real *in, const real *go, const wplan *p, real *buf,
                                     real *acc, int t, int nt) {
  real *V = buf, *Yh = V + p->a2 * p->C * p->T, *rows = Yh + p->a2 * p->K * p->T;
  real beta = 0;
  int64_t blk;
  for (blk = t; blk < p->blocks; blk += nt) {
    int64_t u0, u1, u, tt, xi;
    const int64_t nb = TH_R(wino_block)(p, blk, &u0, &u1);
    if (p->m == 4) {
      TH_R(wino4_in_block)(in, p, u0, u1, nb, V, rows);
      TH_R(wino4_grad_block)(go, p, u0, u1, nb, Yh, rows);
    } else {
      for (u = u0, tt = 0; u < u1; tt += TH_R(wino_unit_tiles)(p, u), u++) {
        TH_R(wino_in_unit)(in, p, u, tt, nb, V, rows);
        TH_R(wino_grad_unit)(go, p, u, tt, nb, Yh, rows);
      }
    }
    for (xi = 0; xi < p->a2; xi++)
      GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)p->K, (int)p->C, (int)nb, 1,
           Yh + xi * p->K * nb, (int)nb, V + xi * p->C * nb, (int)nb, beta,
           acc + xi * p->K * p->C, (int)p->C);
    beta = 1;
  }
  if (beta == 0) memset(acc, 0, sizeof(real) * (size_t)(p->a2 * p->K * p->C));
}

/* gw[o][c] += scale * G^T acc G, G^T = [1 1/2 1/2 0; 0 1/2 -1/2 0; 0 1/2 1/2 1] */
TH_CPU_CLONES static void TH_R(wino_params_finish)(const real *acc, const wplan *p, real *gw, real scale) {
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

/* share t of wino_params_thread's fixed split, with scratch row t */
typedef struct TH_R(wp_job) {
  const real *in, *go;
  const wplan *p;
  real *buf, *accs;
  int64_t bufS, na;
  int nt;
} TH_R(wp_job);

static void TH_R(wino_params_share)(void *arg, int t) {
  const TH_R(wp_job) *j = arg;
  TH_R(wino_params_thread)(j->in, j->go, j->p, j->buf + t * j->bufS, j->accs + t * j->na, t, j->nt);
}

static void TH_R(wino_params)(const real *in, const real *go, real *gw, const wplan *p,
                              real *buf, int64_t bufS, real *accs, int nt, real scale) {
  const int64_t na = p->a2 * p->K * p->C;
  int64_t k;
  int o;
  if (nt <= 1) {
    TH_R(wino_params_thread)(in, go, p, buf, accs, 0, 1);
  } else {
    int old = th_nn_blas_single_begin();
    TH_R(wp_job) j;
    j.in = in, j.go = go, j.p = p, j.buf = buf, j.bufS = bufS, j.accs = accs, j.na = na, j.nt = nt;
    th_pool_run(nt, nt, TH_R(wino_params_share), &j);
    th_nn_blas_single_end(old);
    for (o = 1; o < nt; o++)
      for (k = 0; k < na; k++) accs[k] += accs[o * na + k];
  }
  if (p->m == 4) TH_R(wino4_params_finish)(accs, p, gw, scale);
  else TH_R(wino_params_finish)(accs, p, gw, scale);
}

static int TH_R(wino_forward)(const th_tensor *input, th_tensor *output, const th_tensor *weight,
                              const th_tensor *bias, th_tensor *scratch, const wplan *p,
                              int64_t bufS, int nt) {
  real *s = th_tensor_data(scratch);
  TH_R(wino_kernel)(th_tensor_data(weight), p->K, p->C, 0, p, s);
  TH_R(wino_conv)(th_tensor_data(input), th_tensor_data(output), s,
                  bias ? (const real *)th_tensor_data(bias) : NULL, p, s + p->a2 * p->K * p->C,
                  bufS, nt);
  return TH_OK;
}

static int TH_R(wino_backward_input)(const th_tensor *gradOutput, th_tensor *gradInput,
                                     const th_tensor *weight, th_tensor *scratch,
                                     const wplan *p, int64_t bufS, int nt) {
  real *s = th_tensor_data(scratch);
  /* p is the plan of gradInput's correlation: C = nOut, K = nIn */
  TH_R(wino_kernel)(th_tensor_data(weight), p->C, p->K, 1, p, s);
  TH_R(wino_conv)(th_tensor_data(gradOutput), th_tensor_data(gradInput), s, NULL, p,
                  s + p->a2 * p->K * p->C, bufS, nt);
  return TH_OK;
}

static int TH_R(wino_backward_params)(const th_tensor *input, const th_tensor *gradOutput,
                                      th_tensor *gradWeight, th_tensor *scratch,
                                      const wplan *p, int64_t off, int64_t bufS, int nt,
                                      double scale) {
  /* the threads' 16 (36) x K x C sums first, then their block buffers at 'off' */
  real *s = th_tensor_data(scratch);
  TH_R(wino_params)(th_tensor_data(input), th_tensor_data(gradOutput), th_tensor_data(gradWeight),
                    p, s + off, bufS, s, nt, (real)scale);
  return TH_OK;
}

#undef GEMM
