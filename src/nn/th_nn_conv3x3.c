/*
** th_nn_conv3x3.c: direct float convolution for 3x3, stride-1, pad-1
** kernels (ResNet's and VGG's), written with AVX-512 intrinsics and taken
** only on a CPU that has them (th_nn_conv.c asks th_nn_conv3x3_chosen).
** No im2col and no layout change: an image plane is read as a flat run of
** H*W floats cut into vectors of 16 output pixels. The input a tap (ky,kx)
** needs for a vector is the same run shifted by (ky-1)*W + (kx-1), with
** the lanes whose neighbour falls outside the plane masked to zero (one
** 16-bit mask per vector and tap, computed once per call), so any width
** works and the padding costs no copy.
**   forward:    out[k] = bias[k] + sum_c sum_t w[k][c][t] * shift_t(in[c])
**   gradInput:  the same with the roles of k and c swapped and each kernel
**               rotated by 180 degrees (pad 1 stays pad 1)
**   gradWeight: dw[k][c][t] = sum_b sum_p gradOutput[b][k][p] * shift_t(in[b][c])[p]
** The forward micro-kernel keeps a block of OCB output planes x PB vectors
** in registers; each input vector loaded feeds OCB multiply-adds, each
** weight is a broadcast operand of the multiply-add itself.
*/
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "th_nn_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TH_CONV3X3_AVX512 1
#include <immintrin.h>
#define TH_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,fma,bmi,bmi2")))
#endif

/* output planes per register block, and the most vectors per block */
#define OCB 4
#define PBMAX 6
/* gradOutput planes per gradWeight register block: 2 x 9 taps of
   accumulators; 3 x 9 leaves the compiler too few registers (it spilled
   them in the inner loop: 50 GFLOP/s on one core against 120) */
#define GWKB 3
/* packed kernel bytes a forward task keeps hot (a fifth of L2) */
#define C3_KERNEL_BYTES 196608

static int c3_mode = TH_NN_CONV3X3_AUTO;

int th_nn_conv3x3_set_mode(int mode) {
  int old = c3_mode;
  c3_mode = mode;
  return old;
}

int th_nn_conv3x3_get_mode(void) { return c3_mode; }

int th_nn_conv3x3_available(void) {
#ifdef TH_CONV3X3_AVX512
  static int have = -1;
  if (have < 0) {
    __builtin_cpu_init();
    have = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  }
  return have;
#else
  return 0;
#endif
}

int th_nn_conv3x3_chosen(const th_nn_window *w, th_dtype dt, int phase, int64_t nIn,
                         int64_t nOut, int64_t oH, int64_t oW) {
  (void)phase, (void)nIn, (void)nOut;
  if (c3_mode == TH_NN_CONV3X3_OFF || dt != TH_FLOAT || !th_nn_conv3x3_available()) return 0;
  if (w->kW != 3 || w->kH != 3 || w->dW != 1 || w->dH != 1 || w->padW != 1 || w->padH != 1)
    return 0;
  /* the planes' flat offsets must fit the int32 lane arithmetic below */
  if (oH * oW > (1 << 28)) return 0;
  if (c3_mode == TH_NN_CONV3X3_ON) return 1;
  return 1;
}

/* scratch elements a phase needs beside nothing else: packed weights and
   bias for forward and gradInput, per-thread partial gradWeights */
static int64_t round_up(int64_t a, int64_t b) { return (a + b - 1) / b * b; }

#ifdef TH_CONV3X3_AVX512

typedef struct c3geom {
  int64_t B, C, K, H, W;   /* C planes in, K planes out, H x W both */
  int64_t HW, nv;          /* plane size, vectors per plane */
  int64_t off[9];          /* flat shift of each tap */
  __mmask16 last;          /* lanes of the last vector inside the plane */
  __mmask16 *mk;           /* nv x 9 load masks */
} c3geom;

