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

/* the 6x6 input tiles of unit (b, ty, tx0..tx0+n) in plane c, zero-padded,
   into D[6 r + q][t0 + j] (ld nb): row r, column q of tile j. Tiles
   [ja, jb) lie inside the row and are read in one loop; the others, at
   the borders, test each column (a padded copy of the whole row cost as
   much as the rest of the staging) */
TH_CPU_CLONES static void TH_R(wino4_stage)(const real *plane, const wplan *p, int64_t u,
                                            int64_t t0, int64_t nb, real *D) {
  const int64_t r0 = u / p->nseg, s = u % p->nseg, ty = r0 % p->tH, tx0 = s * p->segw;
  const int64_t n = p->tW - tx0 < p->segw ? p->tW - tx0 : p->segw;
  const int64_t x0 = 4 * tx0 - p->padW;
  /* first tile with x0 + 4j >= 0, first with x0 + 4j + 5 >= W */
  int64_t ja = x0 >= 0 ? 0 : (-x0 + 3) / 4, jb = p->W - 6 - x0 < 0 ? 0 : (p->W - 6 - x0) / 4 + 1;
  int64_t r, j, q;
  if (ja > n) ja = n;
  if (jb > n) jb = n;
  if (jb < ja) jb = ja;
  for (r = 0; r < 6; r++) {
    const int64_t y = 4 * ty - p->padH + r;
    real *restrict d0 = D + 6 * r * nb + t0, *restrict d1 = d0 + nb, *restrict d2 = d1 + nb;
    real *restrict d3 = d2 + nb, *restrict d4 = d3 + nb, *restrict d5 = d4 + nb;
    const real *restrict row;
    if (y < 0 || y >= p->H) {
      for (q = 0; q < 6; q++) memset(d0 + q * nb, 0, sizeof(real) * (size_t)n);
      continue;
    }
    row = plane + y * p->W;
    if (jb > ja) {
      const real *restrict x = row + x0 + 4 * ja;  /* inside the row */
      real *restrict e0 = d0 + ja, *restrict e1 = d1 + ja, *restrict e2 = d2 + ja;
      real *restrict e3 = d3 + ja, *restrict e4 = d4 + ja, *restrict e5 = d5 + ja;
#pragma omp simd
      for (j = 0; j < jb - ja; j++) {
        e0[j] = x[4 * j];
        e1[j] = x[4 * j + 1];
        e2[j] = x[4 * j + 2];
        e3[j] = x[4 * j + 3];
        e4[j] = x[4 * j + 4];
        e5[j] = x[4 * j + 5];
      }
    }
    for (j = 0; j < n; j++) {
      if (j == ja) j = jb;
      if (j >= n) break;
      for (q = 0; q < 6; q++) {
        const int64_t xx = x0 + 4 * j + q;
        d0[q * nb + j] = xx >= 0 && xx < p->W ? row[xx] : 0;
      }
    }
  }
}

/* V[xi][c][t] = (B^T d B)[xi] of the block's nb staged tiles D (36 x nb):
   B^T down the columns in place, then B along the rows into V */
