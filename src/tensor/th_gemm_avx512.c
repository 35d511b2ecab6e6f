/*
** th_gemm_avx512.c: the AVX-512 side of th_sgemm: packing and the 8 x 48
** micro-kernel. Every function carries the AVX512 target attribute, so
** this file builds with baseline x86-64 flags; th_gemm.c calls in only
** after __builtin_cpu_supports says AVX-512 F, BW, DQ and VL.
** Blocking (BLIS order): for each nc-wide column block of B and kc-deep
** slice of K, B's slice is packed into NR-wide micro-panels (kc x 48,
** zero-padded on the right), or read in place when C has few rows; for
** each mc-high block of A, A is packed into MR-high micro-panels (8 x kc,
** zero-padded below) that stay in L2 (or, with B in place, a row-major A
** is read in place too); the micro-kernel then walks each B micro-panel
** against every A panel of the block. An A micro-panel stores column p of
** its 8 rows at [p * 8], a B micro-panel row p of its 48 columns at
** [p * 48]. Padding makes every kernel call a full 8-row product of 16,
** 32 or 48 columns; only the store is masked (columns) and cut short
** (rows). The first K slice applies beta (0: C is written without being
** read), later ones add. A times B^T with a small C goes by dot products
** instead (th_gemm_avx512_dot), nothing packed; with B transposed in
** memory and few rows of C (nn.Linear's forward) the product is flipped,
** C^T = B^T A^T, so that the large B^T is read in place by rows and only
** the small A is packed (th_gemm_avx512_flip).
*/
#include <immintrin.h>
#include "th_gemm_internal.h"

#if defined(__GNUC__) && defined(__x86_64__)

#define AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,fma")))
#define MR TH_GEMM_MR
#define NR TH_GEMM_NR

static const float zeros[8] __attribute__((aligned(32)));

/* dst[c * ldd + r] = row r's element c, for 8 rows of 8 floats */
AVX512 static inline void transpose8(const float *const *row, float *dst, ptrdiff_t ldd) {
  const __m256 r0 = _mm256_loadu_ps(row[0]), r1 = _mm256_loadu_ps(row[1]),
               r2 = _mm256_loadu_ps(row[2]), r3 = _mm256_loadu_ps(row[3]),
               r4 = _mm256_loadu_ps(row[4]), r5 = _mm256_loadu_ps(row[5]),
               r6 = _mm256_loadu_ps(row[6]), r7 = _mm256_loadu_ps(row[7]);
  const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1),
               t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3),
               t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
               t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE),
               s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE),
               s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE),
               s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  _mm256_storeu_ps(dst + 0 * ldd, _mm256_permute2f128_ps(s0, s4, 0x20));
  _mm256_storeu_ps(dst + 1 * ldd, _mm256_permute2f128_ps(s1, s5, 0x20));
  _mm256_storeu_ps(dst + 2 * ldd, _mm256_permute2f128_ps(s2, s6, 0x20));
  _mm256_storeu_ps(dst + 3 * ldd, _mm256_permute2f128_ps(s3, s7, 0x20));
  _mm256_storeu_ps(dst + 4 * ldd, _mm256_permute2f128_ps(s0, s4, 0x31));
  _mm256_storeu_ps(dst + 5 * ldd, _mm256_permute2f128_ps(s1, s5, 0x31));
  _mm256_storeu_ps(dst + 6 * ldd, _mm256_permute2f128_ps(s2, s6, 0x31));
  _mm256_storeu_ps(dst + 7 * ldd, _mm256_permute2f128_ps(s3, s7, 0x31));
}

/* 8 strided "rows" of contiguous elements (missing ones read as zeros),
   transposed kc deep into dst[p * ldd + r] */