static int geom_init(c3geom *g, int64_t B, int64_t C, int64_t K, int64_t H, int64_t W) {
  int64_t v, t;
  g->B = B, g->C = C, g->K = K, g->H = H, g->W = W;
  g->HW = H * W;
  g->nv = (g->HW + 15) / 16;
  g->last = (__mmask16)(g->HW % 16 ? (1u << (g->HW % 16)) - 1 : 0xFFFFu);
  for (t = 0; t < 9; t++) g->off[t] = (t / 3 - 1) * W + (t % 3 - 1);
  g->mk = malloc(sizeof(__mmask16) * (size_t)(g->nv * 9));
  if (g->mk == NULL) return th_error_set("out of memory (%lld bytes of masks)", (long long)(g->nv * 18));
  for (v = 0; v < g->nv; v++)
    for (t = 0; t < 9; t++) {
      unsigned m = 0, l;
      for (l = 0; l < 16; l++) {
        int64_t p = 16 * v + l, y = p / W, x = p % W, yy = y + t / 3 - 1, xx = x + t % 3 - 1;
        if (p < g->HW && yy >= 0 && yy < H && xx >= 0 && xx < W) m |= 1u << l;
      }
      g->mk[v * 9 + t] = (__mmask16)m;
    }
  return TH_OK;
}

/* out[0..OCB) x PB vectors = bias + sum over C planes and 9 taps; 'in'
   and 'out' point at the block's first vector of plane 0; planes of
   either are 'plane' apart. wp is C x 9 x OCB, valid the output planes
   to store, sm the store mask of the block's last vector */
#define C3_FWD_TILE(PB)                                                                      \
  TH_AVX512 static void fwd_tile_##PB(const float *in, int64_t plane, int64_t C,            \
                                      const float *wp, const int64_t *off,                   \
                                      const __mmask16 *mk, const float *bias, float *out,    \
                                      int valid, __mmask16 sm) {                             \
    __m512 acc[OCB][PB];                                                                     \
    int64_t c;                                                                               \
    int o, j, t;                                                                             \
    _Pragma("GCC unroll 8") for (o = 0; o < OCB; o++)                                        \
      _Pragma("GCC unroll 8") for (j = 0; j < PB; j++) acc[o][j] = _mm512_set1_ps(bias[o]);  \
    for (c = 0; c < C; c++) {                                                                \
      const float *ic = in + c * plane, *wc = wp + c * 9 * OCB;                              \
      _Pragma("GCC unroll 9") for (t = 0; t < 9; t++) {                                      \
        __m512 x[PB];                                                                        \
        _Pragma("GCC unroll 8") for (j = 0; j < PB; j++)                                     \
          x[j] = _mm512_maskz_loadu_ps(mk[9 * j + t], ic + 16 * j + off[t]);                 \
        _Pragma("GCC unroll 8") for (o = 0; o < OCB; o++) {                                  \
          const __m512 wv = _mm512_set1_ps(wc[t * OCB + o]);                                 \
          _Pragma("GCC unroll 8") for (j = 0; j < PB; j++)                                   \
            acc[o][j] = _mm512_fmadd_ps(wv, x[j], acc[o][j]);                                \
        }                                                                                    \
      }                                                                                      \
    }                                                                                        \
    /* constant indices only: a variable one would keep acc in memory */                    \
    _Pragma("GCC unroll 8") for (o = 0; o < OCB; o++) {                                      \
      if (o >= valid) break;                                                                 \
      _Pragma("GCC unroll 8") for (j = 0; j < PB - 1; j++)                                   \
        _mm512_storeu_ps(out + o * plane + 16 * j, acc[o][j]);                               \
      _mm512_mask_storeu_ps(out + o * plane + 16 * (PB - 1), sm, acc[o][PB - 1]);            \
    }                                                                                        \
  }

C3_FWD_TILE(1)
C3_FWD_TILE(2)
C3_FWD_TILE(3)
C3_FWD_TILE(4)
C3_FWD_TILE(5)
C3_FWD_TILE(6)

typedef void (*fwd_tile_fn)(const float *, int64_t, int64_t, const float *, const int64_t *,
                            const __mmask16 *, const float *, float *, int, __mmask16);
static const fwd_tile_fn fwd_tiles[PBMAX + 1] = {NULL,        fwd_tile_1, fwd_tile_2, fwd_tile_3,
                                                 fwd_tile_4, fwd_tile_5, fwd_tile_6};

/* vectors per block: PBMAX, or fewer equal blocks when that wastes less
   of the last one (8x8 planes: 4 vectors, one block) */
static int64_t block_vectors(int64_t nv) {
  int64_t nb = (nv + PBMAX - 1) / PBMAX;
  return (nv + nb - 1) / nb;
}

