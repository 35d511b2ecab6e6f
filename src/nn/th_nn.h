/*
** th_nn.h: the spatial nn kernels (convolution, full convolution, max and
** average pooling, max unpooling, batch normalization, cross-map LRN).
** Each function checks its arguments and returns TH_OK or TH_ERR with a
** message (th_error_set) that names what was expected and what came; the
** binding prefixes it with "nn.Module:method". All tensors of one call
** share one floating dtype; any strides are accepted (non-contiguous
** operands go through contiguous temporaries). Batched (4D) and single
** (3D) images are accepted wherever Torch7 accepts them.
*/
#ifndef TH_NN_H
#define TH_NN_H

#include "../tensor/th_tensor.h"

/* kernel, stride and padding of a 2D window (Torch7 names) */
typedef struct th_nn_window {
  int64_t kW, kH, dW, dH, padW, padH;
} th_nn_window;

/* --- convolution (nn.SpatialConvolution, nn.SpatialConvolutionMM) ---
   weight: nOut x nIn x kH x kW (or nOut x nIn*kH*kW); bias: nOut or NULL.
   'finput' is a per-thread column buffer used only inside update_output;
   'fgradInput' a per-thread column (and partial gradWeight) buffer used
   only inside update_grad_input / acc_grad_params: neither carries data
   from forward to backward, which re-derives columns from the input. */
int th_nn_conv_update_output(const th_tensor *input, th_tensor *output, const th_tensor *weight,
                             const th_tensor *bias, th_tensor *finput, const th_nn_window *w);
int th_nn_conv_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                 th_tensor *gradInput, const th_tensor *weight,
                                 th_tensor *fgradInput, const th_nn_window *w);
int th_nn_conv_acc_grad_params(const th_tensor *input, const th_tensor *gradOutput,
                               th_tensor *gradWeight, th_tensor *gradBias, th_tensor *fgradInput,
                               const th_nn_window *w, double scale);

/* Which 3x3 stride-1 convolutions run as Winograd (th_nn_winograd.c):
   none, those the shape rule picks (default, F(4x4,3x3) or F(2x2,3x3)),
   all that can in F(2x2) (ON) or in F(4x4) (ON4). Process-wide; set
   returns the previous mode. */
enum { TH_NN_WINOGRAD_OFF = 0, TH_NN_WINOGRAD_AUTO = 1, TH_NN_WINOGRAD_ON = 2,
       TH_NN_WINOGRAD_ON4 = 3 };
int th_nn_winograd_set_mode(int mode);
int th_nn_winograd_get_mode(void);
/* whether a convolution with window w, nIn -> nOut planes and an oH x oW
   output takes the Winograd path in a phase: 3x3, stride 1, padding <= 2,
   and the mode or the shape rule says so. Returns the output tile side
   (2: F(2x2,3x3), 4: F(4x4,3x3)) or 0 */
enum { TH_NN_WINO_FORWARD, TH_NN_WINO_GRAD_INPUT, TH_NN_WINO_GRAD_WEIGHT };
int th_nn_winograd_chosen(const th_nn_window *w, int phase, int64_t nIn, int64_t nOut,
                          int64_t oH, int64_t oW);

/* Which stride-1 float convolutions with odd kernels up to 7x7 and "same"
   padding run as direct AVX-512 kernels (th_nn_convdirect.c), taken before
   Winograd and im2col: none, those
   the shape rule picks (default), or all that can. Only on a CPU with
   AVX-512 (th_nn_convdirect_available). Process-wide; set returns the
   previous mode. */
enum { TH_NN_CONVDIRECT_OFF = 0, TH_NN_CONVDIRECT_AUTO = 1, TH_NN_CONVDIRECT_ON = 2 };
int th_nn_convdirect_set_mode(int mode);
int th_nn_convdirect_get_mode(void);
int th_nn_convdirect_available(void);
int th_nn_convdirect_chosen(const th_nn_window *w, th_dtype dt, int phase, int64_t nIn,
                         int64_t nOut, int64_t oH, int64_t oW);
/* the same for stride-2 float convolutions of kernels up to 7x7 (not 1x1)
   whose padding gives a ceil(iH / 2) x ceil(iW / 2) output: ResNet's
   downsampling 3x3 and the 7x7 stems */
int th_nn_convdirect_strided_chosen(const th_nn_window *w, th_dtype dt, int phase, int64_t nIn,
                                    int64_t nOut, int64_t iH, int64_t iW);

/* --- full (transposed) convolution (nn.SpatialFullConvolution) ---
   weight: nIn x nOut x kH x kW; bias: nOut or NULL; output size
   (i - 1) * d - 2 * pad + k + adj per spatial dimension, adj < d. */
int th_nn_fullconv_update_output(const th_tensor *input, th_tensor *output, const th_tensor *weight,
                                 const th_tensor *bias, th_tensor *finput, const th_nn_window *w,
                                 int64_t adjW, int64_t adjH);
