/*
** th_nn_spatial.h: the kernels of Torch7's wider spatial family: max and
** average pooling over windows that are not a plain sliding grid
** (dilated, adaptive, fractional), reflection and replication padding,
** nearest and (bi/tri)linear up-sampling, pooling across features
** (FeatureLPPooling) and the zero-padded local sums of the local
** normalization modules.
** Every function checks its arguments and returns TH_OK, or TH_ERR with a
** message naming what was expected and what came; the binding prefixes it
** with "nn.Module:method". All floating operands of one call share one
** dtype (Float or Double); any strides are accepted (non-contiguous inputs
** go through contiguous temporaries); outputs are resized, never replaced.
** Images are C x H x W or B x C x H x W (volumes C x D x H x W or
** B x C x D x H x W); every plane is processed on its own.
*/
#ifndef TH_NN_SPATIAL_H
#define TH_NN_SPATIAL_H

#include "th_nn.h"

/* resizes a result tensor; TH_ERR when it stays a non-contiguous view
   (same size, other strides), which the kernels could not fill in order */
int th_nn_resize_out(th_tensor *t, int ndim, const int64_t *size);

/* --- max pooling over per-output windows ------------------------------------
   'indices' (a LongTensor shaped like the output) holds the 1-based
   position y * iW + x + 1 of each maximum in its plane, 0 for a window that
   holds no input element (its output is -inf). The first maximum of a
   window in row-major order wins, a NaN wins over everything.
   Dilated: window rows oy*dH - padH + i*dilH (i < kH) clipped to the image;
   output size floor or ceil((i + 2 pad - dil (k - 1) - 1) / d) + 1, one
   less when padded and the last window would start in the padding. */
int th_nn_dilmaxpool_update_output(const th_tensor *input, th_tensor *output, th_tensor *indices,
                                   const th_nn_window *w, int64_t dilW, int64_t dilH,
                                   int ceil_mode);
/* Adaptive: output oH x oW; row window [floor(oy/oH*iH), ceil((oy+1)/oH*iH))
   computed in float, as Torch7 */
int th_nn_adamaxpool_update_output(const th_tensor *input, th_tensor *output, th_tensor *indices,
                                   int64_t oW, int64_t oH);
/* Fractional: 'samples' (B x C x 2 or C x 2 for a 3D input, values in
   [0, 1), input's dtype) give each plane's pseudo-random window starts, as
   Torch7's generateIntervals; windows are poolW x poolH */
int th_nn_fracmaxpool_update_output(const th_tensor *input, th_tensor *output, th_tensor *indices,
                                    const th_tensor *samples, int64_t oW, int64_t oH,
                                    int64_t poolW, int64_t poolH);
/* backward of the three: gradInput (sized as input) = gradOutput scattered
   through 'indices' (which must be gradOutput's size; gradOutput's leading
   dimensions must be the input's) */
int th_nn_indexmax_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                     th_tensor *gradInput, const th_tensor *indices);

/* --- adaptive average pooling: window [floor(oy*iH/oH), ceil((oy+1)*iH/oH)),
   computed in float, as Torch7; backward takes oH x oW from gradOutput */
int th_nn_adaavgpool_update_output(const th_tensor *input, th_tensor *output, int64_t oW,
                                   int64_t oH);
int th_nn_adaavgpool_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                       th_tensor *gradInput);

/* --- padding (nn.SpatialReflectionPadding, nn.SpatialReplicationPadding) ---
   Output H + t + b by W + l + r (negative amounts crop). Reflection maps
   x < 0 to -x and x >= W to 2 (W - 1) - x (each pad below the size it
   reflects); replication clamps to the border. Backward adds each
   output's gradient to the input element it was read from. */
typedef enum { TH_NN_PAD_REFLECT = 0, TH_NN_PAD_REPLICATE } th_nn_pad_mode;
int th_nn_pad_update_output(const th_tensor *input, th_tensor *output, th_nn_pad_mode mode,
                            int64_t l, int64_t r, int64_t t, int64_t b);
int th_nn_pad_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                th_tensor *gradInput, th_nn_pad_mode mode, int64_t l, int64_t r,
                                int64_t t, int64_t b);

/* --- up-sampling over the last 'nsp' (2 or 3) dimensions -------------------
   The input has nsp + 1 or nsp + 2 dimensions. Nearest: every output
   size is the input's times 'scale' (>= 1); output o reads input o / scale.
   Linear (Torch7's bilinear and trilinear, corners aligned): output size
   'osize' (nsp entries), input position o * (i - 1) / (o - 1) in float. */
int th_nn_upnearest_update_output(const th_tensor *input, th_tensor *output, int nsp,
                                  int64_t scale);
int th_nn_upnearest_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                      th_tensor *gradInput, int nsp, int64_t scale);
int th_nn_uplinear_update_output(const th_tensor *input, th_tensor *output, int nsp,
                                 const int64_t *osize);
/* the output size is gradOutput's */
int th_nn_uplinear_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                     th_tensor *gradInput, int nsp);

/* --- FeatureLPPooling: y = (sum over 'width' consecutive features, 'stride'
   apart, of x^p)^(1/p). Non-batch input: F, F x a or F x a x b; batch: B x F
   [x a [x b]]. Backward: gradOutput * (x / y)^(p - 1), 0 where y == 0. */
int th_nn_featlp_update_output(const th_tensor *input, th_tensor *output, double power,
                               int64_t width, int64_t stride, int batch);
int th_nn_featlp_update_grad_input(const th_tensor *gradOutput, const th_tensor *input,
                                   const th_tensor *output, th_tensor *gradInput, double power,
                                   int64_t width, int64_t stride, int batch);

/* --- local sums of the local normalization modules --------------------------
   input: P x H x W planes; kernel: kH x kW (both odd). output (P x H x W):
   the zero-padded correlation out[y][x] = sum k[i][j] in[y+i-kH/2][x+j-kW/2],
   or with 'transpose' its adjoint (the kernel flipped), which backward uses. */
int th_nn_localsum(const th_tensor *input, const th_tensor *kernel, th_tensor *output,
                   int transpose);

#endif