/* out (B x K x HW) = corr(in (B x C x HW), wp) + bias, wp packed as
   ceil(K/OCB) blocks of C x 9 x OCB, bias as ceil(K/OCB) * OCB. A task
   is an image, a group of output blocks whose packed kernels stay in L2
   while the image's vectors pass under them (512 planes in: 2 blocks),
   and a share of the vector blocks when images are too few for the
   threads */
static void correlate(const c3geom *g, const float *in, float *out, const float *wp,
                      const float *bias, int nt) {
  const int64_t pb = block_vectors(g->nv), nvb = (g->nv + pb - 1) / pb;
  const int64_t nkb = (g->K + OCB - 1) / OCB, kbBytes = g->C * 9 * OCB * (int64_t)sizeof(float);
  const int64_t gk = C3_KERNEL_BYTES / kbBytes < 1 ? 1 : C3_KERNEL_BYTES / kbBytes;
  const int64_t ngroups = (nkb + gk - 1) / gk;
  int64_t parts = 1, tasks, task;
  if (g->B * ngroups < 2 * nt) parts = (2 * nt + g->B * ngroups - 1) / (g->B * ngroups);
  if (parts > nvb) parts = nvb;
  tasks = g->B * ngroups * parts;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (task = 0; task < tasks; task++) {
    const int64_t b = task / (ngroups * parts), grp = task / parts % ngroups, part = task % parts;
    const int64_t kb0 = grp * gk, kb1 = kb0 + gk < nkb ? kb0 + gk : nkb;
    const int64_t vb0 = nvb * part / parts, vb1 = nvb * (part + 1) / parts;
    int64_t vb, kb;
    for (vb = vb0; vb < vb1; vb++) {
      const int64_t v0 = vb * pb, n = g->nv - v0 < pb ? g->nv - v0 : pb;
      const __mmask16 sm = v0 + n == g->nv ? g->last : (__mmask16)0xFFFF;
      const float *ib = in + b * g->C * g->HW + 16 * v0;
      float *ob = out + b * g->K * g->HW + 16 * v0;
      for (kb = kb0; kb < kb1; kb++) {
        const int64_t k0 = kb * OCB;
        const int valid = (int)(g->K - k0 < OCB ? g->K - k0 : OCB);
        fwd_tiles[n](ib, g->HW, g->C, wp + kb * g->C * 9 * OCB, g->off, g->mk + 9 * v0,
                     bias + k0, ob + k0 * g->HW, valid, sm);
      }
    }
  }
}

/* wp[kb][c][t][o] = w[kb*OCB+o][c][t] (forward) or, for gradInput,
   w[c][kb*OCB+o][8-t] with the roles of the planes swapped; zero past K */
static void pack_weights(const float *w, int64_t nOut, int64_t nIn, int flip, float *wp) {
  const int64_t K = flip ? nIn : nOut, C = flip ? nOut : nIn;
  const int64_t nkb = (K + OCB - 1) / OCB;
  int64_t kb, c, t, o;
  for (kb = 0; kb < nkb; kb++)
    for (c = 0; c < C; c++)
      for (t = 0; t < 9; t++)
        for (o = 0; o < OCB; o++) {
          const int64_t k = kb * OCB + o;
          float v = 0;
          if (k < K) v = flip ? w[(c * nIn + k) * 9 + 8 - t] : w[(k * nIn + c) * 9 + t];
          wp[((kb * C + c) * 9 + t) * OCB + o] = v;
        }
}

/* the sum over nb images of gradOutput planes k0..k0+KB times the 9
   shifted copies of input plane c, added (times scale) into dw (rows of
   the KB planes 'ds' apart). in and go point at plane c / plane k0 of the
   first image, images is and gs apart */
