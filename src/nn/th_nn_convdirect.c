/*
** th_nn_convdirect.c: direct float convolution for stride-1 kernels of odd
** size up to 7x7 with "same" padding ((k-1)/2: ResNet's and VGG's 3x3,
** GoogLeNet's and AlexNet's 5x5), written with AVX-512 intrinsics and taken
** only on a CPU that has them (th_nn_conv.c asks th_nn_convdirect_chosen).
** Stride-2 windows up to 7x7 with a ceil(n / 2) output run the same
** kernels over the input's four phase planes (th_nn_convdirect_strided_chosen;
** the "stride 2" section below).
** No im2col and no layout change: an image plane is read as a flat run of
** H*W floats cut into vectors of 16 output pixels. The input a tap (ky,kx)
** needs for a vector is the same run shifted by (ky-pad)*W + (kx-pad), with
** the lanes whose neighbour falls outside the plane masked to zero (one
** 16-bit mask per vector and tap, computed once per call), so any width
** works and the padding costs no copy.
**   forward:    out[k] = bias[k] + sum_c sum_t w[k][c][t] * shift_t(in[c])
**   gradInput:  the same with the roles of k and c swapped and each kernel
**               rotated by 180 degrees ("same" padding stays the same)
**   gradWeight: dw[k][c][t] = sum_b sum_p gradOutput[b][k][p] * shift_t(in[b][c])[p]
** The forward micro-kernel keeps a block of OCB output planes x PB vectors
** in registers; each input vector loaded feeds OCB multiply-adds, each
** weight is a broadcast operand of the multiply-add itself.
*/
#include <stdlib.h>
#include <string.h>
#include "th_nn_internal.h"
#include "../tensor/th_pool.h"
#include "../tensor/th_cpuinfo.h"
#include "../tensor/th_scratch.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TH_CONVDIRECT_AVX512 1
#include <immintrin.h>
#define TH_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,fma,bmi,bmi2")))
#endif

/* output planes per register block, and the most vectors per block */
#define OCB 4
#define PBMAX 6
/* gradOutput planes per gradWeight register block, times 9 taps of
   accumulators (a larger kernel's taps go 9 at a time). The accumulator
   array must only ever be indexed by constants: one variable index made
   GCC keep it in memory, at a third of the speed (benchmark-notes.md,
   th_nn_convdirect.c) */
#define GWT 9
/* the largest kernel side */
#define KMAX 7
/* forward blocking from the CPU's caches (th_cpuinfo.h): input bytes of
   a block of vectors kept in two thirds of L1, packed kernel bytes of a
   group in an eighth of L2 (32 KB and 128 KB on Zen 5's 48 KB and 1 MB,
   where they were measured) */
#define C3_INPUT_BYTES (th_cpuinfo_get()->l1d * 2 / 3)
#define C3_KERNEL_BYTES (th_cpuinfo_get()->l2 / 8)
/* gradWeight: transposed gradOutput bytes of a band of output rows */
#define GW_BAND_BYTES (th_cpuinfo_get()->l2 / 4)

static int c3_mode = TH_NN_CONVDIRECT_AUTO;

int th_nn_convdirect_set_mode(int mode) {
  int old = c3_mode;
  c3_mode = mode;
  return old;
}

int th_nn_convdirect_get_mode(void) { return c3_mode; }

