/*
** th_gemm.c: th_sgemm's front: argument mapping, backend choice, threads
** and packing buffers; the AVX-512 packing and micro-kernel are in
** th_gemm_avx512.c (see th_gemm.h for the contract).
** Every layout is mapped to one row-major product with strided operands;
** a column-major C (c[j * ldc + i]) is the row-major N x M matrix C^T =
** B^T A^T, so A and B swap roles.
** Buffers are per thread (thread-local pointers grown on demand and kept:
** a gemm in a hot loop never mallocs); a thread that cannot get one hands
** its share to cblas_sgemm, so allocation failure costs speed, not a crash.
** Threads: inside a th_pool chunk the caller's thread does all (the
** convolutions split their work already); outside, a product of at least
** par_mflop MFLOP is cut into one band of C per thread, of columns (each
** band packs its own B panels; A, packed once per nc columns anyway, is
** packed by every band) or, for a narrow C, of rows. The bands go to
** th_pool_run rather than an OpenMP region: the caller never waits for a
** helper thread that has not woken up yet (it runs the band itself), and a
** helper watches for the next product for a moment before it sleeps.
** Blocking and thresholds can be overridden for tuning runs with
** TH_GEMM_KC, TH_GEMM_MC, TH_GEMM_NC, TH_GEMM_DM, TH_GEMM_AIN, TH_GEMM_DOT,
** TH_GEMM_FLIP, TH_GEMM_CHUNKS and TH_GEMM_PAR (see init).
*/
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "th_gemm.h"
#include "th_gemm_internal.h"
#include "th_pool.h"

static int backend = TH_GEMM_OURS;
static int cpu_ok;
static th_gemm_blocking tuned;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int env_int(const char *name, int dflt, int round) {
  const char *e = getenv(name);
  const int v = e != NULL ? atoi(e) : 0;
  return v > 0 ? (v + round - 1) / round * round : dflt;
}

/* once per process, whichever thread calls first: the CPU check, TH_GEMM,
   and the blocking: kc 512 with mc 64 (a 128 KB A block in L2, B
   micro-panels streaming from L2), B read in place up to 512 rows
   (bench/gemm.lua's shapes; measurements behind these and the constants
   below: docs/dev/benchmark-notes.md, section th_gemm.c) */
static void init(void) {
  const char *e = getenv("TH_GEMM");
#if defined(__GNUC__) && defined(__x86_64__)
  __builtin_cpu_init();
  cpu_ok = __builtin_cpu_supports("avx512f") ? 1 : 0;
#endif
  if (e != NULL && strcmp(e, "openblas") == 0) backend = TH_GEMM_OPENBLAS;
  tuned.kc = env_int("TH_GEMM_KC", 512, 1);
  tuned.mc = env_int("TH_GEMM_MC", 64, TH_GEMM_MR);
  tuned.nc = env_int("TH_GEMM_NC", 960, TH_GEMM_NR);
  tuned.direct_m = env_int("TH_GEMM_DM", 512, 1);
  tuned.a_inplace = env_int("TH_GEMM_AIN", 1, 1) == 1; /* 2: always pack A */
  tuned.dot_mn = env_int("TH_GEMM_DOT", 16384, 1);
  tuned.par_mflop = env_int("TH_GEMM_PAR", 16, 1);
  /* flipped product (B^T in place) up to 144 rows: faster below, even from 192 */
  tuned.flip_m = env_int("TH_GEMM_FLIP", 144, 1);
  /* bands per thread when a product is split: one (threads sharing packed
     B panels behind barriers wait for a descheduled thread; more bands
     repack A each) */
  tuned.chunks = env_int("TH_GEMM_CHUNKS", 1, 1);
}

int th_gemm_supported(void) {
  pthread_once(&once, init);
  return cpu_ok;
}

int th_gemm_backend(int b) {
  int old;
  pthread_once(&once, init);
  old = backend;
  if (b == TH_GEMM_OURS || b == TH_GEMM_OPENBLAS) backend = b;
  return old;
}

