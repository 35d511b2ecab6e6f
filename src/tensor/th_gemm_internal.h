/*
** th_gemm_internal.h: what th_gemm.c (dispatch, threads, buffers) and
** th_gemm_avx512.c (packing, micro-kernel) share. A product is always
** row-major C (M x N) = alpha * A (M x K) B (K x N) + beta * C with A and B
** given by element strides, so transposes and column-major order are only
** different strides (column-major C is computed as C^T = B^T A^T).
*/
#ifndef TH_GEMM_INTERNAL_H
#define TH_GEMM_INTERNAL_H

#include <stddef.h>

/* register tile of C: TH_GEMM_MR rows x TH_GEMM_NR columns (3 zmm wide) */
#define TH_GEMM_MR 8
#define TH_GEMM_NR 48

typedef struct th_gemm_op {
  int m, n, k;
  float alpha, beta;
  const float *a; /* A(i,p) = a[i * ars + p * acs] */
  ptrdiff_t ars, acs;
  const float *b; /* B(p,j) = b[p * brs + j * bcs] */
  ptrdiff_t brs, bcs;
  float *c; /* C(i,j) = c[i * ldc + j] */
  ptrdiff_t ldc;
} th_gemm_op;

/* cache blocking: K in steps of kc, M of mc, N of nc (mc a multiple of
   TH_GEMM_MR, nc of TH_GEMM_NR) */
typedef struct th_gemm_blocking {
  int kc, mc, nc;
  int direct_m;     /* up to this many rows of C, a row-major B is read unpacked */
  int a_inplace;    /* and then a row-major A too */
  int dot_mn;       /* A times B^T with M x N up to this (K >= 64): dot products */
  double dot_bt;    /* ... but from 16 rows on not once B^T has more floats than this */
  int flip_m;       /* B transposed in memory, up to this many rows of C: C^T = B^T A^T */
  int chunks;       /* bands per thread when a product is split */
  double par_mflop; /* outside parallel regions, products of at least this many
                       MFLOP are split over threads */
} th_gemm_blocking;

/* C rows [m0, m1) x columns [n0, n1) of 'op' on the calling thread; 'abuf'
   holds mc * kc floats, 'bbuf' kc * nc, both 64-byte aligned */
void th_gemm_avx512_run(const th_gemm_op *op, const th_gemm_blocking *bl, int m0, int m1, int n0,
                        int n1, float *abuf, float *bbuf);

/* the same band when op->acs == 1 and op->brs == 1 (A times B^T), by dot
   products without packing: for small M x N with a long K */
void th_gemm_avx512_dot(const th_gemm_op *op, int m0, int m1, int n0, int n1);

/* the same band when B is transposed in memory (op->brs == 1) and C has
   few rows, as C^T = B^T A^T with B^T's rows read in place; 'bbuf' holds
   kc * (m1 - m0 rounded up to TH_GEMM_NR) floats, 64-byte aligned */
void th_gemm_avx512_flip(const th_gemm_op *op, const th_gemm_blocking *bl, int m0, int m1, int n0,
                         int n1, float *bbuf);

#endif