int th_nn_convdirect_available(void) {
#ifdef TH_CONVDIRECT_AVX512
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

/* The shape rule, from single-thread GFLOP/s (direct against the path
   taken otherwise; figures: docs/dev/benchmark-notes.md, section
   th_nn_convdirect.c): direct for few channels on any plane; forward and
   gradInput leave it for Winograd from 4096 channel pairs where Winograd is
   taken, for im2col from 65536; gradWeight keeps it up to 16384 pairs on
   planes up to 64x64. */
static int shape_rule(const th_nn_window *w, int phase, int64_t planes, int64_t oH, int64_t oW) {
  if (phase == TH_NN_WINO_GRAD_WEIGHT) return planes <= 16384 && oH * oW <= 4096;
  if (planes >= 4096 && th_nn_winograd_chosen(w, phase, 1, planes, oH, oW)) return 0;
  return planes < 65536;
}

/* The stride-2 rule, from single-thread CPU time against im2col + gemm
   on the zoo's shapes (docs/dev/strided.md): forward on outputs from
   512 pixels (the 7x7 stem, 28x28 and larger) or with few channel pairs
   (the cifar nets); gradInput with few pairs, or on 28x28+ outputs with
   as many input planes as output planes (ResNet-50's); gradWeight from 16
   input planes (not the stems: 3 planes, 49 taps) on outputs of 8x8 and
   up. On smaller planes (14x14, 7x7 outputs with 32768+ pairs) a block
   of vectors is mostly its last partial vector and the gemm wins. */
static int strided_shape_rule(int phase, int64_t nIn, int64_t planes, int64_t oH, int64_t oW) {
  if (phase == TH_NN_WINO_FORWARD) return oH * oW >= 512 || planes <= 4096;
  if (phase == TH_NN_WINO_GRAD_INPUT)
    return nIn >= 16 && (planes <= 4096 || (oH * oW >= 784 && nIn * nIn >= planes));
  return nIn >= 16 && oH * oW >= 64;
}

int th_nn_convdirect_strided_chosen(const th_nn_window *w, th_dtype dt, int phase, int64_t nIn,
                                    int64_t nOut, int64_t iH, int64_t iW) {
  int64_t oH, oW;
  if (c3_mode == TH_NN_CONVDIRECT_OFF || dt != TH_FLOAT || !th_nn_convdirect_available()) return 0;
  if (w->dW != 2 || w->dH != 2 || w->kW > KMAX || w->kH > KMAX || w->kW * w->kH == 1) return 0;
  oH = (iH + 2 * w->padH - w->kH) / 2 + 1, oW = (iW + 2 * w->padW - w->kW) / 2 + 1;
  /* every input pixel in one of the four oH x oW phase planes */
  if (oH != (iH + 1) / 2 || oW != (iW + 1) / 2 || oH * oW > (1 << 26)) return 0;
  if (c3_mode == TH_NN_CONVDIRECT_ON) return 1;
  return strided_shape_rule(phase, nIn, nIn * nOut, oH, oW);
}

int th_nn_convdirect_chosen(const th_nn_window *w, th_dtype dt, int phase, int64_t nIn,
                         int64_t nOut, int64_t oH, int64_t oW) {
  if (c3_mode == TH_NN_CONVDIRECT_OFF || dt != TH_FLOAT || !th_nn_convdirect_available()) return 0;
  if (w->dW != 1 || w->dH != 1 || w->kW % 2 == 0 || w->kH % 2 == 0 || w->kW > KMAX ||
      w->kH > KMAX || w->kW * w->kH == 1 || w->padW != (w->kW - 1) / 2 || w->padH != (w->kH - 1) / 2)
    return 0;
  /* the planes' flat offsets must fit the int32 lane arithmetic below */
  if (oH * oW > (1 << 28)) return 0;
  if (c3_mode == TH_NN_CONVDIRECT_ON) return 1;
  return shape_rule(w, phase, nIn * nOut, oH, oW);
}

/* scratch elements a phase needs beside nothing else: packed weights and
   bias for forward and gradInput, per-thread partial gradWeights */
static int64_t round_up(int64_t a, int64_t b) { return (a + b - 1) / b * b; }

/* 16 floats past a buffer's start, aligned to 64 bytes */
static float *aligned(float *p) { return (float *)(((uintptr_t)p + 63) & ~(uintptr_t)63); }

#ifdef TH_CONVDIRECT_AVX512

typedef struct c3geom {
  int64_t B, C, K, H, W;   /* C planes in, K planes out, H x W the planes the vectors run over */
  int64_t kH, kW, T, TP;   /* kernel, its taps, and taps rounded up to GWT */
  int64_t HW, nv;          /* plane size, vectors per plane */
  int64_t iplane, oplane;  /* distance of the input planes, of the output planes */
  int64_t iH, iW;          /* the input's planes (gradWeight; H x W at stride 1) */
  int64_t sH, sW, pH, pW;  /* stride and padding */
  int64_t nph, rspan;      /* phase planes a vector's taps read, rows of each it spans */
  int64_t off[KMAX * KMAX + GWT];  /* flat shift of each tap (0 past T) */
  __mmask16 last;          /* lanes of the last vector inside the plane */
  __mmask16 *mk;           /* TP x nv load masks (0 past T): a tap's masks for consecutive vectors adjacent */
} c3geom;

/* the planes' sizes (every one H x W), and unit stride */
static void geom_planes(c3geom *g, int64_t B, int64_t C, int64_t K, int64_t H, int64_t W,
                        const th_nn_window *w) {
  g->B = B, g->C = C, g->K = K, g->H = H, g->W = W;
  g->kH = w->kH, g->kW = w->kW;
  g->HW = H * W;
  g->nv = (g->HW + 15) / 16;
  g->last = (__mmask16)(g->HW % 16 ? (1u << (g->HW % 16)) - 1 : 0xFFFFu);
  g->iplane = g->oplane = g->HW;
  g->iH = H, g->iW = W;
  g->sH = g->sW = 1, g->pH = (w->kH - 1) / 2, g->pW = (w->kW - 1) / 2;
  g->nph = 1, g->rspan = w->kH - 1;
}

/* T taps: tap t reads the plane at base[t] from the vector's start,
   shifted by dy[t] rows and dx[t] columns; its lanes whose shifted
   position falls outside the H x W plane are masked off */
static int geom_taps(c3geom *g, int64_t T, const int64_t *base, const int64_t *dy,
                     const int64_t *dx) {
  int64_t v, t;
  g->T = T, g->TP = round_up(T, GWT);
  for (t = 0; t < g->TP; t++) g->off[t] = t < T ? base[t] + dy[t] * g->W + dx[t] : 0;
  g->mk = malloc(sizeof(__mmask16) * (size_t)(g->nv * g->TP + 1));
  if (g->mk == NULL)
    return th_error_set("out of memory (%lld bytes of masks)", (long long)(g->nv * g->TP * 2));
  for (v = 0; v < g->nv; v++)
    for (t = 0; t < g->TP; t++) {
      unsigned m = 0, l;
      for (l = 0; l < 16 && t < T; l++) {
        int64_t p = 16 * v + l, y = p / g->W, x = p % g->W;
        int64_t yy = y + dy[t], xx = x + dx[t];
        if (p < g->HW && yy >= 0 && yy < g->H && xx >= 0 && xx < g->W) m |= 1u << l;
      }
      g->mk[t * g->nv + v] = (__mmask16)m;
    }
  return TH_OK;
}

/* stride 1, "same" padding: tap (ky, kx) is the plane shifted by
   (ky - pH, kx - pW) */
static int geom_init(c3geom *g, int64_t B, int64_t C, int64_t K, int64_t H, int64_t W,
                     const th_nn_window *w) {
  int64_t base[KMAX * KMAX], dy[KMAX * KMAX], dx[KMAX * KMAX], t;
  geom_planes(g, B, C, K, H, W, w);
  for (t = 0; t < w->kH * w->kW; t++)
    base[t] = 0, dy[t] = t / w->kW - g->pH, dx[t] = t % w->kW - g->pW;
  return geom_taps(g, w->kH * w->kW, base, dy, dx);
}

/* out[0..OCB) x PB vectors = bias + sum over C planes and T taps; 'in'
   and 'out' point at the block's first vector of plane 0; planes of
   either are 'plane' apart. wp is C x T x OCB, mk the block's masks (tap
   t's for vector j at mk[ms * t + j]), valid the output planes to store, sm the store mask of the
   block's last vector. Without bias the sums start from out itself (a
   later slice of the input planes) */
#define C3_FWD_TILE(PB)                                                                      \
  TH_AVX512 static void fwd_tile_##PB(const float *in, int64_t iplane, int64_t plane,        \
                                      int64_t C, int64_t T,                                  \
                                      int64_t ms, const float *wp, const int64_t *off,       \
                                      const __mmask16 *mk, const float *bias, float *out,    \
                                      int valid, __mmask16 sm) {                             \
    __m512 acc[OCB][PB];                                                                     \
    int64_t c;                                                                               \
    int64_t t;                                                                               \
    int o, j;                                                                                \
    _Pragma("GCC unroll 8") for (o = 0; o < OCB; o++)                                        \
      _Pragma("GCC unroll 8") for (j = 0; j < PB; j++)                                       \
        acc[o][j] = bias ? _mm512_set1_ps(bias[o])                                           \
                         : o >= valid ? _mm512_setzero_ps()                                  \
                                      : _mm512_maskz_loadu_ps(j == PB - 1 ? sm : 0xFFFF,     \
                                                              out + o * plane + 16 * j);     \
    for (c = 0; c < C; c++) {                                                                \
      const float *ic = in + c * iplane, *wc = wp + c * T * OCB;                             \
      for (t = 0; t < T; t++) {                                                              \
        /* one pointer per tap for the inputs and one for the masks: the     \
           vectors are then constant offsets from them (with the masks a     \
           vector apart per tap, GCC ran out of registers and reloaded four  \
           per tap from the stack) */                                         \
        const float *it = ic + off[t];                                                       \
        const __mmask16 *mt = mk + ms * t;                                                   \
        __m512 x[PB];                                                                        \
        _Pragma("GCC unroll 8") for (j = 0; j < PB; j++)                                     \
          x[j] = _mm512_maskz_loadu_ps(mt[j], it + 16 * j);                                  \
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

typedef void (*fwd_tile_fn)(const float *, int64_t, int64_t, int64_t, int64_t, int64_t, const float *,
                            const int64_t *,
                            const __mmask16 *, const float *, float *, int, __mmask16);
static const fwd_tile_fn fwd_tiles[PBMAX + 1] = {NULL,        fwd_tile_1, fwd_tile_2, fwd_tile_3,
                                                 fwd_tile_4, fwd_tile_5, fwd_tile_6};

/* vectors per block: PBMAX, or fewer equal blocks when that wastes less
   of the last one (8x8 planes: 4 vectors, one block) */
static int64_t block_vectors(int64_t nv) {
  int64_t nb = (nv + PBMAX - 1) / PBMAX;
  return (nv + nb - 1) / nb;
}

typedef struct ctask {
  const c3geom *g;
  const float *in, *wp, *bias;
  float *out;
  int64_t pb, nvb, nkb, cc, gk, ngroups, parts;
} ctask;

/* one task of correlate: an image, a group of output blocks, a share of
   the vector blocks */
static void correlate_task(void *arg, int64_t task) {
  const ctask *c = arg;
  const c3geom *g = c->g;
  const int64_t b = task / (c->ngroups * c->parts), grp = task / c->parts % c->ngroups;
  const int64_t part = task % c->parts, pb = c->pb;
  const int64_t kb0 = grp * c->gk, kb1 = kb0 + c->gk < c->nkb ? kb0 + c->gk : c->nkb;
  const int64_t vb0 = c->nvb * part / c->parts, vb1 = c->nvb * (part + 1) / c->parts;
  int64_t c0, vb, kb;
  for (c0 = 0; c0 < g->C; c0 += c->cc) {
    const int64_t n_c = g->C - c0 < c->cc ? g->C - c0 : c->cc;
    for (vb = vb0; vb < vb1; vb++) {
      const int64_t v0 = vb * pb, n = g->nv - v0 < pb ? g->nv - v0 : pb;
      const __mmask16 sm = v0 + n == g->nv ? g->last : (__mmask16)0xFFFF;
      const float *ib = c->in + (b * g->C + c0) * g->iplane + 16 * v0;
      float *ob = c->out + b * g->K * g->oplane + 16 * v0;
      for (kb = kb0; kb < kb1; kb++) {
        const int64_t k0 = kb * OCB;
        const int valid = (int)(g->K - k0 < OCB ? g->K - k0 : OCB);
        fwd_tiles[n](ib, g->iplane, g->oplane, n_c, g->T, g->nv, c->wp + (kb * g->C + c0) * g->T * OCB, g->off,
                     g->mk + v0, c0 == 0 ? c->bias + k0 : NULL, ob + k0 * g->oplane, valid,
                     sm);
      }
    }
  }
}

/* out (B x K x HW) = corr(in (B x C x HW), wp) + bias, wp packed as
   ceil(K/OCB) blocks of C x T x OCB, bias as ceil(K/OCB) * OCB. The loops
   block it as a gemm of the kernels (K x C*T) by the shifted input: a
   slice of the input planes small enough that a block of vectors of it
   stays in L1 (C3_INPUT_BYTES) while a group of output blocks passes over
   it, the group's kernels for the slice in L2 (C3_KERNEL_BYTES). A task
   is an image, a group, and a share of the vector blocks when images are
   too few for the threads. The tasks run on th_pool's helpers, whose
   polling between jobs keeps a step's threads awake (th_pool.h). */
static void correlate(const c3geom *g, const float *in, float *out, const float *wp,
                      const float *bias, int nt) {
  ctask c;
  int64_t planeBytes, cc0, nch, kbBytes;
  c.g = g, c.in = in, c.out = out, c.wp = wp, c.bias = bias;
  c.pb = block_vectors(g->nv), c.nvb = (g->nv + c.pb - 1) / c.pb;
  c.nkb = (g->K + OCB - 1) / OCB;
  planeBytes = 4 * g->nph * (16 * c.pb + g->rspan * g->W + g->kW + 16);
  cc0 = C3_INPUT_BYTES / planeBytes < 1 ? 1 : C3_INPUT_BYTES / planeBytes;
  nch = (g->C + cc0 - 1) / cc0, c.cc = (g->C + nch - 1) / nch;
  kbBytes = c.cc * g->T * OCB * (int64_t)sizeof(float);
  c.gk = C3_KERNEL_BYTES / kbBytes < 1 ? 1 : C3_KERNEL_BYTES / kbBytes;
  c.ngroups = (c.nkb + c.gk - 1) / c.gk;
  c.parts = 1;
  if (g->B * c.ngroups < 2 * nt) c.parts = (2 * nt + g->B * c.ngroups - 1) / (g->B * c.ngroups);
  if (c.parts > c.nvb) c.parts = c.nvb;
  th_pool_for(nt, g->B * c.ngroups * c.parts, correlate_task, &c);
}

/* wp[kb][c][t][o] = w[kb*OCB+o][c][t] (forward) or, for gradInput,
   w[c][kb*OCB+o][T-1-t] with the roles of the planes swapped; zero past K */
static void pack_weights(const float *w, int64_t nOut, int64_t nIn, int64_t T, int flip,
                         float *wp) {
  const int64_t K = flip ? nIn : nOut, C = flip ? nOut : nIn;
  const int64_t nkb = (K + OCB - 1) / OCB;
  int64_t kb, c, t, o;
  for (kb = 0; kb < nkb; kb++)
    for (c = 0; c < C; c++)
      for (t = 0; t < T; t++)
        for (o = 0; o < OCB; o++) {
          const int64_t k = kb * OCB + o;
          float v = 0;
          if (k < K) v = flip ? w[(c * nIn + k) * T + T - 1 - t] : w[(k * nIn + c) * T + t];
          wp[((kb * C + c) * T + t) * OCB + o] = v;
        }
}

/* gradWeight vectorised over output planes, like forward: gradOutput
   transposed to pixels x planes (a vector is 16 planes of one pixel) and
   the input zero-padded, so that dwT[c][t][k..k+16] += in(c, pixel + tap
   t) * gradOutput(pixel, k..k+16) is one multiply-add with a broadcast
   operand and needs no mask and no horizontal sum. (A first version
   reduced over pixels instead: 9 shifted, masked, line-splitting loads
   per 27 multiply-adds and horizontal sums per block held it at 60% of
   the forward's rate.) */
typedef struct gwbuf {
  int64_t Kp, Hp, Wp, pplane;  /* planes rounded to 16; the padded plane */
  int64_t rs;                  /* padded-input elements between output rows: sH * Wp */
  int64_t offp[KMAX * KMAX + GWT];  /* tap offsets in the padded plane (0 past T) */
  float *dwt, *xp, *got;       /* C x T x Kp sums, C padded planes, HW x Kp */
} gwbuf;

static int64_t gw_elems(const c3geom *g, int64_t *dwtE, int64_t *xpE) {
  const int64_t Kp = round_up(g->K, 16);
  *dwtE = round_up(g->C * g->T * Kp, 16);
  *xpE = round_up(g->C * (g->iH + 2 * g->pH) * (g->iW + 2 * g->pW) + 16, 16);
  return *dwtE + *xpE + round_up(g->HW * Kp, 16) + 16;
}

/* acc[c][t] (CB planes, 9 taps from t0, ntap of them real) over every
   pixel of one image for one vector of 16 output planes */
#define C3_GW_TILE(CB, S)                                                                     \
  TH_AVX512 static void gw_tile_##CB##_##S(const c3geom *g, const gwbuf *w, const float *xp,      \
                                     const float *got, const int64_t *offp, int64_t ntap,    \
                                     float *dwt, int64_t y0, int64_t y1) {                    \
    __m512 acc[CB][GWT];                                                                      \
    const int64_t cs = g->T * w->Kp;                                                          \
    int64_t y, x;                                                                             \
    int c, t;                                                                                 \
    _Pragma("GCC unroll 4") for (c = 0; c < CB; c++)                                          \
      _Pragma("GCC unroll 9") for (t = 0; t < GWT; t++)                                       \
        acc[c][t] = t < ntap ? _mm512_loadu_ps(dwt + c * cs + t * w->Kp) : _mm512_setzero_ps();\
    for (y = y0; y < y1; y++) {                                                               \
      const float *xr = xp + y * w->rs, *gr = got + y * g->W * w->Kp;                         \
      for (x = 0; x < g->W; x++) {                                                            \
        const __m512 gv = _mm512_loadu_ps(gr + x * w->Kp);                                    \
        _Pragma("GCC unroll 4") for (c = 0; c < CB; c++)                                      \
          _Pragma("GCC unroll 9") for (t = 0; t < GWT; t++)                                   \
            acc[c][t] = _mm512_fmadd_ps(_mm512_set1_ps(xr[c * w->pplane + offp[t] + S * x]), gv,\
                                        acc[c][t]);                                           \
      }                                                                                       \
    }                                                                                         \
    _Pragma("GCC unroll 4") for (c = 0; c < CB; c++)                                          \
      _Pragma("GCC unroll 9") for (t = 0; t < GWT; t++)                                       \
        if (t < ntap) _mm512_storeu_ps(dwt + c * cs + t * w->Kp, acc[c][t]);                  \
  }

C3_GW_TILE(1, 1)
C3_GW_TILE(2, 1)
C3_GW_TILE(3, 1)
C3_GW_TILE(1, 2)
C3_GW_TILE(2, 2)
C3_GW_TILE(3, 2)

/* NV vectors of output planes x one input plane x 9 taps: each
   broadcast input value feeds NV multiply-adds (K >= 16 NV) */
#define C3_GW_WIDE(NV, S)                                                                     \
  TH_AVX512 static void gw_wide_##NV##_##S(const c3geom *g, const gwbuf *w, const float *xp,      \
                                     const float *got, const int64_t *offp, int64_t ntap,    \
                                     float *dwt, int64_t y0, int64_t y1) {                    \
    __m512 acc[NV][GWT];                                                                      \
    int64_t y, x;                                                                             \
    int v, t;                                                                                 \
    _Pragma("GCC unroll 4") for (v = 0; v < NV; v++)                                          \
      _Pragma("GCC unroll 9") for (t = 0; t < GWT; t++)                                       \
        acc[v][t] = t < ntap ? _mm512_loadu_ps(dwt + t * w->Kp + 16 * v) : _mm512_setzero_ps();\
    for (y = y0; y < y1; y++) {                                                               \
      const float *xr = xp + y * w->rs, *gr = got + y * g->W * w->Kp;                         \
      for (x = 0; x < g->W; x++) {                                                            \
        __m512 gv[NV];                                                                        \
        _Pragma("GCC unroll 4") for (v = 0; v < NV; v++)                                      \
          gv[v] = _mm512_loadu_ps(gr + x * w->Kp + 16 * v);                                   \
        _Pragma("GCC unroll 9") for (t = 0; t < GWT; t++) {                                   \
          const __m512 xv = _mm512_set1_ps(xr[offp[t] + S * x]);                              \
          _Pragma("GCC unroll 4") for (v = 0; v < NV; v++)                                    \
            acc[v][t] = _mm512_fmadd_ps(xv, gv[v], acc[v][t]);                                \
        }                                                                                     \
      }                                                                                       \
    }                                                                                         \
    _Pragma("GCC unroll 4") for (v = 0; v < NV; v++)                                          \
      _Pragma("GCC unroll 9") for (t = 0; t < GWT; t++)                                       \
        if (t < ntap) _mm512_storeu_ps(dwt + t * w->Kp + 16 * v, acc[v][t]);                  \
  }

C3_GW_WIDE(2, 1)
C3_GW_WIDE(3, 1)
C3_GW_WIDE(2, 2)
C3_GW_WIDE(3, 2)

/* the same two kernels for 3x3 taps: each (plane, kernel row) is a row
   pointer of the padded input and the three taps along it constant offsets
   from it, where the general kernels read nine offsets from offp and GCC,
   short of registers, reloaded most of them from the stack per pixel.
   Predictive commoning is off for them: it saw that tap kx + 1 of pixel x
   is tap kx of pixel x + 1 and kept the broadcasts for the next pixel on
   the stack, a 14% loss (benchmark-notes.md, th_nn_convdirect.c) */
#if defined(__GNUC__) && !defined(__clang__)
#define TH_NO_PCOM __attribute__((optimize("no-predictive-commoning")))
#else
#define TH_NO_PCOM
#endif
#define C3_GW_TILE33(CB, S)                                                                   \
  TH_AVX512 TH_NO_PCOM static void gw_tile33_##CB##_##S(const c3geom *g, const gwbuf *w, const float *xp,    \
                                       const float *got, float *dwt, int64_t y0, int64_t y1) {\
    __m512 acc[CB][9];                                                                        \
    const int64_t cs = 9 * w->Kp;                                                             \
    int64_t y, x;                                                                             \
    int c, t, r;                                                                              \
    _Pragma("GCC unroll 4") for (c = 0; c < CB; c++)                                          \
      _Pragma("GCC unroll 9") for (t = 0; t < 9; t++)                                         \
        acc[c][t] = _mm512_loadu_ps(dwt + c * cs + t * w->Kp);                                \
    for (y = y0; y < y1; y++) {                                                               \
      const float *gr = got + y * g->W * w->Kp;                                               \
      const float *row[CB][3];                                                                \
      _Pragma("GCC unroll 4") for (c = 0; c < CB; c++)                                        \
        _Pragma("GCC unroll 3") for (r = 0; r < 3; r++)                                       \
          row[c][r] = xp + c * w->pplane + y * w->rs + r * w->Wp;                             \
      for (x = 0; x < g->W; x++) {                                                            \
        const __m512 gv = _mm512_loadu_ps(gr + x * w->Kp);                                    \
        _Pragma("GCC unroll 4") for (c = 0; c < CB; c++)                                      \
          _Pragma("GCC unroll 9") for (t = 0; t < 9; t++)                                     \
            acc[c][t] = _mm512_fmadd_ps(_mm512_set1_ps(row[c][t / 3][S * x + t % 3]), gv,     \
                                        acc[c][t]);                                           \
      }                                                                                       \
    }                                                                                         \
    _Pragma("GCC unroll 4") for (c = 0; c < CB; c++)                                          \
      _Pragma("GCC unroll 9") for (t = 0; t < 9; t++)                                         \
        _mm512_storeu_ps(dwt + c * cs + t * w->Kp, acc[c][t]);                                \
  }

