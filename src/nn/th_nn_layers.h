/*
** th_nn_layers.h: the non-spatial nn kernels: pointwise activations
** (Threshold/ReLU, LeakyReLU, ELU, Tanh, Sigmoid, SoftPlus), SoftMax and
** LogSoftMax, the criterions' loops, and LookupTable's gather/scatter.
** Every function checks its arguments and returns TH_OK, or TH_ERR with a
** message naming what was expected and what came; the binding prefixes it
** with "nn.Module:method". All floating operands of one call share the
** input's dtype (Float or Double); any strides are accepted. Outputs are
** resized (never replaced): in-place variants write into the input (or
** gradOutput) and point the output (gradInput) at it with a set.
*/
#ifndef TH_NN_LAYERS_H
#define TH_NN_LAYERS_H

#include "../tensor/th_tensor.h"

/* --- Linear ----------------------------------------------------------------
   weight: outputSize x inputSize; bias: outputSize or NULL; input: inputSize
   or batch x inputSize. In batch mode the bias enters through 'addBuffer'
   (Torch7's vector of batch ones: output += addBuffer (x) bias, gradBias +=
   gradOutput^T addBuffer). Both calls that use it resize and refill it,
   so its memory may be shared between passes. */
int th_nn_linear_update_output(const th_tensor *input, th_tensor *output, const th_tensor *weight,
                               const th_tensor *bias, th_tensor *addBuffer);
int th_nn_linear_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                   th_tensor *gradInput, const th_tensor *weight);
/* gradBias may be NULL */
int th_nn_linear_acc_grad_params(const th_tensor *input, const th_tensor *gradOutput,
                                 th_tensor *gradWeight, th_tensor *gradBias,
                                 th_tensor *addBuffer, double scale);

/* --- pointwise activations ------------------------------------------------
   One enum, one name table (checked against TH_NN_NACT at compile time),
   one forward and one backward entry point. Parameters p[0], p[1]:
     THRESHOLD  p = {threshold, value}   y = x > th ? x : value
     LEAKYRELU  p = {negval}             y = x > 0 ? x : x * negval
     ELU        p = {alpha}              y = x > 0 ? x : alpha * (exp(x) - 1)
     TANH, SIGMOID                       (no parameters)
     SOFTPLUS   p = {beta, threshold}    y = log(1 + exp(beta x)) / beta,
                                         or x where beta x > threshold
   Backward reads the input for THRESHOLD and LEAKYRELU (the output when in
   place, which selects the same elements because the parameters are
   checked to make that so) and the output for the others.            */
typedef enum {
  TH_NN_THRESHOLD = 0,
  TH_NN_LEAKYRELU,
  TH_NN_ELU,
  TH_NN_TANH,
  TH_NN_SIGMOID,
  TH_NN_SOFTPLUS,
  TH_NN_NACT
} th_nn_act;

extern const char *const th_nn_act_name[TH_NN_NACT];

/* TH_ERR when the parameters are invalid (for in-place use if 'inplace') */
int th_nn_act_check(th_nn_act op, const double *p, int inplace);
/* output = f(input); in place: input = f(input), output set to input */
int th_nn_act_update_output(th_nn_act op, const double *p, th_tensor *input, th_tensor *output,
                            int inplace);
/* a = max(a + b, 0) in one pass (nn.Sequential: an in-place CAddTable of two
   tensors followed by an in-place ReLU); 0, untouched, unless a and b are
   contiguous float or double tensors of one type and size, b all of a or
   apart from it */
int th_nn_add_relu(th_tensor *a, const th_tensor *b);
/* gradInput = gradOutput * f'(.); in place: written into gradOutput and
   gradInput set to it. 'input' may be NULL for the ops that read the
   output, 'output' for those that read the input. */
int th_nn_act_update_grad_input(th_nn_act op, const double *p, const th_tensor *input,
                                th_tensor *gradOutput, th_tensor *gradInput,
                                const th_tensor *output, int inplace);

/* --- SoftMax, LogSoftMax ----------------------------------------------------
   Over the feature dimension as Torch7: 1D (features), 2D (batch x
   features), 3D (features x h x w: per pixel), 4D (batch x features x h x w).
   Backward reads only the output. */
