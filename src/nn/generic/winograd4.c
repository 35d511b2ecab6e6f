/* generic/winograd4.c: Winograd F(4x4,3x3) transforms for 'real'
   (included by generic/winograd.c). Points 0, 1, -1, 2, -2 and infinity
   (Lavin and Gray 2015):
     B^T = [4  0 -5  0 1 0;  0 -4 -4  1 1 0;  0 4 -4 -1 1 0;
            0 -2 -1  2 1 0;  0  2 -1 -2 1 0;  0 4  0 -5 0 1]     input tile d, 6x6
     G   = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6;
            1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1]               kernel g, 3x3
     A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]   output tile, 4x4
   y = A^T [(G g G^T) .* (B^T d B)] A: 36 products per 4x4 outputs. A
   block's V is 36 x C x nb, its M 36 x K x nb (entry xi = 6k + l). The
   kernel transform (fractions of 6 and 24) is computed in double and
   rounded once: that halves float's error against rounding each step. */

/* U[xi] (K x C) = G g G^T of each kernel, the layout of wino_kernel_row.
   A row's kernels go WINO4_KCOLS at a time through a local block, copied
   out per xi: written straight, the 36 rows of U a multiple of 4 KiB
   apart fell in one L1 set and the transform took 70% of a 7x7 layer */
#define WINO4_KCOLS 32
TH_CPU_CLONES static void TH_R(wino4_kernel_row)(void *arg, int64_t row) {
  const TH_R(wk_job) *j = arg;
  const int64_t nIn = j->nIn, K = j->flip ? nIn : j->nOut, C = j->flip ? j->nOut : nIn;
  const int64_t KC = K * C, step = j->flip ? nIn * 9 : 9;
  const real *g0 = j->w + (j->flip ? row : row * nIn) * 9;
  const double s4 = 1.0 / 4, s6 = 1.0 / 6, s12 = 1.0 / 12, s24 = 1.0 / 24;
  real blk[36][WINO4_KCOLS];
  int64_t c0, col, xi;
  for (c0 = 0; c0 < C; c0 += WINO4_KCOLS) {
    const int64_t nc = C - c0 < WINO4_KCOLS ? C - c0 : WINO4_KCOLS;
#pragma omp simd
    for (col = 0; col < nc; col++) {
      const real *g = g0 + (c0 + col) * step;
      double k[9], t[6][3];
      int i, l;
      for (i = 0; i < 9; i++) k[i] = j->flip ? g[8 - i] : g[i];
      for (l = 0; l < 3; l++) {  /* G g, down the columns */
        const double a = k[l], b = k[3 + l], e = k[6 + l];
        t[0][l] = a * s4;
        t[1][l] = -(a + b + e) * s6;
        t[2][l] = -(a - b + e) * s6;
        t[3][l] = a * s24 + b * s12 + e * s6;
        t[4][l] = a * s24 - b * s12 + e * s6;
        t[5][l] = e;
      }
      for (i = 0; i < 6; i++) {  /* (G g) G^T, along the rows */
        const double a = t[i][0], b = t[i][1], e = t[i][2];
        blk[6 * i][col] = (real)(a * s4);
        blk[6 * i + 1][col] = (real)(-(a + b + e) * s6);
        blk[6 * i + 2][col] = (real)(-(a - b + e) * s6);
        blk[6 * i + 3][col] = (real)(a * s24 + b * s12 + e * s6);
        blk[6 * i + 4][col] = (real)(a * s24 - b * s12 + e * s6);
        blk[6 * i + 5][col] = (real)e;
      }
    }
    for (xi = 0; xi < 36; xi++)
      memcpy(j->U + xi * KC + row * C + c0, blk[xi], sizeof(real) * (size_t)nc);
  }
}

/* 6 input rows of unit (b, ty, tx0..tx0+n), zero-padded, split into the
   4 column phases (row r, phase q at rows + (4r + q) L: element j is
   column x0 + 4j + q; phases 0, 1 to j = n, phases 2, 3 to n - 1), so
   that every later loop runs over contiguous j. A row that crosses the
   image's border goes through a padded copy (lin, 4n + 2) first */