C3_GW_TILE33(1, 1)
C3_GW_TILE33(2, 1)
C3_GW_TILE33(3, 1)
C3_GW_TILE33(1, 2)
C3_GW_TILE33(2, 2)
C3_GW_TILE33(3, 2)

#define C3_GW_WIDE33(NV, S)                                                                   \
  TH_AVX512 TH_NO_PCOM static void gw_wide33_##NV##_##S(const c3geom *g, const gwbuf *w, const float *xp,    \
                                       const float *got, float *dwt, int64_t y0, int64_t y1) {\
    __m512 acc[NV][9];                                                                        \
    int64_t y, x;                                                                             \
    int v, t;                                                                                 \
    _Pragma("GCC unroll 4") for (v = 0; v < NV; v++)                                          \
      _Pragma("GCC unroll 9") for (t = 0; t < 9; t++)                                         \
        acc[v][t] = _mm512_loadu_ps(dwt + t * w->Kp + 16 * v);                                \
    for (y = y0; y < y1; y++) {                                                               \
      const float *gr = got + y * g->W * w->Kp;                                               \
      const float *r0 = xp + y * w->rs, *r1 = r0 + w->Wp, *r2 = r1 + w->Wp;                   \
      for (x = 0; x < g->W; x++) {                                                            \
        __m512 gv[NV];                                                                        \
        _Pragma("GCC unroll 4") for (v = 0; v < NV; v++)                                      \
          gv[v] = _mm512_loadu_ps(gr + x * w->Kp + 16 * v);                                   \
        _Pragma("GCC unroll 9") for (t = 0; t < 9; t++) {                                     \
          const float *rr = t < 3 ? r0 : t < 6 ? r1 : r2;                                     \
          const __m512 xv = _mm512_set1_ps(rr[S * x + t % 3]);                                \
          _Pragma("GCC unroll 4") for (v = 0; v < NV; v++)                                    \
            acc[v][t] = _mm512_fmadd_ps(xv, gv[v], acc[v][t]);                                \
        }                                                                                     \
      }                                                                                       \
    }                                                                                         \
    _Pragma("GCC unroll 4") for (v = 0; v < NV; v++)                                          \
      _Pragma("GCC unroll 9") for (t = 0; t < 9; t++)                                         \
        _mm512_storeu_ps(dwt + t * w->Kp + 16 * v, acc[v][t]);                                \
  }