TH_CPU_CLONES static void TH_R(wino4_in_tiles)(real *D, int64_t nb, real *V, int64_t S) {
  int64_t j, k;
  for (k = 0; k < 6; k++) {
    real *restrict d0 = D + k * nb, *restrict d1 = d0 + 6 * nb, *restrict d2 = d1 + 6 * nb;
    real *restrict d3 = d2 + 6 * nb, *restrict d4 = d3 + 6 * nb, *restrict d5 = d4 + 6 * nb;
#pragma omp simd
    for (j = 0; j < nb; j++) {
      const real a0 = d0[j], a1 = d1[j], a2 = d2[j], a3 = d3[j], a4 = d4[j], a5 = d5[j];
      d0[j] = 4 * a0 - 5 * a2 + a4;
      d1[j] = (a4 + a3) - 4 * (a1 + a2);
      d2[j] = (a4 - a3) + 4 * (a1 - a2);
      d3[j] = (a4 - a2) + 2 * (a3 - a1);
      d4[j] = (a4 - a2) - 2 * (a3 - a1);
      d5[j] = 4 * a1 - 5 * a3 + a5;
    }
  }
  for (k = 0; k < 6; k++) {
    const real *restrict d0 = D + 6 * k * nb, *restrict d1 = d0 + nb, *restrict d2 = d1 + nb;
    const real *restrict d3 = d2 + nb, *restrict d4 = d3 + nb, *restrict d5 = d4 + nb;
    real *restrict v0 = V + 6 * k * S, *restrict v1 = v0 + S, *restrict v2 = v1 + S;
    real *restrict v3 = v2 + S, *restrict v4 = v3 + S, *restrict v5 = v4 + S;
#pragma omp simd
    for (j = 0; j < nb; j++) {
      const real a0 = d0[j], a1 = d1[j], a2 = d2[j], a3 = d3[j], a4 = d4[j], a5 = d5[j];
      v0[j] = 4 * a0 - 5 * a2 + a4;
      v1[j] = (a4 + a3) - 4 * (a1 + a2);
      v2[j] = (a4 - a3) + 4 * (a1 - a2);
      v3[j] = (a4 - a2) + 2 * (a3 - a1);
      v4[j] = (a4 - a2) - 2 * (a3 - a1);
      v5[j] = 4 * a1 - 5 * a3 + a5;
    }
  }
}

/* the block's V, plane by plane: every unit's tiles staged side by side,
   then transformed over all of them at once (a unit's row of tiles alone,
   7 on a 28x28 output, left most of a vector idle) */
static void TH_R(wino4_in_block)(const real *in, const wplan *p, int64_t u0, int64_t u1,
                                 int64_t nb, real *V, real *D) {
  const int64_t S = p->C * nb;
  int64_t c, u, t;
  for (c = 0; c < p->C; c++) {
    for (u = u0, t = 0; u < u1; t += TH_R(wino_unit_tiles)(p, u), u++) {
      const int64_t b = u / p->nseg / p->tH;
      TH_R(wino4_stage)(in + (b * p->C + c) * p->H * p->W, p, u, t, nb, D);
    }
    TH_R(wino4_in_tiles)(D, nb, V + c * nb, S);
  }
}

/* the 4x4 outputs of all nb tiles of a block for output plane o:
   Y[i][t] (16 x nb, i = 4 row + column) = A^T m A + v, one long loop */
TH_CPU_CLONES static void TH_R(wino4_out_plane)(const real *M, int64_t S, int64_t nb, real v,
                                                real *restrict Y) {
  int64_t j;
#pragma omp simd
  for (j = 0; j < nb; j++) {
    real t[6][4];
    int k;
    for (k = 0; k < 6; k++) {  /* m A, along each row k */
      const real *mk = M + 6 * k * S + j;
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
      Y[k * nb + j] = t[0][k] + s12 + s34 + v;
      Y[(4 + k) * nb + j] = d12 + 2 * d34 + v;
      Y[(8 + k) * nb + j] = s12 + 4 * s34 + v;
      Y[(12 + k) * nb + j] = d12 + 8 * d34 + t[5][k] + v;
    }
  }
}

/* unit u's tiles (from t0 in Y, ld nb) into output plane o, the columns
   and rows past the output left out */
static inline void TH_R(wino4_out_scatter)(const real *Y, const wplan *p, int64_t u, int64_t t0,
                                    int64_t nb, int64_t o, real *out) {
  const int64_t r = u / p->nseg, s = u % p->nseg;
  const int64_t b = r / p->tH, ty = r % p->tH, tx0 = s * p->segw;
  const int64_t n = p->tW - tx0 < p->segw ? p->tW - tx0 : p->segw;
  const int64_t nrow = p->oH - 4 * ty < 4 ? p->oH - 4 * ty : 4;
  const int64_t full = 4 * (tx0 + n) <= p->oW ? n : n - 1, last = p->oW - 4 * (tx0 + full);
  real *y = out + ((b * p->K + o) * p->oH + 4 * ty) * p->oW + 4 * tx0;
  int64_t i, j, q;
  for (i = 0; i < nrow; i++) {
    const real *e0 = Y + 4 * i * nb + t0, *e1 = e0 + nb, *e2 = e1 + nb, *e3 = e2 + nb;
    real *restrict yr = y + i * p->oW;
#pragma omp simd
    for (j = 0; j < full; j++) {
      yr[4 * j] = e0[j];
      yr[4 * j + 1] = e1[j];
      yr[4 * j + 2] = e2[j];
      yr[4 * j + 3] = e3[j];
    }
    for (q = 0; q < last && full < n; q++) yr[4 * full + q] = Y[(4 * i + q) * nb + t0 + full];
  }
}

