/*
** th_nn_rrelu.c: RReLU, the randomized leaky rectifier: while training each
** x <= 0 gets a slope drawn from [lower, upper) and kept in 'noise' for
** backward; in evaluation the slope is the mean (lower + upper) / 2. Float
** and double from generic/rrelu.c.
** Invariants: 0 <= lower <= upper (checked), so a slope never flips a sign
** and, in place, the overwritten input still tells backward which elements
** were <= 0. Slopes are drawn one per element <= 0, in the input's element
** order, as Torch7 does: a seed gives Torch7's slopes.
*/
#include "th_nn_simple.h"
#include "th_nn_internal.h"
#include "../tensor/th_generic.h"
#include "../tensor/th_iter.h"

#define TH_GENERIC_FILE "../nn/generic/rrelu.c"
#include "../tensor/th_generic_floating.h"

static int check_bounds(double lower, double upper) {
  if (!(lower >= 0 && upper >= lower))
    return th_error_set("bounds must satisfy 0 <= lower <= upper, got lower %g and upper %g", lower,
                        upper);
  return TH_OK;
}

int th_nn_rrelu_update_output(th_tensor *input, th_tensor *output, th_tensor *noise, double lower,
                              double upper, int train, int inplace, th_generator *gen) {
  th_tensor *dst = inplace ? input : output;
  if (check_bounds(lower, upper) != TH_OK) return TH_ERR;
  if (!TH_IS_FLOATING(input->dtype))
    return th_error_set("input must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[input->dtype]);
  /* in place the output becomes a view of the input: of the same type */
  if (th_nn_check_type(output, input->dtype, "output") != TH_OK) return TH_ERR;
  if (train && th_nn_check_type(noise, input->dtype, "noise") != TH_OK) return TH_ERR;
  if (!inplace && th_tensor_resize_as(output, input) != TH_OK) return TH_ERR;
  if (train && th_tensor_resize_as(noise, input) != TH_OK) return TH_ERR;
  if (TH_DISPATCH_FLOATING(input->dtype, rrelu_forward,
                           (input, dst, train ? noise : NULL, lower, upper, gen), "RReLU") != TH_OK)
    return TH_ERR;
  if (inplace && output != input) th_tensor_set_tensor(output, input);
  return TH_OK;
}

int th_nn_rrelu_update_grad_input(const th_tensor *input, th_tensor *gradOutput,
                                  th_tensor *gradInput, const th_tensor *noise, double lower,
                                  double upper, int train, int inplace) {
  char a[128], b[128];
  const int use_noise = train && upper - lower > 1e-6;
  th_tensor *dst = inplace ? gradOutput : gradInput;
  if (check_bounds(lower, upper) != TH_OK) return TH_ERR;
  if (!TH_IS_FLOATING(input->dtype))
    return th_error_set("input must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[input->dtype]);
  if (th_nn_check_type(gradOutput, input->dtype, "gradOutput") != TH_OK) return TH_ERR;
  if (th_tensor_numel(gradOutput) != th_tensor_numel(input))
    return th_error_set("gradOutput must have as many elements as the input (%s), got %s",
                        th_tensor_sizestr(input, a, sizeof a),
                        th_tensor_sizestr(gradOutput, b, sizeof b));
  if (use_noise) {
    if (th_nn_check_type(noise, input->dtype, "noise") != TH_OK) return TH_ERR;
    if (th_tensor_numel(noise) != th_tensor_numel(input))
      return th_error_set("the noise holds %lld slopes for an input of %lld elements: call updateOutput in training mode before updateGradInput",
                          (long long)th_tensor_numel(noise), (long long)th_tensor_numel(input));
  }
  if (th_nn_check_type(gradInput, input->dtype, "gradInput") != TH_OK) return TH_ERR;
  if (!inplace && th_tensor_resize_as(gradInput, input) != TH_OK) return TH_ERR;
  if (TH_DISPATCH_FLOATING(input->dtype, rrelu_backward,
                           (input, gradOutput, dst, use_noise ? noise : NULL, lower, upper),
                           "RReLU") != TH_OK)
    return TH_ERR;
  if (inplace && gradInput != gradOutput) th_tensor_set_tensor(gradInput, gradOutput);
  return TH_OK;
}