C3_GW_WIDE33(2, 1)
C3_GW_WIDE33(3, 1)
C3_GW_WIDE33(2, 2)
C3_GW_WIDE33(3, 2)

typedef void (*gw_tile33_fn)(const c3geom *, const gwbuf *, const float *, const float *,
                             float *, int64_t, int64_t);
typedef void (*gw_wide33_fn)(const c3geom *, const gwbuf *, const float *, const float *,
                             float *, int64_t, int64_t);
/* [stride - 1][planes or vectors]: stride 1 and 2 */
static const gw_tile33_fn gw_tiles33[2][4] = {
    {NULL, gw_tile33_1_1, gw_tile33_2_1, gw_tile33_3_1},
    {NULL, gw_tile33_1_2, gw_tile33_2_2, gw_tile33_3_2}};
static const gw_wide33_fn gw_wides33[2][4] = {{NULL, NULL, gw_wide33_2_1, gw_wide33_3_1},
                                              {NULL, NULL, gw_wide33_2_2, gw_wide33_3_2}};

typedef void (*gw_tile_fn)(const c3geom *, const gwbuf *, const float *, const float *,
                           const int64_t *, int64_t, float *, int64_t, int64_t);
typedef void (*gw_wide_fn)(const c3geom *, const gwbuf *, const float *, const float *,
                           const int64_t *, int64_t, float *, int64_t, int64_t);