/* the block's output from M (ld nb), plane by plane: the transform over
   all its tiles at once (a unit's row of tiles alone, 7 on a 28x28
   output, left most of a vector idle), then each unit's share */
TH_CPU_CLONES static void TH_R(wino4_out_block)(const real *M, const wplan *p, int64_t u0, int64_t u1,
                                  int64_t nb, const real *bias, real *out, real *Y) {
  int64_t o, u, t;
  for (o = 0; o < p->K; o++) {
    TH_R(wino4_out_plane)(M + o * nb, p->K * nb, nb, bias ? bias[o] : 0, Y);
    for (u = u0, t = 0; u < u1; t += TH_R(wino_unit_tiles)(p, u), u++)
      TH_R(wino4_out_scatter)(Y, p, u, t, nb, o, out);
  }
}

/* gradWeight: Yh[xi][o][t] = (A dy A^T)[xi] of the block's 4x4 gradOutput
   tiles (0 beyond the output), A = (A^T)^T, 6 x 4. Per plane o, each
   unit's tiles are staged side by side (E[4 r + q][t], row r, column q of
   the tile), then transformed over all nb at once */
static inline void TH_R(wino4_grad_stage)(const real *go, const wplan *p, int64_t u, int64_t t0,
                                          int64_t nb, int64_t o, real *restrict E) {
  const int64_t r0 = u / p->nseg, s = u % p->nseg;
  const int64_t b = r0 / p->tH, ty = r0 % p->tH, tx0 = s * p->segw;
  const int64_t n = p->tW - tx0 < p->segw ? p->tW - tx0 : p->segw;
  const int64_t nrow = p->oH - 4 * ty < 4 ? p->oH - 4 * ty : 4;
  const int64_t full = 4 * (tx0 + n) <= p->oW ? n : n - 1, last = p->oW - 4 * (tx0 + full);
  const real *g = go + ((b * p->K + o) * p->oH + 4 * ty) * p->oW + 4 * tx0;
  int64_t i, j, q;
  for (i = 0; i < 4; i++) {
    real *restrict e0 = E + 4 * i * nb + t0, *restrict e1 = e0 + nb, *restrict e2 = e1 + nb;
    real *restrict e3 = e2 + nb;
    const real *restrict gr = g + i * p->oW;
    if (i >= nrow) {
      for (q = 0; q < 4; q++) memset(e0 + q * nb, 0, sizeof(real) * (size_t)n);
      continue;
    }
#pragma omp simd
    for (j = 0; j < full; j++) {
      e0[j] = gr[4 * j];
      e1[j] = gr[4 * j + 1];
      e2[j] = gr[4 * j + 2];
      e3[j] = gr[4 * j + 3];
    }
    if (full < n)
      for (q = 0; q < 4; q++) e0[q * nb + full] = q < last ? gr[4 * full + q] : 0;
  }
}

/* (A y) of nb 4-vectors: y0, y0+y1+y2+y3, y0-y1+y2-y3, y0+2y1+4y2+8y3, y0-2y1+4y2-8y3, y3;
   y_i at y + i * ys, (A y)_i at f + i * fs */
