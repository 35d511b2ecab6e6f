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

/* 1 when th_sgemm can run our kernel on this CPU (AVX-512 F, BW, DQ and VL) */
int th_gemm_supported(void);

/* the cache blocking th_sgemm derives from a CPU's caches (see
   th_gemm_derive in th_gemm.c for the model): kc, mc, nc and the
   cache-bound thresholds; th_gemm_blocking_get gives the one in use, with
   the TH_GEMM_* overrides applied */
typedef struct th_gemm_info {
  int kc, mc, nc, mr, nr;
  int direct_m, dot_mn, dot_bt, flip_m, par_mflop, chunks;
} th_gemm_info;

struct th_cpuinfo;
void th_gemm_derive(const struct th_cpuinfo *ci, th_gemm_info *out);
void th_gemm_info_get(th_gemm_info *out);

/* replaces kc, mc, nc (tuning runs: A/B of two blockings in one process);
   values <= 0 keep the current one; not thread-safe against running products */
void th_gemm_set_blocking(int kc, int mc, int nc);

#endif