static const gw_tile_fn gw_tiles[2][4] = {{NULL, gw_tile_1_1, gw_tile_2_1, gw_tile_3_1},
                                          {NULL, gw_tile_1_2, gw_tile_2_2, gw_tile_3_2}};
static const gw_wide_fn gw_wides[2][4] = {{NULL, NULL, gw_wide_2_1, gw_wide_3_1},
                                          {NULL, NULL, gw_wide_2_2, gw_wide_3_2}};

/* got[p][k0..k0+16) = go[k0..k0+16)[p0..p0+16) for the 16 pixels from p0
   (np of them real) of 16 planes from k0 (nk real; the others read as
   zero): a 16x16 transpose in registers */
TH_AVX512 static void transpose16(const float *go, int64_t HW, int64_t p0, int np, int nk,
                                  float *got, int64_t Kp) {
  const __mmask16 pm = (__mmask16)(np == 16 ? 0xFFFFu : (1u << np) - 1);
  __m512 r[16], t[16], u[16];
  int i, m;
  for (i = 0; i < 16; i++)
    r[i] = i < nk ? _mm512_maskz_loadu_ps(pm, go + i * HW + p0) : _mm512_setzero_ps();
  for (i = 0; i < 8; i++) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  /* u[4i+m]: in each 128-bit lane, column m of rows 4i..4i+3 */
  for (i = 0; i < 4; i++) {
    u[4 * i] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    u[4 * i + 1] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
    u[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    u[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
  for (m = 0; m < 4; m++) {
    const __m512 v = _mm512_shuffle_f32x4(u[m], u[4 + m], 0x88);
    const __m512 w = _mm512_shuffle_f32x4(u[m], u[4 + m], 0xDD);
    const __m512 v2 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], 0x88);
    const __m512 w2 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], 0xDD);
    const __m512 col[4] = {_mm512_shuffle_f32x4(v, v2, 0x88), _mm512_shuffle_f32x4(w, w2, 0x88),
                           _mm512_shuffle_f32x4(v, v2, 0xDD), _mm512_shuffle_f32x4(w, w2, 0xDD)};
    int j;
    for (j = 0; j < 4; j++)
      if (4 * j + m < np) _mm512_storeu_ps(got + (p0 + 4 * j + m) * Kp, col[j]);
  }
}

/* one image's input planes into the interiors of w->xp (whose border
   gw_range zeroed once), and its gradOutput transposed into w->got
   (planes past K zero) */
static void gw_stage(const c3geom *g, const gwbuf *w, const float *in, const float *go) {
  int64_t c, y, k0, p0;
  for (c = 0; c < g->C; c++)
    for (y = 0; y < g->iH; y++)
      memcpy(w->xp + c * w->pplane + (y + g->pH) * w->Wp + g->pW, in + (c * g->iH + y) * g->iW,
             sizeof(float) * (size_t)g->iW);
  for (k0 = 0; k0 < w->Kp; k0 += 16)
    for (p0 = 0; p0 < g->HW; p0 += 16)
      transpose16(go + k0 * g->HW, g->HW, p0, (int)(g->HW - p0 < 16 ? g->HW - p0 : 16),
                  (int)(g->K - k0 < 16 ? g->K - k0 : 16), w->got + k0, w->Kp);
}

/* vectors of output planes for the wide kernels at 'left' planes to go
   (at least 32): 64 planes as 2 + 2 rather than 3 + a one-vector tile,
   whose 27 broadcasts per pixel feed one multiply-add each (1-2% on
   64-plane gradWeights, docs/dev/strided.md) */
static int64_t gw_vectors(int64_t left) {
  return left >= 48 && left != 64 ? 3 : 2;
}

/* dw (K x C x T) += scale * sum over images [b0, b1), through the
   thread's buffers */
