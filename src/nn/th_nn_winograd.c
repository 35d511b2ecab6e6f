/*
** th_nn_winograd.c: Winograd F(2x2,3x3) and F(4x4,3x3) convolution for
** 3x3, stride-1 kernels (nn.SpatialConvolution's fast path, chosen by
** th_nn_conv.c). A 4x4 input tile and a 3x3 kernel, both transformed, give
** a 2x2 output tile with 16 multiplies instead of 36 (F(4x4): a 6x6 tile,
** a 4x4 output, 36 instead of 144; generic/winograd4.c); over channels
** these become 16 (36) gemms (K x C times C x tiles) per block of tiles.
** The plan (wplan.m) carries the tile side. Blocks are rows of
** tiles of one or several images (or a segment of a long row), sized so
** that a block's transformed input and output stay in a core's L2 cache;
** blocks run in parallel, each thread with single-threaded BLAS.
**   forward:    out = corr(in, w, pad)
**   gradInput:  gi  = corr(gradOutput, w rotated 180 and transposed, 2 - pad)
**   gradWeight: dw  = G^T [sum over tiles (A dy A^T) .* (B^T d B)] G,
**               the transpose of the forward's linear map, so exact in
**               exact arithmetic like the other two.
** In float32 the results differ from the direct sum by rounding only
** (F(2x2)'s transforms have coefficients 1 and 1/2; F(4x4)'s up to 8 and
** fractions of 6 and 24 round about 20 times more); the specs bound it.
*/
#include <string.h>
#include <cblas.h>
#include "../tensor/th_gemm.h"
#include "th_nn_internal.h"
#include "../tensor/th_pool.h"
#include "../tensor/th_scratch.h"
#include "../tensor/th_cpu.h"
#include "../tensor/th_cpuinfo.h"

/* elements a block's transformed input and output aim at (per thread: a
   quarter of L2, th_cpuinfo.h; 65536 on Zen 5's 1 MB, where it was
   measured), and the fewest tiles a block takes: with many channels the L2 target
   would leave the 16 gemms too few columns (32 tiles: 0.78 of im2col's
   time on ResNet-18/VGG-sized layers, 128: 0.63, 256: 0.62; on
   ResNet-56-sized layers 32 and 128 are equal) */
#ifndef WINO_BLOCK_ELEMS
#define WINO_BLOCK_ELEMS (th_cpuinfo_get()->l2 / 16)
#endif
#ifndef WINO_MIN_TILES
#define WINO_MIN_TILES 128
#endif
/* gradWeight in F(4x4,3x3) up to this size of its 36 K x C float
   accumulators, which every block's gemms read and write (4 L2 sizes:
   up to 128 x 224 plane pairs on Zen 5's 1 MB, where F(4x4) took 0.5-0.87
   of F(2x2)'s time; from 256 x 256 on, 0.88-1.16) */
#define WINO4_GW_ACC_BYTES (4 * th_cpuinfo_get()->l2)
/* the same for F(4x4,3x3), whose tiles cover 4 times the outputs */
#ifndef WINO4_MIN_TILES
#define WINO4_MIN_TILES 64
#endif

/* the correlation of a B x C x H x W input (zero-padded by padH, padW)
   with a 3x3 kernel into B x K x oH x oW, cut into blocks of tiles */
typedef struct wplan {
  int64_t m, a2;         /* output tile side (2 or 4), transformed tile entries (16 or 36) */
  int64_t B, C, H, W, K, oH, oW, padH, padW;
  int64_t tH, tW;        /* m x m output tiles per column and row */
  int64_t segw, nseg;    /* a unit is a row of tiles, or a segment of segw of one */
  int64_t units, R;      /* units in all, units per block */
  int64_t blocks, T;     /* blocks, and the most tiles a block's buffers hold */
} wplan;

static int wino_mode = TH_NN_WINOGRAD_AUTO;