TH_CPU_CLONES static void TH_R(wino4_rows)(const real *plane, const wplan *p, int64_t ty,
                                           int64_t tx0, int64_t n, real *rows, real *lin) {
  const int64_t L = p->segw + 1, x0 = 4 * tx0 - p->padW, len = 4 * n + 2;
  const int64_t lo = x0 >= 0 ? 0 : -x0, hi0 = p->W - x0, hi = hi0 < len ? hi0 : len;
  int64_t r, j;
  for (r = 0; r < 6; r++) {
    const int64_t y = 4 * ty - p->padH + r;
    real *restrict p0 = rows + 4 * r * L, *restrict p1 = p0 + L;
    real *restrict p2 = p1 + L, *restrict p3 = p2 + L;
    const real *restrict q = lin;
    if (y < 0 || y >= p->H || lo >= hi) {
      memset(p0, 0, sizeof(real) * (size_t)(4 * L));
      continue;
    }
    if (lo == 0 && hi == len) {
      q = plane + y * p->W + x0;
    } else {
      memset(lin, 0, sizeof(real) * (size_t)lo);
      memcpy(lin + lo, plane + y * p->W + x0 + lo, sizeof(real) * (size_t)(hi - lo));
      memset(lin + hi, 0, sizeof(real) * (size_t)(len - hi));
    }
#pragma omp simd
    for (j = 0; j < n; j++) {
      p0[j] = q[4 * j];
      p1[j] = q[4 * j + 1];
      p2[j] = q[4 * j + 2];
      p3[j] = q[4 * j + 3];
    }
    p0[n] = q[4 * n];
    p1[n] = q[4 * n + 1];
    p2[n] = p3[n] = 0;
  }
}

/* V[xi][c][t0 + j] = (B^T d B)[xi] of the unit's tiles, ld = nb */
TH_CPU_CLONES static void TH_R(wino4_in_unit)(const real *in, const wplan *p, int64_t u,
                                              int64_t t0, int64_t nb, real *V, real *rows) {
  const int64_t L = p->segw + 1, r = u / p->nseg, s = u % p->nseg;
  const int64_t b = r / p->tH, ty = r % p->tH, tx0 = s * p->segw;
  const int64_t n = p->tW - tx0 < p->segw ? p->tW - tx0 : p->segw, S = p->C * nb;
  int64_t c, j, k;
  for (c = 0; c < p->C; c++) {
    real *restrict d0 = rows, *restrict d1 = rows + 4 * L, *restrict d2 = rows + 8 * L;
    real *restrict d3 = rows + 12 * L, *restrict d4 = rows + 16 * L, *restrict d5 = rows + 20 * L;
    TH_R(wino4_rows)(in + (b * p->C + c) * p->H * p->W, p, ty, tx0, n, rows, rows + 24 * L);
    /* B^T down the columns, the 4 phases (4L values) at once */
#pragma omp simd
    for (j = 0; j < 4 * L; j++) {
      const real a0 = d0[j], a1 = d1[j], a2 = d2[j], a3 = d3[j], a4 = d4[j], a5 = d5[j];
      d0[j] = 4 * a0 - 5 * a2 + a4;
      d1[j] = (a4 + a3) - 4 * (a1 + a2);
      d2[j] = (a4 - a3) + 4 * (a1 - a2);
      d3[j] = (a4 - a2) + 2 * (a3 - a1);
      d4[j] = (a4 - a2) - 2 * (a3 - a1);
      d5[j] = 4 * a1 - 5 * a3 + a5;
    }
    /* B along the rows: tile j's columns are P0[j] P1[j] P2[j] P3[j] P0[j+1] P1[j+1] */
    for (k = 0; k < 6; k++) {
      const real *restrict P0 = rows + 4 * k * L, *restrict P1 = P0 + L;
      const real *restrict P2 = P1 + L, *restrict P3 = P2 + L;
      real *restrict v0 = V + 6 * k * S + c * nb + t0, *restrict v1 = v0 + S;
      real *restrict v2 = v1 + S, *restrict v3 = v2 + S, *restrict v4 = v3 + S;
      real *restrict v5 = v4 + S;
#pragma omp simd
      for (j = 0; j < n; j++) {
        const real a0 = P0[j], a1 = P1[j], a2 = P2[j], a3 = P3[j], a4 = P0[j + 1];
        const real a5 = P1[j + 1];
        v0[j] = 4 * a0 - 5 * a2 + a4;
        v1[j] = (a4 + a3) - 4 * (a1 + a2);
        v2[j] = (a4 - a3) + 4 * (a1 - a2);
        v3[j] = (a4 - a2) + 2 * (a3 - a1);
        v4[j] = (a4 - a2) - 2 * (a3 - a1);
        v5[j] = 4 * a1 - 5 * a3 + a5;
      }
    }
  }
}