static void gw_range(const c3geom *g, gwbuf *w, const float *in, const float *go, int64_t b0,
                     int64_t b1, float *dw, float scale) {
  /* the kernels for the stride (1 or 2; th_nn_convdirect_strided_chosen
     takes no other) */
  const int si = g->sW == 2;
  /* output rows per pass over the taps: the transposed gradOutput of a
     band in a quarter of L2, where the passes (one per plane and 9 taps)
     read it again; a whole 112x112 plane's (3.2 MB at 64 planes) came
     from memory on every pass. The band's sums go through dwt in the
     same order: the results do not change */
  const int64_t rb0 = GW_BAND_BYTES / (g->W * w->Kp * (int64_t)sizeof(float));
  const int64_t rb = rb0 < 1 ? 1 : rb0;
  int64_t b, kv = 0, c0, t0, k, c, t, nw, y0;
  memset(w->dwt, 0, sizeof(float) * (size_t)(g->C * g->T * w->Kp));
  memset(w->xp, 0, sizeof(float) * (size_t)(g->C * w->pplane));
  for (b = b0; b < b1; b++) {
    gw_stage(g, w, in + b * g->C * g->iH * g->iW, go + b * g->K * g->HW);
    for (y0 = 0; y0 < g->H; y0 += rb) {
      const int64_t y1 = y0 + rb < g->H ? y0 + rb : g->H;
      if (g->T == 9 && g->kW == 3) {
        for (kv = 0; kv + 32 <= w->Kp; kv += nw * 16) {
          nw = gw_vectors(w->Kp - kv);
          for (c0 = 0; c0 < g->C; c0++)
            gw_wides33[si][nw](g, w, w->xp + c0 * w->pplane, w->got + kv,
                               w->dwt + c0 * 9 * w->Kp + kv, y0, y1);
        }
        for (; kv < w->Kp; kv += 16)
          for (c0 = 0; c0 < g->C; c0 += 3) {
            const int64_t cb = g->C - c0 < 3 ? g->C - c0 : 3;
            gw_tiles33[si][cb](g, w, w->xp + c0 * w->pplane, w->got + kv,
                               w->dwt + c0 * 9 * w->Kp + kv, y0, y1);
          }
        continue;
      }
      for (kv = 0; kv + 32 <= w->Kp; kv += nw * 16) {
        nw = gw_vectors(w->Kp - kv);
        for (c0 = 0; c0 < g->C; c0++)
          for (t0 = 0; t0 < g->T; t0 += GWT)
            gw_wides[si][nw](g, w, w->xp + c0 * w->pplane, w->got + kv, w->offp + t0,
                             g->T - t0 < GWT ? g->T - t0 : GWT,
                             w->dwt + (c0 * g->T + t0) * w->Kp + kv, y0, y1);
      }
      for (; kv < w->Kp; kv += 16)
        for (c0 = 0; c0 < g->C; c0 += 3) {
          const int64_t cb = g->C - c0 < 3 ? g->C - c0 : 3;
          for (t0 = 0; t0 < g->T; t0 += GWT)
            gw_tiles[si][cb](g, w, w->xp + c0 * w->pplane, w->got + kv, w->offp + t0,
                             g->T - t0 < GWT ? g->T - t0 : GWT,
                             w->dwt + (c0 * g->T + t0) * w->Kp + kv, y0, y1);
        }
    }
  }
  for (k = 0; k < g->K; k++)
    for (c = 0; c < g->C; c++)
      for (t = 0; t < g->T; t++)
        dw[(k * g->C + c) * g->T + t] += scale * w->dwt[(c * g->T + t) * w->Kp + k];
}

typedef struct gwjob {
  const c3geom *g;
  const float *in, *go;
  float *dw, *part, *base;
  int64_t KCT, per, dwtE, xpE, B, n;
  float scale;
} gwjob;

/* share 'me' of n of gradWeight's images, with scratch row 'me' */
static void gw_share(void *arg, int me) {
  const gwjob *j = arg;
  const c3geom *g = j->g;
  const int64_t b0 = j->B * me / j->n, b1 = j->B * (me + 1) / j->n;
  gwbuf wb;
  int64_t t;
  wb.Kp = round_up(g->K, 16);
  wb.Hp = g->iH + 2 * g->pH, wb.Wp = g->iW + 2 * g->pW, wb.pplane = wb.Hp * wb.Wp;
  wb.rs = g->sH * wb.Wp;
  for (t = 0; t < g->TP; t++) wb.offp[t] = t < g->T ? (t / g->kW) * wb.Wp + t % g->kW : 0;
  wb.dwt = j->base + me * j->per;
  wb.xp = wb.dwt + j->dwtE;
  wb.got = wb.xp + j->xpE;
  gw_range(g, &wb, j->in, j->go, b0, b1, me == 0 ? j->dw : j->part + (me - 1) * j->KCT, j->scale);
}


/* --- stride 2 ---
   An output pixel (y, x) of a stride-2 window reads the input at (2y + ky
   - pH, 2x + kx - pW). Split into its four phase planes P[a][b](y', x') =
   in(2y' + a, 2x' + b), each oH x oW, the input read by tap (ky, kx) is
   phase (r mod 2, s mod 2) of r = ky - pH, s = kx - pW, shifted by
   (floor(r / 2), floor(s / 2)): a stride-1 correlation of flat runs
   again, with each tap's own plane, which fwd_tile does as it is
   (geom_taps). With oH = ceil(iH / 2) and oW = ceil(iW / 2) every input
   pixel lies in a phase plane, so a shift past the planes' edge is
   padding, masked like the stride-1 path's. gradInput is the same per
   phase of the input: input pixel (2y' + a, 2x' + b) takes the taps with
   ky = a + pH (mod 2), from gradOutput shifted by ((a + pH - ky) / 2, ..):
   four stride-1 correlations of gradOutput into phase planes, then
   interleaved. gradWeight reads the padded input with a stride of 2 in
   the kernels above. */

/* images whose phase planes are split (or merged) at a time: as many as
   fit in half of L2 (at least one), so that the correlation reads them
   (or the merge reads them) from there */
#define STRIDED_SPLIT_BYTES (th_cpuinfo_get()->l2 / 2)

static int64_t floor_div2(int64_t r) { return r >= 0 ? r / 2 : -((1 - r) / 2); }

/* the geometry of a stride-2 window over B images of iH x iW with oH x oW
   = ceil(iH / 2) x ceil(iW / 2) output planes: C planes in and K out */
static void strided_planes(c3geom *g, int64_t B, int64_t C, int64_t K, int64_t iH, int64_t iW,
                           const th_nn_window *w) {
  geom_planes(g, B, C, K, (iH + 1) / 2, (iW + 1) / 2, w);
  g->iH = iH, g->iW = iW;
  g->sH = 2, g->sW = 2, g->pH = w->padH, g->pW = w->padW;
}

/* forward's taps over the four phase planes of an input plane */
static int strided_forward_taps(c3geom *g) {
  int64_t base[KMAX * KMAX], dy[KMAX * KMAX], dx[KMAX * KMAX], t;
  for (t = 0; t < g->kH * g->kW; t++) {
    const int64_t r = t / g->kW - g->pH, s = t % g->kW - g->pW;
    dy[t] = floor_div2(r), dx[t] = floor_div2(s);
    base[t] = ((r - 2 * dy[t]) * 2 + (s - 2 * dx[t])) * g->HW;
  }
  g->iplane = 4 * g->HW, g->oplane = g->HW;
  g->nph = 4, g->rspan = (g->kH + 1) / 2;
  return geom_taps(g, g->kH * g->kW, base, dy, dx);
}

/* the four phase planes (oH x oW each, phase (a, b) at (2a + b) oH oW) of
   the iH x iW plane src, zero past its edge */
TH_AVX512 static void phase_split(const float *src, int64_t iH, int64_t iW, int64_t oH,
                                  int64_t oW, float *dst) {
  const int64_t h = iW / 2, HW = oH * oW;
  int64_t a, y, x;
  for (a = 0; a < 2; a++)
    for (y = 0; y < oH; y++) {
      float *d0 = dst + 2 * a * HW + y * oW, *d1 = d0 + HW;
      const float *s = src + (2 * y + a) * iW;
      if (2 * y + a >= iH) {
        memset(d0, 0, sizeof(float) * (size_t)oW);
        memset(d1, 0, sizeof(float) * (size_t)oW);
        continue;
      }
      for (x = 0; x < h; x++) {
        d0[x] = s[2 * x];
        d1[x] = s[2 * x + 1];
      }
      if (oW > h) d0[h] = s[2 * h], d1[h] = 0;
    }
}

