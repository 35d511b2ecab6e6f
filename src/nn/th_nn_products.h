/*
** th_nn_products.h: kernels of the linear family that are not a
** composition of tensor ops: nn.IndexLinear (a Linear layer over sparse
** {key, value} input with per-feature max-abs normalisation).
** Every function checks its arguments (dtypes, sizes, contiguity, every
** key) before writing anything and returns TH_OK, or TH_ERR with a message
** naming what was expected and what came; the binding prefixes it with
** "nn.IndexLinear:method". Loops are serial: the same key may appear many
** times in a batch, and Torch7's normalisation updates the weight in order.
*/
#ifndef TH_NN_PRODUCTS_H
#define TH_NN_PRODUCTS_H

#include "../tensor/th_tensor.h"

/* --- IndexLinear ------------------------------------------------------------
   keys: contiguous Long 1D (n keys, the batch's samples one after the
   other); row of a key = key + keysOffset (0-based, must lie in the
   weight); values: contiguous 1D of n, the weight's type; sizes:
   contiguous Long 1D, keys per sample (>= 0, summing to n); weight:
   contiguous inputSize x (outDim + N), N = 0 or N >= 4 normalisation
   columns in front of each row (max |value|, its inverse, the update scale,
   a per-feature offset); bias: contiguous outDim.
   update_output: output = batch x outDim, bias + sum value' * weight row;
   with N, value' = (|v| > max ? sign(v) : v / max) + offset written into
   normalizedValues (resized to n), and in training mode (train != 0) each
   key first raises its max to |v| and sets its update scale to 1. */
int th_nn_indexlinear_update_output(const th_tensor *keys, int64_t keysOffset,
                                    const th_tensor *values, const th_tensor *sizes,
                                    th_tensor *output, th_tensor *weight, const th_tensor *bias,
                                    th_tensor *normalizedValues, int train);
/* gradWeight (resized n x outDim, or n x 2outDim with N: first block
   scale * gradOutput, second scale * value * gradOutput) gets one dense row
   per key; gradBias += scale * sum of gradOutput rows. 'values' are the
   normalised values with N. */
int th_nn_indexlinear_acc_grad_params(const th_tensor *keys, int64_t keysOffset,
                                      const th_tensor *values, const th_tensor *sizes,
                                      const th_tensor *gradOutput, th_tensor *gradWeight,
                                      th_tensor *gradBias, const th_tensor *weight,
                                      const th_tensor *bias, double scale);
/* weight rows of 'keys' -= lr * their gradWeight rows (as laid out by
   acc_grad_params, one per key), after a sparse weight decay; bias -= lr *
   gradBias; with N the per-feature offset moves too, all scaled by the
   feature's update scale */
int th_nn_indexlinear_update_params(const th_tensor *gradWeight, const th_tensor *gradBias,
                                    th_tensor *weight, th_tensor *bias, const th_tensor *keys,
                                    int64_t keysOffset, double weightDecay, double lr);
/* acc_grad_params followed by update_params with lr 1, without gradWeight */
int th_nn_indexlinear_acc_update_params(const th_tensor *keys, int64_t keysOffset,
                                        const th_tensor *values, const th_tensor *sizes,
                                        const th_tensor *gradOutput, th_tensor *weight,
                                        th_tensor *bias, double weightDecay, double scale);

#endif