#define C3_GW_TILE(KB)                                                                        \
  TH_AVX512 static void gw_tile_##KB(const float *in, const float *go, int64_t is,           \
                                     int64_t gs, int64_t plane, int64_t nb, const c3geom *g,  \
                                     float *dw, int64_t ds, float scale) {                    \
    __m512 acc[KB][9];                                                                        \
    int64_t b, v;                                                                             \
    int o, t;                                                                                 \
    _Pragma("GCC unroll 4") for (o = 0; o < KB; o++)                                          \
      _Pragma("GCC unroll 9") for (t = 0; t < 9; t++) acc[o][t] = _mm512_setzero_ps();        \
    for (b = 0; b < nb; b++) {                                                                \
      const float *ib = in + b * is, *gb = go + b * gs;                                       \
      for (v = 0; v < g->nv; v++) {                                                           \
        const __mmask16 gm = v == g->nv - 1 ? g->last : (__mmask16)0xFFFF;                    \
        const __mmask16 *mk = g->mk + 9 * v;                                                  \
        __m512 gv[KB];                                                                        \
        _Pragma("GCC unroll 4") for (o = 0; o < KB; o++)                                      \
          gv[o] = _mm512_maskz_loadu_ps(gm, gb + o * plane + 16 * v);                         \
        _Pragma("GCC unroll 9") for (t = 0; t < 9; t++) {                                     \
          const __m512 x = _mm512_maskz_loadu_ps(mk[t], ib + 16 * v + g->off[t]);             \
          _Pragma("GCC unroll 4") for (o = 0; o < KB; o++)                                    \
            acc[o][t] = _mm512_fmadd_ps(gv[o], x, acc[o][t]);                                 \
        }                                                                                     \
      }                                                                                       \
    }                                                                                         \
    _Pragma("GCC unroll 4") for (o = 0; o < KB; o++)                                          \
      _Pragma("GCC unroll 9") for (t = 0; t < 9; t++)                                         \
        dw[o * ds + t] += scale * _mm512_reduce_add_ps(acc[o][t]);                            \
  }

C3_GW_TILE(1)
C3_GW_TILE(2)
C3_GW_TILE(3)

typedef void (*gw_tile_fn)(const float *, const float *, int64_t, int64_t, int64_t, int64_t,
                           const c3geom *, float *, int64_t, float);
static const gw_tile_fn gw_tiles[4] = {NULL, gw_tile_1, gw_tile_2, gw_tile_3};

/* images summed per register pass: enough that the horizontal sums at
   its end are a small part (8x8 planes: 8 images) */
static int64_t gw_chunk(const c3geom *g) {
  int64_t n = (64 + g->nv - 1) / g->nv;
  return n < 1 ? 1 : n;
}

/* dw (K x C x 9) += scale * sum over images [b0, b1) */
static void gw_range(const c3geom *g, const float *in, const float *go, int64_t b0, int64_t b1,
                     float *dw, float scale) {
  const int64_t is = g->C * g->HW, gs = g->K * g->HW, ch = gw_chunk(g);
  int64_t b, k0, c;
  for (b = b0; b < b1; b += ch) {
    const int64_t nb = b1 - b < ch ? b1 - b : ch;
    for (k0 = 0; k0 < g->K; k0 += GWKB) {
      const int64_t kb = g->K - k0 < GWKB ? g->K - k0 : GWKB;
      for (c = 0; c < g->C; c++)
        gw_tiles[kb](in + (b * g->C + c) * g->HW, go + (b * g->K + k0) * g->HW, is, gs, g->HW, nb,
                     g, dw + (k0 * g->C + c) * 9, g->C * 9, scale);
    }
  }
}

#endif /* TH_CONV3X3_AVX512 */

int64_t th_nn_conv3x3_scratch(int phase, int64_t B, int64_t nIn, int64_t nOut) {
  const int64_t K = phase == TH_NN_WINO_GRAD_INPUT ? nIn : nOut;
  const int64_t C = phase == TH_NN_WINO_GRAD_INPUT ? nOut : nIn;
  if (phase == TH_NN_WINO_GRAD_WEIGHT)
    return (th_nn_scratch_rows(B, th_nn_threads_for(B, 1 << 30)) - 1) * nOut * nIn * 9;
  return round_up(K, OCB) * (C * 9 + 1) + 16;
}

/* 16 floats past a buffer's start, aligned to 64 bytes */
static float *aligned(float *p) { return (float *)(((uintptr_t)p + 63) & ~(uintptr_t)63); }