static inline __attribute__((always_inline)) void TH_R(wino4_a6)(const real *y, int64_t ys, real *f,
                                                                  int64_t fs, int64_t nb) {
  const real *restrict y0 = y, *restrict y1 = y + ys, *restrict y2 = y + 2 * ys, *restrict y3 = y + 3 * ys;
  real *restrict f0 = f, *restrict f1 = f + fs, *restrict f2 = f + 2 * fs;
  real *restrict f3 = f + 3 * fs, *restrict f4 = f + 4 * fs, *restrict f5 = f + 5 * fs;
  int64_t j;
#pragma omp simd
  for (j = 0; j < nb; j++) {
    const real a0 = y0[j], a1 = y1[j], a2 = y2[j], a3 = y3[j];
    const real s02 = a0 + a2, s13 = a1 + a3, q02 = a0 + 4 * a2, q13 = 2 * a1 + 8 * a3;
    f0[j] = a0;
    f1[j] = s02 + s13;
    f2[j] = s02 - s13;
    f3[j] = q02 + q13;
    f4[j] = q02 - q13;
    f5[j] = a3;
  }
}

/* A y A^T per tile: down the columns into F[6 r + k], then along the rows into Yh[6 k + l] */
TH_CPU_CLONES static void TH_R(wino4_grad_tiles)(const real *E, int64_t nb, real *Yh, int64_t S,
                                                 real *F) {
  int64_t k;
  for (k = 0; k < 4; k++) TH_R(wino4_a6)(E + k * nb, 4 * nb, F + k * nb, 4 * nb, nb);
  for (k = 0; k < 6; k++) TH_R(wino4_a6)(F + 4 * k * nb, nb, Yh + 6 * k * S, S, nb);
}

/* the block's Yh (36 x K x nb), plane by plane; D: 40 x nb of scratch */
static void TH_R(wino4_grad_block)(const real *go, const wplan *p, int64_t u0, int64_t u1,
                                   int64_t nb, real *Yh, real *D) {
  int64_t o, u, t;
  for (o = 0; o < p->K; o++) {
    for (u = u0, t = 0; u < u1; t += TH_R(wino_unit_tiles)(p, u), u++)
      TH_R(wino4_grad_stage)(go, p, u, t, nb, o, D);
    TH_R(wino4_grad_tiles)(D, nb, Yh + o * nb, p->K * nb, D + 16 * nb);
  }
}

/* gw[o][c] += scale * G^T acc G (in double), G^T = [1/4 -1/6 -1/6 1/24
   1/24 0; 0 -1/6 1/6 1/12 -1/12 0; 0 -1/6 -1/6 1/6 1/6 1] */
TH_CPU_CLONES static void TH_R(wino4_params_finish)(const real *acc, const wplan *p, real *gw,
                                                    real scale) {
  const int64_t KC = p->K * p->C;
  const double s4 = 1.0 / 4, s6 = 1.0 / 6, s12 = 1.0 / 12, s24 = 1.0 / 24;
  int64_t oc;
  int i, l;
  for (oc = 0; oc < KC; oc++) {
    double a[6][6], t[3][6];
    real *d = gw + oc * 9;
    for (i = 0; i < 36; i++) a[i / 6][i % 6] = acc[i * KC + oc];
    for (l = 0; l < 6; l++) {
      t[0][l] = a[0][l] * s4 - (a[1][l] + a[2][l]) * s6 + (a[3][l] + a[4][l]) * s24;
      t[1][l] = (a[2][l] - a[1][l]) * s6 + (a[3][l] - a[4][l]) * s12;
      t[2][l] = -(a[1][l] + a[2][l]) * s6 + (a[3][l] + a[4][l]) * s6 + a[5][l];
    }
    for (i = 0; i < 3; i++) {
      const double *r = t[i];
      d[3 * i] += scale * (real)(r[0] * s4 - (r[1] + r[2]) * s6 + (r[3] + r[4]) * s24);
      d[3 * i + 1] += scale * (real)((r[2] - r[1]) * s6 + (r[3] - r[4]) * s12);
      d[3 * i + 2] += scale * (real)(-(r[1] + r[2]) * s6 + (r[3] + r[4]) * s6 + r[5]);
    }
  }
}