/* the iH x iW plane dst from its four phase planes (phase_split's inverse) */
TH_AVX512 static void phase_merge(const float *src, int64_t iH, int64_t iW, int64_t oH,
                                  int64_t oW, float *dst) {
  const int64_t h = iW / 2, HW = oH * oW;
  int64_t y, x;
  for (y = 0; y < iH; y++) {
    const float *s0 = src + 2 * (y % 2) * HW + (y / 2) * oW, *s1 = s0 + HW;
    float *d = dst + y * iW;
    for (x = 0; x < h; x++) {
      d[2 * x] = s0[x];
      d[2 * x + 1] = s1[x];
    }
    if (oW > h) d[2 * h] = s0[h];
  }
}

typedef struct phjob {
  const float *src;
  float *dst;
  int64_t iH, iW, oH, oW;
  int merge;
} phjob;

static void phase_plane(void *arg, int64_t i) {
  const phjob *j = arg;
  const int64_t in = j->iH * j->iW, ph = 4 * j->oH * j->oW;
  if (j->merge) phase_merge(j->src + i * ph, j->iH, j->iW, j->oH, j->oW, j->dst + i * in);
  else phase_split(j->src + i * in, j->iH, j->iW, j->oH, j->oW, j->dst + i * ph);
}

/* n planes split into (merge 0) or merged from (merge 1) phase planes */
static void phase_planes(int nt, int64_t n, const float *src, float *dst, const c3geom *g,
                         int merge) {
  phjob j;
  j.src = src, j.dst = dst, j.iH = g->iH, j.iW = g->iW, j.oH = g->H, j.oW = g->W;
  j.merge = merge;
  th_pool_for(nt, n, phase_plane, &j);
}

/* images per split: the scratch bound over one image's phase planes */
static int64_t strided_chunk(int64_t B, int64_t planes, int64_t HW) {
  const int64_t n = STRIDED_SPLIT_BYTES / (int64_t)sizeof(float) / (planes * 4 * HW);
  return n < 1 ? 1 : n > B ? B : n;
}

static int strided_forward(const float *in, float *out, const float *weight, const float *bias,
                           th_tensor *scratch, const th_nn_window *w, int64_t B, int64_t nIn,
                           int64_t nOut, int64_t iH, int64_t iW) {
  const int64_t T = w->kH * w->kW, Kr = round_up(nOut, OCB);
  c3geom g;
  int64_t nb, b0;
  float *wp, *bp, *split;
  int nt;
  strided_planes(&g, B, nIn, nOut, iH, iW, w);
  nb = strided_chunk(B, nIn, g.HW);
  if (th_scratch_take1d(scratch, Kr * (nIn * T + 1) + nb * nIn * 4 * g.HW + 32) != TH_OK)
    return TH_ERR;
  if (strided_forward_taps(&g) != TH_OK) return TH_ERR;
  wp = aligned(th_tensor_data(scratch));
  bp = wp + Kr * nIn * T;
  split = aligned(bp + Kr);
  pack_weights(weight, nOut, nIn, T, 0, wp);
  memset(bp, 0, sizeof(float) * (size_t)Kr);
  if (bias) memcpy(bp, bias, sizeof(float) * (size_t)nOut);
  nt = th_nn_threads_for(B * g.nv, 2 * nOut * nIn * T * 16);
  for (b0 = 0; b0 < B; b0 += nb) {
    const int64_t n = B - b0 < nb ? B - b0 : nb;
    phase_planes(nt, n * nIn, in + b0 * nIn * iH * iW, split, &g, 0);
    g.B = n;
    correlate(&g, split, out + b0 * nOut * g.HW, wp, bp, nt);
  }
  free(g.mk);
  return TH_OK;
}

/* gradInput's taps for input phase (a, b): the kernel taps it takes into
   tap[], their shifts over gradOutput; returns how many */
static int64_t strided_input_taps(const c3geom *g, int64_t a, int64_t b, int64_t *tap,
                                  int64_t *dy, int64_t *dx) {
  int64_t ky, kx, n = 0;
  for (ky = 0; ky < g->kH; ky++)
    for (kx = 0; kx < g->kW; kx++)
      if ((ky - g->pH - a) % 2 == 0 && (kx - g->pW - b) % 2 == 0) {
        tap[n] = ky * g->kW + kx;
        dy[n] = (a + g->pH - ky) / 2, dx[n] = (b + g->pW - kx) / 2;
        n++;
      }
  return n;
}

/* wp[kb][c][t][o] = w[c][kb*OCB+o][tap[t]]: gradInput's kernel of one
   phase, the roles of the planes swapped (C = nOut in, nIn out); zero
   past nIn */
static void pack_taps(const float *w, int64_t nOut, int64_t nIn, int64_t T, const int64_t *tap,
                      int64_t n, float *wp) {
  const int64_t nkb = (nIn + OCB - 1) / OCB;
  int64_t kb, c, t, o;
  for (kb = 0; kb < nkb; kb++)
    for (c = 0; c < nOut; c++)
      for (t = 0; t < n; t++)
        for (o = 0; o < OCB; o++) {
          const int64_t k = kb * OCB + o;
          wp[((kb * nOut + c) * n + t) * OCB + o] = k < nIn ? w[(c * nIn + k) * T + tap[t]] : 0;
        }
}

static int strided_backward_input(const float *go, float *gi, const float *weight,
                                  th_tensor *scratch, const th_nn_window *w, int64_t B,
                                  int64_t nIn, int64_t nOut, int64_t iH, int64_t iW) {
  const int64_t T = w->kH * w->kW, Kr = round_up(nIn, OCB);
  int64_t tap[4][KMAX * KMAX], dy[4][KMAX * KMAX], dx[4][KMAX * KMAX], nTap[4], base[KMAX * KMAX];
  c3geom g[4];
  int64_t nb, b0, ph, t, i;
  float *wp, *bp, *buf, *wph[4];
  int nt, rc = TH_OK;
  for (ph = 0; ph < 4; ph++) {
    strided_planes(&g[ph], B, nOut, nIn, iH, iW, w);
    g[ph].mk = NULL;
  }
  nb = strided_chunk(B, nIn, g[0].HW);
  if (th_scratch_take1d(scratch, Kr * (nOut * T + 1) + nb * nIn * 4 * g[0].HW + 32) != TH_OK)
    return TH_ERR;
  for (ph = 0; ph < 4 && rc == TH_OK; ph++) {
    nTap[ph] = strided_input_taps(&g[ph], ph / 2, ph % 2, tap[ph], dy[ph], dx[ph]);
    for (t = 0; t < nTap[ph]; t++) base[t] = 0;
    g[ph].oplane = 4 * g[ph].HW;
    g[ph].rspan = (g[ph].kH + 1) / 2;
    rc = geom_taps(&g[ph], nTap[ph], base, dy[ph], dx[ph]);
  }
  if (rc != TH_OK) goto done;
  wp = aligned(th_tensor_data(scratch));
  bp = wp + Kr * nOut * T;
  buf = aligned(bp + Kr);
  memset(bp, 0, sizeof(float) * (size_t)Kr);
  /* the phases' kernels side by side: their taps are the kernel's, once */
  for (ph = 0, i = 0; ph < 4; i += Kr * nOut * nTap[ph], ph++)
    wph[ph] = wp + i, pack_taps(weight, nOut, nIn, T, tap[ph], nTap[ph], wph[ph]);
  nt = th_nn_threads_for(B * g[0].nv, 2 * nOut * nIn * T * 16);
  for (b0 = 0; b0 < B; b0 += nb) {
    const int64_t n = B - b0 < nb ? B - b0 : nb;
    for (ph = 0; ph < 4; ph++) {
      float *dst = buf + ph * g[ph].HW;
      if (nTap[ph] == 0) {
        for (i = 0; i < n * nIn; i++) memset(dst + i * 4 * g[ph].HW, 0, sizeof(float) * (size_t)g[ph].HW);
        continue;
      }
      g[ph].B = n;
      correlate(&g[ph], go + b0 * nOut * g[ph].HW, dst, wph[ph], bp, nt);
    }
    phase_planes(nt, n * nIn, buf, gi + b0 * nIn * iH * iW, &g[0], 1);
  }
done:
  for (ph = 0; ph < 4; ph++) free(g[ph].mk);
  return rc;
}