int th_nn_conv3x3_forward(const th_tensor *input, th_tensor *output, const th_tensor *weight,
                          const th_tensor *bias, th_tensor *finput, int64_t B, int64_t nIn,
                          int64_t nOut) {
#ifdef TH_CONV3X3_AVX512
  const int64_t H = input->size[input->ndim - 2], W = input->size[input->ndim - 1];
  c3geom g;
  float *wp, *bp;
  int nt;
  if (th_tensor_resize1d(finput, th_nn_conv3x3_scratch(TH_NN_WINO_FORWARD, B, nIn, nOut)) != TH_OK)
    return TH_ERR;
  if (geom_init(&g, B, nIn, nOut, H, W) != TH_OK) return TH_ERR;
  wp = aligned(th_tensor_data(finput));
  bp = wp + round_up(nOut, OCB) * nIn * 9;
  pack_weights(th_tensor_data(weight), nOut, nIn, 0, wp);
  memset(bp, 0, sizeof(float) * (size_t)round_up(nOut, OCB));
  if (bias) memcpy(bp, th_tensor_data(bias), sizeof(float) * (size_t)nOut);
  nt = th_nn_threads_for(B * g.nv, 2 * nOut * nIn * 9 * 16);
  correlate(&g, th_tensor_data(input), th_tensor_data(output), wp, bp, nt);
  free(g.mk);
  return TH_OK;
#else
  return th_error_set("the direct 3x3 convolution needs an x86-64 build");
#endif
}

int th_nn_conv3x3_backward_input(const th_tensor *gradOutput, th_tensor *gradInput,
                                 const th_tensor *weight, th_tensor *fgradInput, int64_t B,
                                 int64_t nIn, int64_t nOut) {
#ifdef TH_CONV3X3_AVX512
  const int64_t H = gradOutput->size[gradOutput->ndim - 2];
  const int64_t W = gradOutput->size[gradOutput->ndim - 1];
  c3geom g;
  float *wp, *bp;
  int nt;
  if (th_tensor_resize1d(fgradInput, th_nn_conv3x3_scratch(TH_NN_WINO_GRAD_INPUT, B, nIn, nOut)) !=
      TH_OK)
    return TH_ERR;
  if (geom_init(&g, B, nOut, nIn, H, W) != TH_OK) return TH_ERR;
  wp = aligned(th_tensor_data(fgradInput));
  bp = wp + round_up(nIn, OCB) * nOut * 9;
  pack_weights(th_tensor_data(weight), nOut, nIn, 1, wp);
  memset(bp, 0, sizeof(float) * (size_t)round_up(nIn, OCB));
  nt = th_nn_threads_for(B * g.nv, 2 * nOut * nIn * 9 * 16);
  correlate(&g, th_tensor_data(gradOutput), th_tensor_data(gradInput), wp, bp, nt);
  free(g.mk);
  return TH_OK;
#else
  return th_error_set("the direct 3x3 convolution needs an x86-64 build");
#endif
}

int th_nn_conv3x3_backward_params(const th_tensor *input, const th_tensor *gradOutput,
                                  th_tensor *gradWeight, th_tensor *fgradInput, int64_t B,
                                  int64_t nIn, int64_t nOut, double scale) {
#ifdef TH_CONV3X3_AVX512
  const int64_t H = input->size[input->ndim - 2], W = input->size[input->ndim - 1];
  const int64_t KC9 = nOut * nIn * 9;
  c3geom g;
  float *part, *dw = th_tensor_data(gradWeight);
  const float *in = th_tensor_data(input), *go = th_tensor_data(gradOutput);
  int nt = th_nn_threads_for(B, 2 * KC9 * H * W), rows = th_nn_scratch_rows(B, nt);
  int64_t i;
  if (th_tensor_resize1d(fgradInput, (rows - 1) * KC9 + 1) != TH_OK) return TH_ERR;
  if (geom_init(&g, B, nIn, nOut, H, W) != TH_OK) return TH_ERR;
  part = th_tensor_data(fgradInput);
  if (nt > 1) memset(part, 0, sizeof(float) * (size_t)((nt - 1) * KC9));
  /* thread 0 adds into gradWeight itself, the others into their partial
     sums, added after: each image's products are summed once */
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
#ifdef _OPENMP
    const int64_t me = omp_get_thread_num(), n = omp_get_num_threads();
#else
    const int64_t me = 0, n = 1;
#endif
    const int64_t b0 = B * me / n, b1 = B * (me + 1) / n;
    gw_range(&g, in, go, b0, b1, me == 0 ? dw : part + (me - 1) * KC9, (float)scale);
  }
  for (i = 1; i < nt; i++) {
    const float *p = part + (i - 1) * KC9;
    int64_t j;
    for (j = 0; j < KC9; j++) dw[j] += p[j];
  }
  free(g.mk);
  return TH_OK;
#else
  return th_error_set("the direct 3x3 convolution needs an x86-64 build");
#endif
}
