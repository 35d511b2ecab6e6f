/*
** th_nn_temporal.h: kernels of the temporal and spatial convolution family
** of Torch7's wider module set (lua/nn/Temporal*.lua, Spatial*.lua of that
** family). Most of those modules are compositions of tensor ops and of the
** kernels in th_nn.h; what needs its own kernel is declared here.
** Conventions as th_nn.h: each function checks its arguments and returns
** TH_OK, or TH_ERR with a message naming what was expected and what came;
** all tensors of a call share one floating dtype; any strides are accepted.
*/
#ifndef TH_NN_TEMPORAL_H
#define TH_NN_TEMPORAL_H

#include "th_nn.h"

/* --- dilated and depthwise convolution (nn.SpatialDilatedConvolution,
   nn.SpatialDepthWiseConvolution) ---
   A 2D convolution whose kernel taps are dilW (dilH) apart:
   out[o][y][x] = bias[o] + sum w[o][c][i][j] *
                  in[c][y*dH - padH + i*dilH][x*dW - padW + j*dilW]
   (zero outside the input), oH = (H + 2*padH - (dilH*(kH-1)+1)) / dH + 1.
   weight: R x nIn x kH x kW (or R x nIn*kH*kW), nIn the input's planes.
   Plain ('depthwise' 0): R = nOut output planes, each over all input
   planes; bias nOut. Depthwise (Torch7's layout): every input plane i is
   convolved alone with its R kernels w[o][i], giving output plane
   i*R + o; nOut = nIn*R; bias R x nIn (bias[o][i]).
   Lowered as nn.SpatialConvolution is: per image, per group of input
   planes (one group, or nIn of one plane each), im2col of the group's
   planes (dilated) and one gemm, on tiles of output rows; images of a
   batch in parallel. 'finput' is forward-only and 'fgradInput'
   backward-only per-thread scratch (th_nn_scratch_rows): nothing is
   carried from forward to backward. */
typedef struct th_nn_dilconv {
  th_nn_window w;       /* kernel, stride, padding */
  int64_t dilW, dilH;   /* tap spacing, >= 1 (1, 1: an ordinary convolution) */
  int depthwise;        /* Torch7's SpatialDepthWiseConvolution layout and grouping */
} th_nn_dilconv;

int th_nn_dilconv_update_output(const th_tensor *input, th_tensor *output,
                                const th_tensor *weight, const th_tensor *bias,
                                th_tensor *finput, const th_nn_dilconv *p);
int th_nn_dilconv_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                    th_tensor *gradInput, const th_tensor *weight,
                                    th_tensor *fgradInput, const th_nn_dilconv *p);
/* gradWeight/gradBias (NULL: none) += scale * the gradients */
int th_nn_dilconv_acc_grad_params(const th_tensor *input, const th_tensor *gradOutput,
                                  th_tensor *gradWeight, th_tensor *gradBias,
                                  th_tensor *fgradInput, const th_nn_dilconv *p, double scale);

#endif
