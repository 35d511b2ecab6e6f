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
** TH_GEMM_DOTBT, TH_GEMM_FLIP, TH_GEMM_CHUNKS and TH_GEMM_PAR (see init);
** the cache-bound ones are derived from the CPU's caches (th_gemm_derive).
*/
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "th_gemm.h"
#include "th_cpuinfo.h"
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

/* The blocking from the CPU's caches (docs/dev/cpuinfo.md has the model
   with its figures, docs/dev/benchmark-notes.md, section th_gemm.c, the
   measurements behind it). Loop order (th_gemm_avx512.c): a B micro-panel
   (kc x NR) meets every A micro-panel (MR x kc) of an mc x kc block; the
   block meets every B micro-panel of a kc x nc panel.
   - kc: one kernel call streams an A micro-panel and a B micro-panel and
     loads and stores its MR x NR tile of C; with NR = 48 the B micro-panel
     (192 bytes a step) outgrows L1 at any useful kc, so L1 holds what a
     call reuses line by line: the A micro-panel, the B rows in flight and
     the C tile. kc is the deepest step whose A micro-panel fills a third
     of L1 (the rest: B's lines and C), a multiple of 32, 128..512 (at
     512 the C tile's load and store are under 3% of a call's bytes).
     BLIS's rule, the B micro-panel in L1, gives about 200 on 48 KB: 3%
     slower on Zen 5, 20% on the flipped product.
   - mc: the A block in an eighth of L2, a multiple of MR, at least 2 MR.
     Not BLIS's half: here the B micro-panels, too wide for L1, stream
     through L2 beside the A block, and the C tiles pass through it too
     (a sixteenth, an eighth, a quarter and, at kc 192, a half measured
     on Zen 5 in benchmark-notes.md).
   - nc: the B panel in half the L3 a logical CPU can count on
     (l3 / l3_shared), a multiple of NR, 4 NR..960 (960 bounds the packing
     buffer, which counts in a training step's memory; nc made no
     difference from 480 to 1920); without an L3, half of L2.
   - dot_bt: the dot-product path reads all of B^T per 4 rows of C (and
     the 4 rows of A per 4 columns), so it stops where B^T outgrows 40% of
     L2: the whole L2 let 1x1 convolutions' gradWeights (64 x 64 x 3136)
     run at 60% of the packed path's speed (docs/dev/conv1x1.md).
   The others (direct_m, a_inplace, flip_m, dot_mn, chunks, par_mflop) are
   amortization and threading thresholds, not cache sizes: measured
   constants. */
static int clamp_down(int64_t v, int unit, int lo, int hi) {
  v = v / unit * unit;
  return v < lo ? lo : v > hi ? hi : (int)v;
}

void th_gemm_derive(const th_cpuinfo *ci, th_gemm_info *o) {
  const int64_t l3 = th_cpuinfo_l3_share(ci), l2 = ci->l2 > 0 ? ci->l2 : 256 << 10;
  const int64_t l1 = ci->l1d > 0 ? ci->l1d : 32 << 10;
  o->mr = TH_GEMM_MR, o->nr = TH_GEMM_NR;
  o->kc = clamp_down(l1 / 3 / (4 * TH_GEMM_MR), 32, 128, 512);
  o->mc = clamp_down(l2 / 8 / (4 * o->kc), TH_GEMM_MR, 2 * TH_GEMM_MR, 4096);
  o->nc = clamp_down((l3 > 0 ? l3 : l2) / 2 / (4 * o->kc), TH_GEMM_NR, 4 * TH_GEMM_NR, 960);
  o->dot_bt = (int)(l2 / 10);
  o->direct_m = 512, o->dot_mn = 16384, o->flip_m = 144, o->par_mflop = 16, o->chunks = 1;
}

/* once per process, whichever thread calls first: the CPU check, TH_GEMM,
   the blocking derived from the CPU (th_cpuinfo.h, TH_CPU_CACHES) and the
   TH_GEMM_* overrides of it */
static void init(void) {
  const char *e = getenv("TH_GEMM");
  th_gemm_info d;
#if defined(__GNUC__) && defined(__x86_64__)
  /* th_gemm_avx512.c is compiled for F, BW, DQ and VL: F alone (Xeon Phi)
     would fault on the first BW/DQ/VL instruction */
  __builtin_cpu_init();
  cpu_ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#endif
  if (e != NULL && strcmp(e, "openblas") == 0) backend = TH_GEMM_OPENBLAS;
  th_gemm_derive(th_cpuinfo_get(), &d);
  tuned.kc = env_int("TH_GEMM_KC", d.kc, 1);
  tuned.mc = env_int("TH_GEMM_MC", d.mc, TH_GEMM_MR);
  tuned.nc = env_int("TH_GEMM_NC", d.nc, TH_GEMM_NR);
  /* B read in place up to 512 rows (a packed panel serves too few calls) */
  tuned.direct_m = env_int("TH_GEMM_DM", d.direct_m, 1);
  tuned.a_inplace = env_int("TH_GEMM_AIN", 1, 1) == 1; /* 2: always pack A */
  tuned.dot_mn = env_int("TH_GEMM_DOT", d.dot_mn, 1);
  tuned.dot_bt = env_int("TH_GEMM_DOTBT", d.dot_bt, 1);
  tuned.par_mflop = env_int("TH_GEMM_PAR", d.par_mflop, 1);
  /* flipped product (B^T in place) up to 144 rows: faster below, even from 192 */
  tuned.flip_m = env_int("TH_GEMM_FLIP", d.flip_m, 1);
  /* bands per thread when a product is split: one (threads sharing packed
     B panels behind barriers wait for a descheduled thread; more bands
     repack A each) */
  tuned.chunks = env_int("TH_GEMM_CHUNKS", d.chunks, 1);
}

void th_gemm_info_get(th_gemm_info *o) {
  pthread_once(&once, init);
  o->mr = TH_GEMM_MR, o->nr = TH_GEMM_NR;
  o->kc = tuned.kc, o->mc = tuned.mc, o->nc = tuned.nc;
  o->direct_m = tuned.direct_m, o->dot_mn = tuned.dot_mn, o->dot_bt = (int)tuned.dot_bt;
  o->flip_m = tuned.flip_m, o->par_mflop = (int)tuned.par_mflop, o->chunks = tuned.chunks;
}

void th_gemm_set_blocking(int kc, int mc, int nc) {
  pthread_once(&once, init);
  if (kc > 0) tuned.kc = kc;
  if (mc > 0) tuned.mc = (mc + TH_GEMM_MR - 1) / TH_GEMM_MR * TH_GEMM_MR;
  if (nc > 0) tuned.nc = (nc + TH_GEMM_NR - 1) / TH_GEMM_NR * TH_GEMM_NR;
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
   every 4 rows of C, so from 16 rows on, once B^T outgrows dot_bt, the
   flipped product (up to flip_m rows) or the packed one, which stream B^T
   once, win (benchmark-notes.md, th_gemm.c; docs/dev/conv1x1.md) */
static int dot_case(const th_gemm_op *op, int m, int n) {
  if (m >= 16 && (double)n * op->k > tuned.dot_bt) return 0;
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