#endif /* TH_CONVDIRECT_AVX512 */

int64_t th_nn_convdirect_scratch(int phase, int64_t B, int64_t nIn, int64_t nOut, int64_t T) {
  const int64_t K = phase == TH_NN_WINO_GRAD_INPUT ? nIn : nOut;
  const int64_t C = phase == TH_NN_WINO_GRAD_INPUT ? nOut : nIn;
  if (phase == TH_NN_WINO_GRAD_WEIGHT)
    return (th_nn_scratch_rows(B, th_nn_threads_for(B, 1 << 30)) - 1) * nOut * nIn * T + 1;
  return round_up(K, OCB) * (C * T + 1) + 16;
}


/* out = corr(in, w) + bias for forward (flip 0: C = nIn planes in, K =
   nOut out) or gradInput (flip 1: the kernels rotated and the roles of the
   planes swapped), through the packed kernel in 'scratch' */
static int run_correlation(const th_tensor *in, th_tensor *out, const th_tensor *weight,
                           const th_tensor *bias, th_tensor *scratch, const th_nn_window *w,
                           int64_t B, int64_t nIn, int64_t nOut, int flip) {
#ifdef TH_CONVDIRECT_AVX512
  const int64_t H = in->size[in->ndim - 2], W = in->size[in->ndim - 1], T = w->kH * w->kW;
  const int64_t C = flip ? nOut : nIn, K = flip ? nIn : nOut;
  c3geom g;
  float *wp, *bp;
  int nt;
  if (th_scratch_take1d(scratch, th_nn_convdirect_scratch(flip ? TH_NN_WINO_GRAD_INPUT
                                                                 : TH_NN_WINO_FORWARD,
                                                            B, nIn, nOut, T)) != TH_OK)
    return TH_ERR;
  if (geom_init(&g, B, C, K, H, W, w) != TH_OK) return TH_ERR;
  wp = aligned(th_tensor_data(scratch));
  bp = wp + round_up(K, OCB) * C * T;
  pack_weights(th_tensor_data(weight), nOut, nIn, T, flip, wp);
  memset(bp, 0, sizeof(float) * (size_t)round_up(K, OCB));
  if (bias) memcpy(bp, th_tensor_data(bias), sizeof(float) * (size_t)K);
  nt = th_nn_threads_for(B * g.nv, 2 * nOut * nIn * T * 16);
  correlate(&g, th_tensor_data(in), th_tensor_data(out), wp, bp, nt);
  free(g.mk);
  return TH_OK;
#else
  return th_error_set("the direct convolution needs an x86-64 build");
#endif
}

int th_nn_convdirect_forward(const th_tensor *input, th_tensor *output, const th_tensor *weight,
                             const th_tensor *bias, th_tensor *finput, const th_nn_window *w,
                             int64_t B, int64_t nIn, int64_t nOut) {
#ifdef TH_CONVDIRECT_AVX512
  if (w->dW == 2)
    return strided_forward(th_tensor_data(input), th_tensor_data(output), th_tensor_data(weight),
                           bias ? th_tensor_data(bias) : NULL, finput, w, B, nIn, nOut,
                           input->size[input->ndim - 2], input->size[input->ndim - 1]);
#endif
  return run_correlation(input, output, weight, bias, finput, w, B, nIn, nOut, 0);
}

int th_nn_convdirect_backward_input(const th_tensor *gradOutput, th_tensor *gradInput,
                                    const th_tensor *weight, th_tensor *fgradInput,
                                    const th_nn_window *w, int64_t B, int64_t nIn, int64_t nOut) {
#ifdef TH_CONVDIRECT_AVX512
  if (w->dW == 2)
    return strided_backward_input(th_tensor_data(gradOutput), th_tensor_data(gradInput),
                                  th_tensor_data(weight), fgradInput, w, B, nIn, nOut,
                                  gradInput->size[gradInput->ndim - 2],
                                  gradInput->size[gradInput->ndim - 1]);
#endif
  return run_correlation(gradOutput, gradInput, weight, NULL, fgradInput, w, B, nIn, nOut, 1);
}

int th_nn_convdirect_backward_params(const th_tensor *input, const th_tensor *gradOutput,
                                     th_tensor *gradWeight, th_tensor *fgradInput,
                                     const th_nn_window *w, int64_t B, int64_t nIn, int64_t nOut,
                                     double scale) {
#ifdef TH_CONVDIRECT_AVX512
  const int64_t H = input->size[input->ndim - 2], W = input->size[input->ndim - 1];
  const int64_t KCT = nOut * nIn * w->kH * w->kW;
  c3geom g;
  float *part, *dw = th_tensor_data(gradWeight);
  const float *in = th_tensor_data(input), *go = th_tensor_data(gradOutput);
  int nt = th_nn_threads_for(B, 2 * KCT * H * W), rows = th_nn_scratch_rows(B, nt);
  int64_t i, dwtE, xpE, per;
  /* the planes and the tap count: the taps' shifts and masks are the
     correlation's (gradWeight's kernels take offsets in the padded input) */
  if (w->dW == 2) strided_planes(&g, B, nIn, nOut, H, W, w);
  else geom_planes(&g, B, nIn, nOut, H, W, w);
  g.T = w->kH * w->kW, g.TP = round_up(g.T, GWT), g.mk = NULL;
  per = gw_elems(&g, &dwtE, &xpE);
  if (th_scratch_take1d(fgradInput, rows * per + (rows - 1) * KCT + 16) != TH_OK) {
    free(g.mk);
    return TH_ERR;
  }
  part = aligned(th_tensor_data(fgradInput)) + rows * per;
  if (nt > 1) memset(part, 0, sizeof(float) * (size_t)((nt - 1) * KCT));
  /* share 0 adds into gradWeight itself, the others into their partial
     sums, added after in order: each image's products are summed once, and
     the same way whichever thread runs a share */
  {
    gwjob j;
    j.g = &g, j.in = in, j.go = go, j.dw = dw, j.part = part, j.KCT = KCT;
    j.base = aligned(th_tensor_data(fgradInput)), j.per = per, j.dwtE = dwtE, j.xpE = xpE;
    j.B = B, j.n = nt, j.scale = (float)scale;
    th_pool_run(nt, nt, gw_share, &j);
  }
  for (i = 1; i < nt; i++) {
    const float *p = part + (i - 1) * KCT;
    int64_t j;
    for (j = 0; j < KCT; j++) dw[j] += p[j];
  }
  free(g.mk);
  return TH_OK;
#else
  return th_error_set("the direct convolution needs an x86-64 build");
#endif
}
