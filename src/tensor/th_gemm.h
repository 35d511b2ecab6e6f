/*
** th_gemm.h: our own float GEMM. th_sgemm has cblas_sgemm's signature and
** semantics (row- or column-major, either operand transposed, leading
** dimensions at least the minimal ones; beta = 0 never reads C; K = 0 or
** alpha = 0 scales C by beta; M or N = 0 does nothing). On a CPU with
** AVX-512 it runs a packed, cache-blocked AVX-512 kernel
** (th_gemm_avx512.c); elsewhere, with TH_GEMM=openblas in the environment,
** after th_gemm_backend(TH_GEMM_OPENBLAS), when packing buffers cannot be
** allocated, or for arguments cblas would reject, it calls cblas_sgemm.
** Inside a th_pool chunk it runs on the calling thread alone; outside, a
** large product is split over th_pool_threads() threads: the caller and
** th_pool's helpers.
*/
#ifndef TH_GEMM_H
#define TH_GEMM_H

#include <cblas.h>

enum { TH_GEMM_OURS = 0, TH_GEMM_OPENBLAS = 1 };

void th_sgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE transa, enum CBLAS_TRANSPOSE transb,
              int m, int n, int k, float alpha, const float *a, int lda, const float *b, int ldb,
              float beta, float *c, int ldc);

/* selects the backend (TH_GEMM_OURS or TH_GEMM_OPENBLAS), returns the
   previous choice; a negative 'backend' only queries */
int th_gemm_backend(int backend);

/* 1 when th_sgemm can run our kernel on this CPU (AVX-512F present) */
int th_gemm_supported(void);

#endif