int th_nn_winograd_set_mode(int mode) {
  int old = wino_mode;
  wino_mode = mode;
  return old;
}

int th_nn_winograd_get_mode(void) { return wino_mode; }

/* The shape rule, from bench/winograd.lua (docs/benchmarks.md): F(2x2,3x3)
   wins from 14x14 outputs on, and at 13x13 (tiles padding the plane by a
   sixth) where im2col is the alternative, from 65536 channel pairs
   (AlexNet's 13x13 layers, A/B call by call in one process: 0.86-1.02 of
   im2col's time on one thread, 0.82-1.01 on two; docs/dev/convbig.md);
   below, tiles are few per image, a 7x7 output pads its 4x4 tiles by a
   third, and the gemms of the im2col path are as large as Winograd's.
   gradWeight's 16 gemms have only K x C outputs each: with few channels
   they run far from peak unless the planes are large.
   F(4x4,3x3) (36 multiplies per 4x4 outputs against 16 per 2x2) took
   0.56-0.92 of F(2x2)'s time for forward and gradInput on every zoo shape
   where F(2x2) was taken (docs/dev/wino4.md), so it replaces it there, and
   at 7x7 from 262144 channel pairs it took 0.8 of im2col's; gradWeight
   takes it while its accumulators stay small (WINO4_GW_ACC_BYTES). */
int th_nn_winograd_chosen(const th_nn_window *w, int phase, int64_t nIn, int64_t nOut,
                          int64_t oH, int64_t oW) {
  if (wino_mode == TH_NN_WINOGRAD_OFF) return 0;
  if (w->kW != 3 || w->kH != 3 || w->dW != 1 || w->dH != 1 || w->padW > 2 || w->padH > 2)
    return 0;
  if (wino_mode == TH_NN_WINOGRAD_ON) return 2;
  if (wino_mode == TH_NN_WINOGRAD_ON4) return 4;
  if (phase != TH_NN_WINO_GRAD_WEIGHT)
    return (oH >= 14 && oW >= 14) || (oH >= 13 && oW >= 13 && nIn * nOut >= 65536) ||
                   (oH >= 7 && oW >= 7 && nIn * nOut >= 262144)
               ? 4
               : 0;
  if (!((oH >= 28 && oW >= 28) || (nIn * nOut >= 16384 && oH >= 13 && oW >= 13))) return 0;
  return 36 * 4 * nIn * nOut <= WINO4_GW_ACC_BYTES ? 4 : 2;
}

static void plan(wplan *p, int m, int64_t B, int64_t C, int64_t H, int64_t W, int64_t K,
                 int64_t oH, int64_t oW, int64_t padH, int64_t padW, int *nt) {
  int64_t target, R0, mint = m == 4 ? WINO4_MIN_TILES : WINO_MIN_TILES;
  p->m = m, p->a2 = (m + 2) * (m + 2);
  target = WINO_BLOCK_ELEMS / (p->a2 * (C + K));
  if (target < mint) target = mint;
  p->B = B, p->C = C, p->H = H, p->W = W, p->K = K, p->oH = oH, p->oW = oW;
  p->padH = padH, p->padW = padW;
  p->tH = (oH + m - 1) / m;
  p->tW = (oW + m - 1) / m;
  p->nseg = (p->tW + target - 1) / target;
  p->segw = (p->tW + p->nseg - 1) / p->nseg;
  p->units = B * p->tH * p->nseg;
  R0 = p->nseg == 1 ? target / p->tW : 1;
  if (R0 < 1) R0 = 1;
  *nt = th_nn_threads_for(p->units, 2 * p->a2 * C * K * p->segw);
  p->R = (p->units + *nt - 1) / *nt;
  if (p->R > R0) p->R = R0;
  p->blocks = (p->units + p->R - 1) / p->R;
  /* buffers sized for R0 units from th_nn_scratch_full batches on, so
     that their size does not depend on the batch there */
  p->T = (th_nn_scratch_full(B) ? R0 : p->R) * p->segw;
}