int th_nn_softmax_update_output(const th_tensor *input, th_tensor *output, int islog);
int th_nn_softmax_update_grad_input(const th_tensor *gradOutput, th_tensor *gradInput,
                                    const th_tensor *output, int islog);

/* --- element-wise criterions ----------------------------------------------
   input and target: equal element counts (Torch7 allows different shapes),
   target of the input's dtype. sizeAverage divides by the element count.
     MSE        (x - y)^2
     ABS        |x - y|
     SMOOTHL1   0.5 (x - y)^2 where |x - y| < 1, else |x - y| - 0.5
     MARGIN     max(0, p[0] - x y)                   p[0] = margin
     DISTKLDIV  y (log y - x) where y > 0, else 0
     BCE        -w (y log(x + eps) + (1 - y) log(1 - x + eps)), eps = 1e-12;
                'weights' (or NULL) has as many elements as the input's last
                dimension and is broadcast over the others, as Torch7.   */
typedef enum {
  TH_NN_MSE = 0,
  TH_NN_ABS,
  TH_NN_SMOOTHL1,
  TH_NN_MARGIN,
  TH_NN_DISTKLDIV,
  TH_NN_BCE,
  TH_NN_NCRIT
} th_nn_crit;

extern const char *const th_nn_crit_name[TH_NN_NCRIT];

int th_nn_crit_update_output(th_nn_crit op, const double *p, const th_tensor *input,
                             const th_tensor *target, const th_tensor *weights, int sizeAverage,
                             double *output);
/* gradInput is resized as input */
int th_nn_crit_update_grad_input(th_nn_crit op, const double *p, const th_tensor *input,
                                 const th_tensor *target, const th_tensor *weights,
                                 int sizeAverage, th_tensor *gradInput);

/* --- ClassNLLCriterion ------------------------------------------------------
   input: nClasses (target: 1 element) or batch x nClasses (target: batch
   elements); targets are 1-based class numbers in a tensor of any type
   (integral values) and must lie in 1..nClasses unless equal to
   ignoreIndex. weights: NULL or nClasses elements of the input's dtype.
   output = -sum w[t] x[t] (divided by the total weight when sizeAverage and
   the total weight is not 0); total_weight = sum w[t] over counted targets. */
int th_nn_classnll_update_output(const th_tensor *input, const th_tensor *target,
                                 const th_tensor *weights, int sizeAverage, int64_t ignoreIndex,
                                 double *output, double *total_weight);
/* gradInput is resized as input and zeroed, then holds -w[t] (/ total_weight) */
int th_nn_classnll_update_grad_input(const th_tensor *input, const th_tensor *target,
                                     const th_tensor *weights, int sizeAverage,
                                     int64_t ignoreIndex, double total_weight,
                                     th_tensor *gradInput);

/* --- class numbers and row indices -----------------------------------------
   Reads the values of 't' (any type, any shape) in row-major order into the
   Long tensor 'out' (resized to 1D numel(t)), keeping them 1-based; fails
   naming 'what', the value and its position unless each is an integer in
   1..n (or equals 'skip' when has_skip). */
int th_nn_read_indices(const th_tensor *t, int64_t n, int64_t skip, int has_skip, th_tensor *out,
                       const char *what);

/* --- LookupTable ----------------------------------------------------------
   weight: nIndex x nOutput; indices: a 1D or 2D tensor of any type holding
   1-based integral row numbers in 1..nIndex. */
/* output: n x nOutput (1D indices of n) or b x n x nOutput (2D b x n) */
int th_nn_lookup_update_output(const th_tensor *weight, const th_tensor *indices,
                               th_tensor *output);
/* gradWeight[idx] += scale * gradOutput row, rows with idx == paddingValue skipped */
int th_nn_lookup_acc_grad_params(const th_tensor *indices, const th_tensor *gradOutput,
                                 th_tensor *gradWeight, int64_t paddingValue, double scale);
/* rows of weight named by indices whose normType-norm exceeds maxNorm are
   scaled to maxNorm (each row once, as Torch7) */
int th_nn_lookup_renorm(th_tensor *weight, const th_tensor *indices, double maxNorm,
                        double normType);

#endif
