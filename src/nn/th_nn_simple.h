/*
** th_nn_simple.h: kernels of the simple layers and activations of Torch7's
** wider module set: the pointwise maps without parameters (Abs, HardTanh
** and its Clamp/ReLU6 forms, SoftShrink, HardShrink, LogSigmoid, SoftSign,
** Sqrt, Square, Exp, Log, Power), PReLU (one learnable slope, or one per
** channel) and RReLU (random slopes while training).
** As th_nn_layers.h: every function checks its arguments and returns TH_OK,
** or TH_ERR with a message naming what was expected and what came; the
** binding prefixes "nn.Module:method". All floating operands of one call
** share the input's dtype; any strides are accepted. Outputs are resized,
** never replaced; in place, the input (gradOutput) is overwritten and the
** output (gradInput) is set to it.
*/
#ifndef TH_NN_SIMPLE_H
#define TH_NN_SIMPLE_H

#include "../tensor/th_tensor.h"
#include "../tensor/th_random.h"

/* --- pointwise maps ---------------------------------------------------------
   One enum, one name table (checked against TH_NN_NPW at compile time).
   Parameters p[0], p[1]; backward reads the input unless said:
     ABS                              y = |x|, dy/dx = x >= 0 ? 1 : -1
     HARDTANH   p = {min, max}        y = clamp(x, min, max), min < max;
                                      dy/dx = 0 where x <= min or x >= max
                                      (the only one that runs in place: the
                                      clamped input selects the same elements)
     SOFTSHRINK p = {lambda}          y = x - lambda, x + lambda or 0
     HARDSHRINK p = {lambda}          y = x where |x| > lambda, else 0
     LOGSIGMOID                       y = -log(1 + exp(-x))
     SOFTSIGN                         y = x / (1 + |x|)
     SQRT       (reads the output)    y = sqrt(x), dy/dx = 0 where y = 0
     SQUARE                           y = x^2
     EXP        (reads the output)    y = exp(x)
     LOG                              y = log(x)
     POWER      p = {p}               y = x^p                            */
typedef enum {
  TH_NN_PW_ABS = 0,
  TH_NN_PW_HARDTANH,
  TH_NN_PW_SOFTSHRINK,
  TH_NN_PW_HARDSHRINK,
  TH_NN_PW_LOGSIGMOID,
  TH_NN_PW_SOFTSIGN,
  TH_NN_PW_SQRT,
  TH_NN_PW_SQUARE,
  TH_NN_PW_EXP,
  TH_NN_PW_LOG,
  TH_NN_PW_POWER,
  TH_NN_NPW
} th_nn_pw;

extern const char *const th_nn_pw_name[TH_NN_NPW];

/* whether backward reads the output (else the input) */
int th_nn_pw_reads_output(th_nn_pw op);
/* TH_ERR when the parameters are invalid, or 'inplace' for an op without it */
int th_nn_pw_check(th_nn_pw op, const double *p, int inplace);
/* output = f(input); in place: input = f(input), output set to input */
int th_nn_pw_update_output(th_nn_pw op, const double *p, th_tensor *input, th_tensor *output,
                           int inplace);
/* gradInput = gradOutput * f'(.); in place: written into gradOutput and
   gradInput set to it. 'input' may be NULL for the ops that read the
   output, 'output' for those that read the input. */
int th_nn_pw_update_grad_input(th_nn_pw op, const double *p, const th_tensor *input,
                               th_tensor *gradOutput, th_tensor *gradInput,
                               const th_tensor *output, int inplace);

/* --- PReLU --------------------------------------------------------------------
   y = x > 0 ? x : w x. nOutputPlane 0: one shared slope weight[0], any
   input shape. nOutputPlane n > 0: weight has n elements and the channel is
   dimension 1 of a 1D input (n elements), else dimension 2 (batch x n x ...).
   gradWeight[c] += scale * sum over x <= 0 of x * gradOutput.            */
int th_nn_prelu_update_output(const th_tensor *input, th_tensor *output, const th_tensor *weight,
                              int64_t nOutputPlane);
int th_nn_prelu_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                  th_tensor *gradInput, const th_tensor *weight,
                                  int64_t nOutputPlane);
int th_nn_prelu_acc_grad_params(const th_tensor *input, const th_tensor *gradOutput,
                                th_tensor *gradWeight, int64_t nOutputPlane, double scale);

/* --- RReLU --------------------------------------------------------------------
   Training: each x <= 0 is multiplied by a slope drawn uniformly from
   [lower, upper) (one draw per such element, in the input's element order,
   from 'gen'), and 'noise' (resized as the input) keeps the slope (1 where
   x > 0); backward multiplies gradOutput by noise (when upper - lower >
   1e-6, else by the mean slope as in evaluation). Evaluation: the slope is
   (lower + upper) / 2. 0 <= lower <= upper keeps the sign of every element,
   so in place the overwritten input still selects the same elements. */
int th_nn_rrelu_update_output(th_tensor *input, th_tensor *output, th_tensor *noise, double lower,
                              double upper, int train, int inplace, th_generator *gen);
int th_nn_rrelu_update_grad_input(const th_tensor *input, th_tensor *gradOutput,
                                  th_tensor *gradInput, const th_tensor *noise, double lower,
                                  double upper, int train, int inplace);

#endif