AVX512 static void pack_rows(const float *const *row, int kc, float *dst, ptrdiff_t ldd) {
  const float *r8[8];
  int p = 0, r;
  for (; p + 8 <= kc; p += 8) {
    for (r = 0; r < 8; r++) r8[r] = row[r] == zeros ? zeros : row[r] + p;
    transpose8(r8, dst + p * ldd, ldd);
  }
  for (; p < kc; p++)
    for (r = 0; r < 8; r++) dst[p * ldd + r] = row[r] == zeros ? 0.0f : row[r][p];
}

static int min_int(int x, int y) { return x < y ? x : y; }

/* mask of the first n (0..16) lanes */
AVX512 static inline __mmask16 lanes(int n) {
  return n >= 16 ? (__mmask16)0xFFFF : n <= 0 ? (__mmask16)0 : (__mmask16)((1u << n) - 1);
}

/* 8 contiguous-in-i rows of A (A transposed in memory): a plain copy */
AVX512 static void pack_a_panel(const th_gemm_op *op, int i0, int mr, int p0, int kc, float *dst) {
  int p, r;
  if (op->ars == 1) {
    const __mmask8 m = (__mmask8)lanes(mr);
    const float *s = op->a + i0 + p0 * op->acs;
    for (p = 0; p < kc; p++, s += op->acs)
      _mm256_store_ps(dst + p * MR, _mm256_maskz_loadu_ps(m, s));
  } else if (op->acs == 1) {
    const float *row[8];
    for (r = 0; r < 8; r++) row[r] = r < mr ? op->a + (i0 + r) * op->ars + p0 : zeros;
    pack_rows(row, kc, dst, MR);
  } else {
    for (p = 0; p < kc; p++)
      for (r = 0; r < MR; r++)
        dst[p * MR + r] = r < mr ? op->a[(i0 + r) * op->ars + (p0 + p) * op->acs] : 0.0f;
  }
}

AVX512 static void pack_b_panel(const th_gemm_op *op, int j0, int nr, int p0, int kc, float *dst) {
  int p, j;
  if (op->bcs == 1) {
    const __mmask16 m0 = lanes(nr), m1 = lanes(nr - 16), m2 = lanes(nr - 32);
    const float *s = op->b + p0 * op->brs + j0;
    for (p = 0; p < kc; p++, s += op->brs) {
      _mm512_store_ps(dst + p * NR, _mm512_maskz_loadu_ps(m0, s));
      _mm512_store_ps(dst + p * NR + 16, _mm512_maskz_loadu_ps(m1, s + 16));
      _mm512_store_ps(dst + p * NR + 32, _mm512_maskz_loadu_ps(m2, s + 32));
    }
  } else if (op->brs == 1) {
    /* B transposed in memory: its columns are contiguous rows, 8 at a time */
    const float *row[8];
    int g, r;
    for (g = 0; g < NR; g += 8) {
      for (r = 0; r < 8; r++)
        row[r] = g + r < nr ? op->b + (ptrdiff_t)(j0 + g + r) * op->bcs + p0 : zeros;
      pack_rows(row, kc, dst + g, NR);
    }
  } else {
    for (p = 0; p < kc; p++)
      for (j = 0; j < NR; j++)
        dst[p * NR + j] = j < nr ? op->b[(p0 + p) * op->brs + (j0 + j) * op->bcs] : 0.0f;
  }
}

/* one row of the tile: c = alpha * acc (+ beta * c) on the first nr columns */
AVX512 static inline void store_row(float *c, __m512 x0, __m512 x1, __m512 x2, __mmask16 m0,
                                    __mmask16 m1, __mmask16 m2, __m512 va, __m512 vb, int mul,
                                    int add) {
  if (mul) x0 = _mm512_mul_ps(x0, va), x1 = _mm512_mul_ps(x1, va), x2 = _mm512_mul_ps(x2, va);
  if (add) {
    x0 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m0, c), x0);
    x1 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m1, c + 16), x1);
    x2 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m2, c + 32), x2);
  }
  _mm512_mask_storeu_ps(c, m0, x0);
  _mm512_mask_storeu_ps(c + 16, m1, x1);
  _mm512_mask_storeu_ps(c + 32, m2, x2);
}