/* A times B^T, small C, long K (gradWeight): dot products beat packing
   both transposed operands up to 128x128. They read all of B^T again for
   every 4 rows of C, so from 16 rows on, once B^T outgrows 1 MB (L2), the
   flipped product, which streams B^T once, wins (benchmark-notes.md,
   th_gemm.c) */
static int dot_case(const th_gemm_op *op, int m, int n) {
  if (m >= 16 && m <= tuned.flip_m && (double)n * op->k > 262144.0) return 0;
  return op->acs == 1 && op->brs == 1 && op->bcs != 1 && op->k >= 64 && (double)m * n <= tuned.dot_mn;
}

/* this thread's packing buffer, grown to hold 'floats'; NULL when that
   cannot be allocated */
static float *thread_buffer(size_t floats) {
  static __thread float *buf;
  static __thread size_t cap;
  if (cap < floats) {
    void *p = NULL;
    free(buf);
    buf = NULL, cap = 0;
    if (posix_memalign(&p, 64, floats * sizeof(float)) != 0) return NULL;
    buf = p, cap = floats;
  }
  return buf;
}

static int min_int(int x, int y) { return x < y ? x : y; }

/* B transposed in memory (nn.Linear's Y = X W^T) with few rows of C: the
   flipped product reads B in place (see th_gemm_avx512_flip) */
static int flip_case(const th_gemm_op *op, const th_gemm_blocking *bl, int m) {
  return op->brs == 1 && op->bcs != 1 && m <= bl->flip_m && m <= bl->nc;
}

/* the band [m0, m1) x [n0, n1) of op on this thread: ours, or cblas when
   this thread has no buffer */
static void band(const th_gemm_op *op, const th_gemm_blocking *bl, int m0, int m1, int n0, int n1) {
  const int kc = min_int(bl->kc, op->k);
  const size_t na = (size_t)bl->mc * (size_t)kc, nb = (size_t)bl->nc * (size_t)kc;
  float *buf;
  if (m0 >= m1 || n0 >= n1) return;
  if (dot_case(op, m1 - m0, n1 - n0)) {
    th_gemm_avx512_dot(op, m0, m1, n0, n1);
    return;
  }
  buf = thread_buffer(na + nb);
  if (buf != NULL && flip_case(op, bl, m1 - m0)) {
    th_gemm_avx512_flip(op, bl, m0, m1, n0, n1, buf);
    return;
  }
  if (buf != NULL) {
    th_gemm_avx512_run(op, bl, m0, m1, n0, n1, buf, buf + na);
    return;
  }
  /* row-major C band = A rows [m0, m1) times B columns [n0, n1) */
  cblas_sgemm(CblasRowMajor, op->acs == 1 ? CblasNoTrans : CblasTrans,
              op->bcs == 1 ? CblasNoTrans : CblasTrans, m1 - m0, n1 - n0, op->k, op->alpha,
              op->a + (ptrdiff_t)m0 * op->ars, (int)(op->acs == 1 ? op->ars : op->acs),
              op->b + (ptrdiff_t)n0 * op->bcs, (int)(op->bcs == 1 ? op->brs : op->bcs), op->beta,
              op->c + (ptrdiff_t)m0 * op->ldc + n0, (int)op->ldc);
}

/* one product cut into bands (th_pool_run's chunks) */
typedef struct bands {
  const th_gemm_op *op;
  int split_m, unit, tiles, nb;
} bands;

static void run_band(void *p, int i) {
  const bands *w = p;
  const th_gemm_op *op = w->op;
  const int lo = (int)((int64_t)w->tiles * i / w->nb) * w->unit;
  const int hi = (int)((int64_t)w->tiles * (i + 1) / w->nb) * w->unit;
  if (w->split_m) band(op, &tuned, lo, min_int(hi, op->m), 0, op->n);
  else band(op, &tuned, 0, op->m, lo, min_int(hi, op->n));
}