/* per-thread buffer: V, M (or Yh), and the split rows with a padded row:
   F(2x2) 4 rows in 2 column phases; F(4x4) a plane's 36 x T staged
   tiles (16 x T outputs; gradWeight: 16 + 24 x T gradOutput tiles) */
static int64_t block_elems(const wplan *p) {
  return p->a2 * (p->C + p->K) * p->T + (p->m == 4 ? 40 * p->T + 4 * p->segw + 2
                                                  : 10 * (p->segw + 1));
}

#define TH_GENERIC_FILE "../nn/generic/winograd.c"
#include "../tensor/th_generic_floating.h"

int th_nn_winograd_forward(const th_tensor *input, th_tensor *output, const th_tensor *weight,
                           const th_tensor *bias, th_tensor *finput, const th_nn_window *w,
                           int m, int64_t B, int64_t nIn, int64_t nOut) {
  const int64_t iH = input->size[input->ndim - 2], iW = input->size[input->ndim - 1];
  wplan p;
  int nt;
  int64_t rows, bufS;
  plan(&p, m, B, nIn, iH, iW, nOut, iH + 2 * w->padH - 2, iW + 2 * w->padW - 2, w->padH,
       w->padW, &nt);
  rows = th_nn_scratch_rows(B, nt);
  bufS = block_elems(&p);
  if (th_scratch_take1d(finput, p.a2 * nOut * nIn + rows * bufS) != TH_OK) return TH_ERR;
  return TH_DISPATCH_FLOATING(input->dtype, wino_forward,
                              (input, output, weight, bias, finput, &p, bufS, nt),
                              "SpatialConvolution");
}

int th_nn_winograd_backward_input(const th_tensor *gradOutput, th_tensor *gradInput,
                                  const th_tensor *weight, th_tensor *fgradInput,
                                  const th_nn_window *w, int m, int64_t B, int64_t nIn,
                                  int64_t nOut) {
  const int64_t oH = gradOutput->size[gradOutput->ndim - 2];
  const int64_t oW = gradOutput->size[gradOutput->ndim - 1];
  wplan p;
  int nt;
  int64_t rows, bufS;
  plan(&p, m, B, nOut, oH, oW, nIn, gradInput->size[gradInput->ndim - 2],
       gradInput->size[gradInput->ndim - 1], 2 - w->padH, 2 - w->padW, &nt);
  rows = th_nn_scratch_rows(B, nt);
  bufS = block_elems(&p);
  if (th_scratch_take1d(fgradInput, p.a2 * nOut * nIn + rows * bufS) != TH_OK) return TH_ERR;
  return TH_DISPATCH_FLOATING(gradOutput->dtype, wino_backward_input,
                              (gradOutput, gradInput, weight, fgradInput, &p, bufS, nt),
                              "SpatialConvolution");
}

int th_nn_winograd_backward_params(const th_tensor *input, const th_tensor *gradOutput,
                                   th_tensor *gradWeight, th_tensor *fgradInput,
                                   const th_nn_window *w, int m, int64_t B, int64_t nIn,
                                   int64_t nOut, double scale) {
  const int64_t iH = input->size[input->ndim - 2], iW = input->size[input->ndim - 1];
  wplan p;
  int nt;
  int64_t rows, bufS, off;
  plan(&p, m, B, nIn, iH, iW, nOut, iH + 2 * w->padH - 2, iW + 2 * w->padW - 2, w->padH,
       w->padW, &nt);
  rows = th_nn_scratch_rows(B, nt);
  bufS = block_elems(&p);
  off = rows * p.a2 * nOut * nIn;
  if (th_scratch_take1d(fgradInput, off + rows * bufS) != TH_OK) return TH_ERR;
  return TH_DISPATCH_FLOATING(input->dtype, wino_backward_params,
                              (input, gradOutput, gradWeight, fgradInput, &p, off, bufS, nt, scale),
                              "SpatialConvolution");
}