#define ACC(r) __m512 c##r##0 = _mm512_setzero_ps(), c##r##1 = c##r##0, c##r##2 = c##r##0
#define FMA(r)                                                \
  av = _mm512_set1_ps(inplace ? a##r[p] : a[p * MR + r]);    \
  c##r##0 = _mm512_fmadd_ps(av, b0, c##r##0);                \
  if (nv > 1) c##r##1 = _mm512_fmadd_ps(av, b1, c##r##1);    \
  if (nv > 2) c##r##2 = _mm512_fmadd_ps(av, b2, c##r##2)
#define OUT(r) \
  if (r < mr) store_row(c + r * ldc, c##r##0, c##r##1, c##r##2, m0, m1, m2, va, vb, mul, add)

#define SPILL(r)                                             \
  _mm512_store_ps(t + r * NR, c##r##0);                      \
  if (nv > 1) _mm512_store_ps(t + r * NR + 16, c##r##1);     \
  if (nv > 2) _mm512_store_ps(t + r * NR + 32, c##r##2)

/* the tile t (MR rows of NR, the first mr x nr meaningful) stored
   transposed: c[j * ldc + r] = alpha * t[r][j] (+ beta c[...]), 8 x 8
   blocks at a time (the flipped product, th_gemm_avx512_flip) */
AVX512 static inline void store_flipped(const float *t, float *c, ptrdiff_t ldc, int mr, int nr,
                                        float alpha, float beta) {
  float u[64] __attribute__((aligned(32)));
  const float *row[8];
  const __mmask8 cm = (__mmask8)lanes(mr);
  const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
  int g, q, r;
  for (g = 0; g < nr; g += 8) {
    const int nq = min_int(8, nr - g);
    for (r = 0; r < 8; r++) row[r] = t + r * NR + g;
    transpose8(row, u, 8);
    for (q = 0; q < nq; q++) {
      float *d = c + (ptrdiff_t)(g + q) * ldc;
      __m256 v = _mm256_load_ps(u + q * 8);
      if (alpha != 1.0f) v = _mm256_mul_ps(v, va);
      if (beta != 0.0f) v = _mm256_fmadd_ps(vb, _mm256_maskz_loadu_ps(cm, d), v);
      _mm256_mask_storeu_ps(d, cm, v);
    }
  }
}

/* C tile (mr <= 8 rows, nr <= 16 nv columns) = alpha * A panel B panel
   (+ beta C); B's rows are ldb apart (NR when packed). nv and inplace are
   constants at each call: the narrow edge tiles of N skip the zero
   columns' products; 'inplace' reads A's rows where they are (ars apart;
   rows past mr read row 0 again, their sums are not stored) instead of a packed panel */
AVX512 static inline __attribute__((always_inline)) void tile(int kc, const float *a, ptrdiff_t ars,
                                                              const float *b, ptrdiff_t ldb, float *c,
                                                              ptrdiff_t ldc, int mr, int nr, float alpha,
                                                              float beta, const int nv,
                                                              const int inplace, const int ctrans) {
  const float *a0 = a, *a1 = a + (mr > 1 ? ars : 0), *a2 = a + (mr > 2 ? 2 * ars : 0),
              *a3 = a + (mr > 3 ? 3 * ars : 0), *a4 = a + (mr > 4 ? 4 * ars : 0),
              *a5 = a + (mr > 5 ? 5 * ars : 0), *a6 = a + (mr > 6 ? 6 * ars : 0),
              *a7 = a + (mr > 7 ? 7 * ars : 0);
  ACC(0); ACC(1); ACC(2); ACC(3); ACC(4); ACC(5); ACC(6); ACC(7);
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
  const __mmask16 m0 = lanes(nr), m1 = lanes(nr - 16), m2 = lanes(nr - 32);
  const int add = beta != 0.0f, mul = alpha != 1.0f;
  int p;
  /* the tile's cache lines of C, fetched while the products run (a short
     K leaves no time to hide them) */
  for (p = 0; !ctrans && kc >= 64 && p < mr; p++) {
    _mm_prefetch((const char *)(c + p * ldc), _MM_HINT_T0);
    _mm_prefetch((const char *)(c + p * ldc + 16 * nv - 1), _MM_HINT_T0);
    if (nv > 2) _mm_prefetch((const char *)(c + p * ldc + 16), _MM_HINT_T0);
  }
  for (p = 0; p < kc; p++) {
    const __m512 b0 = _mm512_loadu_ps(b);
    const __m512 b1 = nv > 1 ? _mm512_loadu_ps(b + 16) : b0;
    const __m512 b2 = nv > 2 ? _mm512_loadu_ps(b + 32) : b0;
    __m512 av;
    FMA(0); FMA(1); FMA(2); FMA(3); FMA(4); FMA(5); FMA(6); FMA(7);
    b += ldb;
  }
  if (ctrans) {
    float t[MR * NR] __attribute__((aligned(64)));
    SPILL(0); SPILL(1); SPILL(2); SPILL(3); SPILL(4); SPILL(5); SPILL(6); SPILL(7);
    store_flipped(t, c, ldc, mr, nr, alpha, beta);
    return;
  }
  OUT(0); OUT(1); OUT(2); OUT(3); OUT(4); OUT(5); OUT(6); OUT(7);
}

/* ars 0: 'a' is a packed panel; else A's rows in place, ars apart */
AVX512 static void kernel(int kc, const float *a, ptrdiff_t ars, const float *b, ptrdiff_t ldb,
                          float *c, ptrdiff_t ldc, int mr, int nr, float alpha, float beta) {
  if (ars != 0) {
    if (nr > 32) tile(kc, a, ars, b, ldb, c, ldc, mr, nr, alpha, beta, 3, 1, 0);
    else if (nr > 16) tile(kc, a, ars, b, ldb, c, ldc, mr, nr, alpha, beta, 2, 1, 0);
    else tile(kc, a, ars, b, ldb, c, ldc, mr, nr, alpha, beta, 1, 1, 0);
  } else {
    if (nr > 32) tile(kc, a, 0, b, ldb, c, ldc, mr, nr, alpha, beta, 3, 0, 0);
    else if (nr > 16) tile(kc, a, 0, b, ldb, c, ldc, mr, nr, alpha, beta, 2, 0, 0);
    else tile(kc, a, 0, b, ldb, c, ldc, mr, nr, alpha, beta, 1, 0, 0);
  }
}

/* A's rows in place, the tile stored transposed (c[j * ldc + i]) */
AVX512 static void kernel_flipped(int kc, const float *a, ptrdiff_t ars, const float *b, float *c,
                                  ptrdiff_t ldc, int mr, int nr, float alpha, float beta) {
  if (nr > 32) tile(kc, a, ars, b, NR, c, ldc, mr, nr, alpha, beta, 3, 1, 1);
  else if (nr > 16) tile(kc, a, ars, b, NR, c, ldc, mr, nr, alpha, beta, 2, 1, 1);
  else tile(kc, a, ars, b, NR, c, ldc, mr, nr, alpha, beta, 1, 1, 1);
}

/* --- A times B^T with both along K in memory: dot products ------------- */

/* sum of each of 4 vectors, as 4 floats */
AVX512 static inline __m128 sum4(__m512 x0, __m512 x1, __m512 x2, __m512 x3) {
  /* halve twice in 512 -> 128 bits, then one horizontal 4 x 4 sum */
  const __m256 y0 = _mm256_add_ps(_mm512_castps512_ps256(x0), _mm512_extractf32x8_ps(x0, 1));
  const __m256 y1 = _mm256_add_ps(_mm512_castps512_ps256(x1), _mm512_extractf32x8_ps(x1, 1));
  const __m256 y2 = _mm256_add_ps(_mm512_castps512_ps256(x2), _mm512_extractf32x8_ps(x2, 1));
  const __m256 y3 = _mm256_add_ps(_mm512_castps512_ps256(x3), _mm512_extractf32x8_ps(x3, 1));
  const __m128 z0 = _mm_add_ps(_mm256_castps256_ps128(y0), _mm256_extractf128_ps(y0, 1));
  const __m128 z1 = _mm_add_ps(_mm256_castps256_ps128(y1), _mm256_extractf128_ps(y1, 1));
  const __m128 z2 = _mm_add_ps(_mm256_castps256_ps128(y2), _mm256_extractf128_ps(y2, 1));
  const __m128 z3 = _mm_add_ps(_mm256_castps256_ps128(y3), _mm256_extractf128_ps(y3, 1));
  return _mm_hadd_ps(_mm_hadd_ps(z0, z1), _mm_hadd_ps(z2, z3));
}

#define DOTACC(r) __m512 d##r##0 = _mm512_setzero_ps(), d##r##1 = d##r##0, d##r##2 = d##r##0, d##r##3 = d##r##0
#define DOTFMA(r, load)                             \
  av = load(a##r + p);                               \
  d##r##0 = _mm512_fmadd_ps(av, b0, d##r##0);       \
  d##r##1 = _mm512_fmadd_ps(av, b1, d##r##1);       \
  d##r##2 = _mm512_fmadd_ps(av, b2, d##r##2);       \
  d##r##3 = _mm512_fmadd_ps(av, b3, d##r##3)
#define DOTOUT(r)                                                                     \
  if (r < mr) {                                                                       \
    __m128 v = _mm_mul_ps(_mm_set1_ps(op->alpha), sum4(d##r##0, d##r##1, d##r##2, d##r##3)); \
    float *cr = op->c + (ptrdiff_t)(i + r) * op->ldc + j;                            \
    if (op->beta != 0.0f) v = _mm_fmadd_ps(_mm_set1_ps(op->beta), _mm_maskz_loadu_ps(cm, cr), v); \
    _mm_mask_storeu_ps(cr, cm, v);                                                   \
  }

/* C row block [i, i + rows) x columns [n0, n1) by dot products; 'rows'
   (1-4) is a constant at each call, so a short block at the bottom edge
   (or a product of one row: nn.Linear on a single sample in a batch of 1)
   computes only its own rows instead of repeating the last one */
AVX512 static inline __attribute__((always_inline)) void dot_rows(const th_gemm_op *op, int i, int n0,
                                                                  int n1, const int rows) {
  const int k = op->k, k16 = k & ~15;
  const __mmask16 km = lanes(k - k16);
  const int mr = rows;
  const float *a0 = op->a + (ptrdiff_t)i * op->ars, *a1 = a0 + (rows > 1 ? op->ars : 0),
              *a2 = a0 + (rows > 2 ? 2 * op->ars : 0), *a3 = a0 + (rows > 3 ? 3 * op->ars : 0);
  int j, p;
  for (j = n0; j < n1; j += 4) {
    const int nr = min_int(4, n1 - j);
    const __mmask8 cm = (__mmask8)((1u << nr) - 1);
    const float *q0 = op->b + (ptrdiff_t)j * op->bcs, *q1 = q0 + (nr > 1 ? op->bcs : 0),
                *q2 = q0 + (nr > 2 ? 2 * op->bcs : 0), *q3 = q0 + (nr > 3 ? 3 * op->bcs : 0);
    DOTACC(0); DOTACC(1); DOTACC(2); DOTACC(3);
    __m512 av, b0, b1, b2, b3;
#define LOADU(x) _mm512_loadu_ps(x)
#define LOADM(x) _mm512_maskz_loadu_ps(km, x)
    for (p = 0; p < k16; p += 16) {
      b0 = LOADU(q0 + p), b1 = LOADU(q1 + p), b2 = LOADU(q2 + p), b3 = LOADU(q3 + p);
      DOTFMA(0, LOADU);
      if (rows > 1) { DOTFMA(1, LOADU); }
      if (rows > 2) { DOTFMA(2, LOADU); }
      if (rows > 3) { DOTFMA(3, LOADU); }
    }
    if (p < k) {
      b0 = LOADM(q0 + p), b1 = LOADM(q1 + p), b2 = LOADM(q2 + p), b3 = LOADM(q3 + p);
      DOTFMA(0, LOADM);
      if (rows > 1) { DOTFMA(1, LOADM); }
      if (rows > 2) { DOTFMA(2, LOADM); }
      if (rows > 3) { DOTFMA(3, LOADM); }
    }
#undef LOADU
#undef LOADM
    DOTOUT(0) DOTOUT(1) DOTOUT(2) DOTOUT(3)
  }
}

/* C rows [m0, m1) x columns [n0, n1) when A's rows and B's columns are
   contiguous along K (A times B^T, as in a gradWeight): 4 x 4 blocks of
   dot products, 16 lanes of K at a time, no packing. Columns past the
   edge repeat the last one and are not stored; rows past it are not
   computed. */
AVX512 void th_gemm_avx512_dot(const th_gemm_op *op, int m0, int m1, int n0, int n1) {
  int i;
  for (i = m0; i < m1; i += 4) {
    switch (min_int(4, m1 - i)) {
    case 1: dot_rows(op, i, n0, n1, 1); break;
    case 2: dot_rows(op, i, n0, n1, 2); break;
    case 3: dot_rows(op, i, n0, n1, 3); break;
    default: dot_rows(op, i, n0, n1, 4); break;
    }
  }
}


/* B panels [q0, q1) of the kc x nc block at (pc, jc) into bbuf ('direct':
   only the narrow edge panel, full ones are read in place) */
AVX512 static void pack_b_block(const th_gemm_op *op, int jc, int nc, int pc, int kc, int q0,
                                  int q1, int direct, float *bbuf) {
  int q;
  for (q = q0; q < q1; q++) {
    const int jr = q * NR;
    if (!direct || nc - jr < NR)
      pack_b_panel(op, jc + jr, min_int(NR, nc - jr), pc, kc, bbuf + (ptrdiff_t)jr * kc);
  }
}

/* C rows [m0, m1) of the block updated with B's panels, A packed in abuf */
AVX512 static void block_rows(const th_gemm_op *op, const th_gemm_blocking *bl, int m0, int m1,
                                int jc, int nc, int pc, int kc, int direct, const float *bbuf,
                                float *abuf) {
  const float beta = pc == 0 ? op->beta : 1.0f;
  /* with B in place, a row-major A is too (packing it was up to a tenth of
     a small product's time) */
  const int a_inplace = direct && op->acs == 1 && bl->a_inplace;
  int ic, jr, ir;
  for (ic = m0; ic < m1; ic += bl->mc) {
    const int mc = min_int(bl->mc, m1 - ic);
    if (!a_inplace)
      for (ir = 0; ir < mc; ir += MR)
        pack_a_panel(op, ic + ir, min_int(MR, mc - ir), pc, kc, abuf + (ptrdiff_t)ir * kc);
    for (jr = 0; jr < nc; jr += NR) {
      const int inplace = direct && nc - jr >= NR;
      const float *bp = inplace ? op->b + pc * op->brs + jc + jr : bbuf + (ptrdiff_t)jr * kc;
      for (ir = 0; ir < mc; ir += MR)
        kernel(kc, a_inplace ? op->a + (ptrdiff_t)(ic + ir) * op->ars + pc : abuf + (ptrdiff_t)ir * kc,
               a_inplace ? op->ars : 0, bp, inplace ? op->brs : NR,
               op->c + (ptrdiff_t)(ic + ir) * op->ldc + jc + jr, op->ldc, min_int(MR, mc - ir),
               min_int(NR, nc - jr), op->alpha, beta);
    }
  }
}

/* C rows [m0, m1) x columns [n0, n1) when B is transposed in memory (B^T
   row-major, as nn.Linear's weight in Y = X W^T) and C has few rows:
   computed as C^T = B^T A^T. B^T's rows go to the micro-kernel in place as
   its A side, so the large operand is streamed once and never packed
   (packing it, a transpose, was 15-20% of a 64 x 1024 x 1024 product);
   A^T, small, is packed as B panels; tiles are stored transposed. */
AVX512 void th_gemm_avx512_flip(const th_gemm_op *op, const th_gemm_blocking *bl, int m0, int m1,
                                int n0, int n1, float *bbuf) {
  th_gemm_op t = *op; /* the flipped product: A' = B^T, B' = A^T */
  int pc, ir, jr;
  t.a = op->b, t.ars = op->bcs, t.acs = op->brs;
  t.b = op->a, t.brs = op->acs, t.bcs = op->ars;
  for (pc = 0; pc < op->k; pc += bl->kc) {
    const int kc = min_int(bl->kc, op->k - pc);
    const float beta = pc == 0 ? op->beta : 1.0f;
    for (jr = m0; jr < m1; jr += NR)
      pack_b_panel(&t, jr, min_int(NR, m1 - jr), pc, kc, bbuf + (ptrdiff_t)(jr - m0) * kc);
    for (ir = n0; ir < n1; ir += MR)
      for (jr = m0; jr < m1; jr += NR)
        kernel_flipped(kc, t.a + (ptrdiff_t)ir * t.ars + pc, t.ars, bbuf + (ptrdiff_t)(jr - m0) * kc,
                       op->c + (ptrdiff_t)jr * op->ldc + ir, op->ldc, min_int(MR, n1 - ir),
                       min_int(NR, m1 - jr), op->alpha, beta);
  }
}

AVX512 void th_gemm_avx512_run(const th_gemm_op *op, const th_gemm_blocking *bl, int m0, int m1,
                               int n0, int n1, float *abuf, float *bbuf) {
  /* with few rows of A a packed B panel serves few kernel calls: full
     panels of a row-major B are then read in place */
  const int direct = op->bcs == 1 && m1 - m0 <= bl->direct_m;
  int jc, pc;
  for (jc = n0; jc < n1; jc += bl->nc) {
    const int nc = min_int(bl->nc, n1 - jc);
    for (pc = 0; pc < op->k; pc += bl->kc) {
      const int kc = min_int(bl->kc, op->k - pc);
      pack_b_block(op, jc, nc, pc, kc, 0, (nc + NR - 1) / NR, direct, bbuf);
      block_rows(op, bl, m0, m1, jc, nc, pc, kc, direct, bbuf, abuf);
    }
  }
}

#else

void th_gemm_avx512_dot(const th_gemm_op *op, int m0, int m1, int n0, int n1) {
  (void)op, (void)m0, (void)m1, (void)n0, (void)n1;
}

void th_gemm_avx512_run(const th_gemm_op *op, const th_gemm_blocking *bl, int m0, int m1, int n0,
                        int n1, float *abuf, float *bbuf) {
  (void)op, (void)bl, (void)m0, (void)m1, (void)n0, (void)n1, (void)abuf, (void)bbuf;
}

void th_gemm_avx512_flip(const th_gemm_op *op, const th_gemm_blocking *bl, int m0, int m1, int n0,
                         int n1, float *bbuf) {
  (void)op, (void)bl, (void)m0, (void)m1, (void)n0, (void)n1, (void)bbuf;
}

#endif