static void run(const th_gemm_op *op) {
  /* th_pool_threads is 1 inside a th_pool chunk (the convolutions split
     their images already) */
  int nt = 2e-6 * op->m * op->n * op->k >= tuned.par_mflop ? th_pool_threads() : 1;
  if (nt > 1) {
    /* bands of columns: each packs its own B panels and all of A, which
       a single thread packs once per nc columns anyway, so halves of N cost
       little more packing; narrow products (and dot products with M the
       larger side) are cut into bands of rows */
    bands w;
    w.op = op;
    w.split_m = op->n < 2 * nt * TH_GEMM_NR || (dot_case(op, op->m, op->n) && op->m >= op->n);
    w.unit = w.split_m ? TH_GEMM_MR : TH_GEMM_NR;
    w.tiles = ((w.split_m ? op->m : op->n) + w.unit - 1) / w.unit;
    w.nb = nt * tuned.chunks;
    if (w.nb > w.tiles) w.nb = w.tiles;
    if (nt > w.nb) nt = w.nb;
    if (nt > 1) {
      th_pool_run(nt, w.nb, run_band, &w);
      return;
    }
  }
  band(op, &tuned, 0, op->m, 0, op->n);
}

/* C = beta * C for a row-major m x n C, zeroing (not reading) when beta is 0 */
static void scale_c(float *c, int m, int n, ptrdiff_t ldc, float beta) {
  int i, j;
  for (i = 0; i < m; i++) {
    float *r = c + (ptrdiff_t)i * ldc;
    if (beta == 0.0f) memset(r, 0, sizeof(float) * (size_t)n);
    else if (beta != 1.0f)
      for (j = 0; j < n; j++) r[j] *= beta;
  }
}

/* No shape is handed to OpenBLAS for speed: against its SkylakeX kernels
   ours is behind only a few percent on Winograd's smallest products (its
   small-matrix kernels pack nothing), and its Haswell kernels run at half
   our speed (docs/dev/benchmark-notes.md, "sgemm: notes" and th_gemm.c). */
static int bad_args(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb,
                    int m, int n, int k, int lda, int ldb, int ldc) {
  const int row = order == CblasRowMajor;
  const int ar = (ta == CblasNoTrans) == row ? k : m, br = (tb == CblasNoTrans) == row ? n : k;
  if (order != CblasRowMajor && order != CblasColMajor) return 1;
  if ((ta != CblasNoTrans && ta != CblasTrans) || (tb != CblasNoTrans && tb != CblasTrans)) return 1;
  if (m < 0 || n < 0 || k < 0) return 1;
  /* the minimal leading dimensions, as cblas checks them */
  return lda < (ar > 1 ? ar : 1) || ldb < (br > 1 ? br : 1) || ldc < ((row ? n : m) > 1 ? (row ? n : m) : 1);
}

void th_sgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE transa, enum CBLAS_TRANSPOSE transb,
              int m, int n, int k, float alpha, const float *a, int lda, const float *b, int ldb,
              float beta, float *c, int ldc) {
  th_gemm_op op;
  if (th_gemm_backend(-1) != TH_GEMM_OURS || !th_gemm_supported() ||
      bad_args(order, transa, transb, m, n, k, lda, ldb, ldc)) {
    cblas_sgemm(order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  if (m == 0 || n == 0) return;
  if (order == CblasRowMajor) {
    op.m = m, op.n = n, op.a = a, op.b = b;
    op.ars = transa == CblasNoTrans ? lda : 1, op.acs = transa == CblasNoTrans ? 1 : lda;
    op.brs = transb == CblasNoTrans ? ldb : 1, op.bcs = transb == CblasNoTrans ? 1 : ldb;
  } else {
    /* C^T (n x m) = B^T A^T: A' = B^T, B' = A^T */
    op.m = n, op.n = m, op.a = b, op.b = a;
    op.ars = transb == CblasNoTrans ? ldb : 1, op.acs = transb == CblasNoTrans ? 1 : ldb;
    op.brs = transa == CblasNoTrans ? lda : 1, op.bcs = transa == CblasNoTrans ? 1 : lda;
  }
  op.k = k, op.alpha = alpha, op.beta = beta, op.c = c, op.ldc = ldc;
  if (k == 0 || alpha == 0.0f) {
    scale_c(c, op.m, op.n, ldc, beta);
    return;
  }
  run(&op);
}