/* output of the unit's tiles from M (ld nb): A^T m A + bias, first into
   the 4 phases of the 4 output rows (tmp, 16 x n, contiguous loops), then
   interleaved into the planes, the columns and rows past the output left
   out */
TH_CPU_CLONES static void TH_R(wino4_out_unit)(const real *M, const wplan *p, int64_t u,
                                               int64_t t0, int64_t nb, const real *bias,
                                               real *out, real *tmp) {
  const int64_t r = u / p->nseg, s = u % p->nseg;
  const int64_t b = r / p->tH, ty = r % p->tH, tx0 = s * p->segw;
  const int64_t n = p->tW - tx0 < p->segw ? p->tW - tx0 : p->segw, S = p->K * nb;
  const int64_t nrow = p->oH - 4 * ty < 4 ? p->oH - 4 * ty : 4;
  const int64_t full = 4 * (tx0 + n) <= p->oW ? n : n - 1, last = p->oW - 4 * (tx0 + full);
  int64_t o, j, i, q;
  for (o = 0; o < p->K; o++) {
    const real *m = M + o * nb + t0, v = bias ? bias[o] : 0;
    real *y = out + ((b * p->K + o) * p->oH + 4 * ty) * p->oW + 4 * tx0;
#pragma omp simd
    for (j = 0; j < n; j++) {
      real t[6][4];
      int64_t k;
      for (k = 0; k < 6; k++) {  /* m A, along each row k */
        const real *mk = m + 6 * k * S + j;
        const real a1 = mk[S], a2 = mk[2 * S], a3 = mk[3 * S], a4 = mk[4 * S];
        const real s12 = a1 + a2, d12 = a1 - a2, s34 = a3 + a4, d34 = a3 - a4;
        t[k][0] = mk[0] + s12 + s34;
        t[k][1] = d12 + 2 * d34;
        t[k][2] = s12 + 4 * s34;
        t[k][3] = d12 + 8 * d34 + mk[5 * S];
      }
      for (k = 0; k < 4; k++) {  /* A^T (m A), down the columns */
        const real s12 = t[1][k] + t[2][k], d12 = t[1][k] - t[2][k];
        const real s34 = t[3][k] + t[4][k], d34 = t[3][k] - t[4][k];
        tmp[k * n + j] = t[0][k] + s12 + s34 + v;
        tmp[(4 + k) * n + j] = d12 + 2 * d34 + v;
        tmp[(8 + k) * n + j] = s12 + 4 * s34 + v;
        tmp[(12 + k) * n + j] = d12 + 8 * d34 + t[5][k] + v;
      }
    }
    for (i = 0; i < nrow; i++) {
      const real *e0 = tmp + 4 * i * n, *e1 = e0 + n, *e2 = e1 + n, *e3 = e2 + n;
      real *yr = y + i * p->oW;
      for (j = 0; j < full; j++) {
        yr[4 * j] = e0[j];
        yr[4 * j + 1] = e1[j];
        yr[4 * j + 2] = e2[j];
        yr[4 * j + 3] = e3[j];
      }
      for (q = 0; q < last && full < n; q++) yr[4 * full + q] = tmp[(4 * i + q) * n + full];
    }
  }
}
