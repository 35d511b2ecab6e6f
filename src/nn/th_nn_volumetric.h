/*
** th_nn_volumetric.h: the volumetric nn kernels (3D convolution, full and
** dilated convolution, max/average/fractional max pooling, max unpooling
** through the spatial kernel, replication padding). Volumes are
** C x T x H x W, or B x C x T x H x W for a batch; every function accepts
** both, any strides (non-contiguous operands go through contiguous
** temporaries), float or double with one dtype per call, and returns TH_OK
** or TH_ERR with a message (th_error_set) naming what was expected and what
** came; the binding prefixes it with "nn.Module:method". Sizes and indices
** are checked before anything is written.
*/
#ifndef TH_NN_VOLUMETRIC_H
#define TH_NN_VOLUMETRIC_H

#include "../tensor/th_tensor.h"

/* kernel, stride, padding and dilation of a 3D window (Torch7's names) */
typedef struct th_nn_vol {
  int64_t kT, kW, kH, dT, dW, dH, padT, padW, padH, dilT, dilW, dilH;
} th_nn_vol;

/* --- convolution (nn.VolumetricConvolution, VolumetricDilatedConvolution) ---
   weight nOut x nIn x kT x kH x kW (or nOut x nIn*kT*kH*kW), bias nOut or
   NULL; output size (i + 2 pad - (dil (k - 1) + 1)) / d + 1 per dimension.
   vol2col + gemm per image; 'finput' is forward-only and 'fgradInput'
   backward-only column scratch (backward re-derives the columns). */
int th_nn_volconv_update_output(const th_tensor *input, th_tensor *output,
                                const th_tensor *weight, const th_tensor *bias,
                                th_tensor *finput, const th_nn_vol *v);
int th_nn_volconv_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                    th_tensor *gradInput, const th_tensor *weight,
                                    th_tensor *fgradInput, const th_nn_vol *v);
int th_nn_volconv_acc_grad_params(const th_tensor *input, const th_tensor *gradOutput,
                                  th_tensor *gradWeight, th_tensor *gradBias,
                                  th_tensor *fgradInput, const th_nn_vol *v, double scale);

/* --- full (transposed) convolution (nn.VolumetricFullConvolution) ---
   weight nIn x nOut x kT x kH x kW, bias nOut or NULL; output size
   (i - 1) d - 2 pad + k + adj per dimension (adj[0..2] = T, H, W, each
   below its stride). The transpose of th_nn_volconv: same buffers. */
int th_nn_volfullconv_update_output(const th_tensor *input, th_tensor *output,
                                    const th_tensor *weight, const th_tensor *bias,
                                    th_tensor *finput, const th_nn_vol *v, const int64_t *adj);
int th_nn_volfullconv_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                        th_tensor *gradInput, const th_tensor *weight,
                                        th_tensor *fgradInput, const th_nn_vol *v,
                                        const int64_t *adj);
int th_nn_volfullconv_acc_grad_params(const th_tensor *input, const th_tensor *gradOutput,
                                      th_tensor *gradWeight, th_tensor *gradBias,
                                      th_tensor *fgradInput, const th_nn_vol *v,
                                      const int64_t *adj, double scale);

/* --- max pooling (nn.VolumetricMaxPooling, VolumetricDilatedMaxPooling) ---
   Output size floor or ceil((i + 2 pad - (dil (k - 1) + 1)) / d) + 1, minus
   one when the last window would start in the right padding; padding at
   most half the kernel. 'indices' (LongTensor shaped like the output)
   holds the 1-based position (t*H + y)*W + x + 1 of each maximum in its
   plane; NaN wins a window. */
int th_nn_volmaxpool_update_output(const th_tensor *input, th_tensor *output, th_tensor *indices,
                                   const th_nn_vol *v, int ceil_mode);
int th_nn_volmaxpool_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                       th_tensor *gradInput, const th_tensor *indices,
                                       const th_nn_vol *v, int ceil_mode);

/* --- average pooling (nn.VolumetricAveragePooling) ---
   as max pooling without dilation; the divisor counts the padding when
   count_include_pad (Torch7's default), else only the input cells. */
int th_nn_volavgpool_update_output(const th_tensor *input, th_tensor *output, const th_nn_vol *v,
                                   int ceil_mode, int count_include_pad);
int th_nn_volavgpool_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                       th_tensor *gradInput, const th_nn_vol *v, int ceil_mode,
                                       int count_include_pad);

/* --- fractional max pooling (nn.VolumetricFractionalMaxPooling) ---
   Torch7's layout: planes x H x W x T (time last). 'samples' (B x planes
   x 3 of the input's type, in [0, 1): T, W, H) place the pooling regions
   of each plane; out[0..2] = T, W, H output sizes, pool[0..2] the region
   sizes. 'indices' holds the 1-based position (h*W + w)*T + t + 1. */
int th_nn_volfmp_update_output(const th_tensor *input, th_tensor *output, th_tensor *indices,
                               const th_tensor *samples, const int64_t *out, const int64_t *pool);
int th_nn_volfmp_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                   th_tensor *gradInput, const th_tensor *indices,
                                   const int64_t *out);

/* --- replication padding (nn.VolumetricReplicationPadding) ---
   pad[0..5] = left, right, top, bottom, front, back; negative pads crop.
   Each output cell copies the nearest input cell. */
int th_nn_volreppad_update_output(const th_tensor *input, th_tensor *output, const int64_t *pad);
int th_nn_volreppad_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                      th_tensor *gradInput, const int64_t *pad);

/* --- shared by the volumetric kernel files, not by callers ---
   vol2col: volume C x T x H x W -> columns (C*kT*kH*kW) x ((t1-t0)*oH*oW)
   for the window positions t0 <= ot < t1; row ((c*kT + a)*kH + b)*kW + e,
   column ((ot - t0)*oH + oy)*oW + ox holds
   in[c][ot*dT - padT + a*dilT][oy*dH - padH + b*dilH][ox*dW - padW + e*dilW]
   (0 outside the volume). Rows are 'ld' apart. col2vol ADDS such columns
   back into the volume (which the caller zeroes first). */
void th_nn_vol2col_Float(const float *in, int64_t C, int64_t T, int64_t H, int64_t W,
                         int64_t oT, int64_t oH, int64_t oW, const th_nn_vol *v, int64_t t0,
                         int64_t t1, float *col, int64_t ld);
void th_nn_vol2col_Double(const double *in, int64_t C, int64_t T, int64_t H, int64_t W,
                          int64_t oT, int64_t oH, int64_t oW, const th_nn_vol *v, int64_t t0,
                          int64_t t1, double *col, int64_t ld);
void th_nn_col2vol_Float(const float *col, int64_t C, int64_t T, int64_t H, int64_t W,
                         int64_t oT, int64_t oH, int64_t oW, const th_nn_vol *v, int64_t t0,
                         int64_t t1, float *in, int64_t ld);
void th_nn_col2vol_Double(const double *col, int64_t C, int64_t T, int64_t H, int64_t W,
                          int64_t oT, int64_t oH, int64_t oW, const th_nn_vol *v, int64_t t0,
                          int64_t t1, double *in, int64_t ld);
/* TH_ERR unless kernel, stride and dilation are positive, padding non-negative */
int th_nn_vol_check(const th_nn_vol *v);

#endif