int th_nn_fullconv_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                     th_tensor *gradInput, const th_tensor *weight,
                                     th_tensor *fgradInput, const th_nn_window *w, int64_t adjW,
                                     int64_t adjH);
int th_nn_fullconv_acc_grad_params(const th_tensor *input, const th_tensor *gradOutput,
                                   th_tensor *gradWeight, th_tensor *gradBias,
                                   th_tensor *fgradInput, const th_nn_window *w, int64_t adjW,
                                   int64_t adjH, double scale);

/* --- pooling (nn.SpatialMaxPooling, nn.SpatialAveragePooling) ---
   Output size floor or ceil((i + 2 * pad - k) / d) + 1, minus one when the
   last window would start in the padding (ceil mode), as Torch7.
   'indices' (a LongTensor shaped like the output) holds, per output
   element, the 1-based position y * iW + x + 1 of the max in its plane. */
int64_t th_nn_pool_output_size(int64_t in, int64_t k, int64_t d, int64_t pad, int ceil_mode);
int th_nn_maxpool_update_output(const th_tensor *input, th_tensor *output, th_tensor *indices,
                                const th_nn_window *w, int ceil_mode);
int th_nn_maxpool_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                    th_tensor *gradInput, const th_tensor *indices,
                                    const th_nn_window *w, int ceil_mode);
int th_nn_avgpool_update_output(const th_tensor *input, th_tensor *output, const th_nn_window *w,
                                int ceil_mode, int count_include_pad);
int th_nn_avgpool_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                    th_tensor *gradInput, const th_nn_window *w, int ceil_mode,
                                    int count_include_pad);

/* --- max unpooling (nn.SpatialMaxUnpooling): scatters input through the
   pooling module's 'indices' into an oH x oW plane, zeros elsewhere --- */
int th_nn_maxunpool_update_output(const th_tensor *input, th_tensor *output,
                                  const th_tensor *indices, int64_t oW, int64_t oH);
int th_nn_maxunpool_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                      th_tensor *gradInput, const th_tensor *indices, int64_t oW,
                                      int64_t oH);

/* --- batch normalization (nn.BatchNormalization, SpatialBatchNormalization) ---
   input: N x F [x spatial...] (at least 2D); statistics per feature F over
   N and the spatial positions. save_mean and save_std (the INVERSE
   standard deviation, as Torch7) are written in training mode and read by
   backward; running_var is the unbiased variance. weight/bias may be NULL.
   In backward, gradInput/gradWeight/gradBias may each be NULL. 'stats'
   (NULL, or 2 x F) lets one backward pass serve both updateGradInput and
   accGradParameters: stats_mode TH_NN_STATS_STORE keeps the per-feature
   sums of gradOutput and of (input - mean) * gradOutput there,
   TH_NN_STATS_REUSE reads them instead of recomputing. 'relu' nonzero writes
   max(y, 0) (y > 0 ? y : 0, bit for bit what an in-place nn.ReLU after the
   module leaves): the pass an in-place ReLU would make is saved. */
enum { TH_NN_STATS_NONE = 0, TH_NN_STATS_STORE, TH_NN_STATS_REUSE };
int th_nn_batchnorm_update_output(const th_tensor *input, th_tensor *output,
                                  const th_tensor *weight, const th_tensor *bias,
                                  th_tensor *running_mean, th_tensor *running_var,
                                  th_tensor *save_mean, th_tensor *save_std, th_tensor *coef,
                                  int train, double momentum, double eps, int relu);
/* coef (NULL, or resized to 2 x F) receives in training mode the affine
   coefficients k, m of each feature (y = x * k + m); batchnorm_apply makes
   the same output from them again, bit for bit (optnet's recompute re-runs
   batch norm this way: one pass, running statistics untouched), clipped at
   0 as nn.ReLU with relu. */
int th_nn_batchnorm_apply(const th_tensor *input, th_tensor *output, const th_tensor *coef,
                          int relu);
int th_nn_batchnorm_backward(const th_tensor *input, const th_tensor *gradOutput,
                             th_tensor *gradInput, th_tensor *gradWeight, th_tensor *gradBias,
                             const th_tensor *weight, const th_tensor *running_mean,
                             const th_tensor *running_var, const th_tensor *save_mean,
                             const th_tensor *save_std, th_tensor *stats, int stats_mode,
                             int train, double scale, double eps);

/* --- cross-map local response normalization (nn.SpatialCrossMapLRN) ---
   scale = k + alpha / size * sum of squares over 'size' neighbouring
   channels; output = input * scale^-beta. 'scale' is written by forward
   and read by backward; 'ratio' is backward-only scratch. */
int th_nn_lrn_update_output(const th_tensor *input, th_tensor *output, th_tensor *scale,
                            int64_t size, double alpha, double beta, double k);
int th_nn_lrn_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                th_tensor *gradInput, const th_tensor *scale,
                                const th_tensor *output, th_tensor *ratio, int64_t size,
                                double alpha, double beta, double k);

#endif
