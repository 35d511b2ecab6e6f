/*
** th_nn_activation.c: the pointwise activations (Threshold and ReLU,
** LeakyReLU, ELU, Tanh, Sigmoid, SoftPlus), forward and backward, float
** and double from generic/activation.c.
** Invariants: the output (gradInput) is resized as the operand it mirrors,
** never replaced; in place, the input (gradOutput) is overwritten and the
** output (gradInput) becomes a view of it. In-place parameters are checked
** so that the output selects the same elements in backward as the input
** would have (Threshold: value <= threshold; LeakyReLU: negval >= 0;
** ELU: alpha >= 0): in-place results equal out-of-place ones.
*/
#include <math.h>
#include "th_nn_layers.h"
#include "th_nn_internal.h"
#include "../tensor/th_error.h"
#include "../tensor/th_generic.h"
#include "../tensor/th_iter.h"
#include "../tensor/th_cpu.h"
#include "../tensor/th_pool.h"

const char *const th_nn_act_name[TH_NN_NACT] = {"Threshold", "LeakyReLU", "ELU",
                                                "Tanh",      "Sigmoid",   "SoftPlus"};
_Static_assert(sizeof th_nn_act_name / sizeof th_nn_act_name[0] == TH_NN_NACT,
               "one name per activation");

/* contiguous operands of at least act_min elements are split over
   threads, in blocks of ACT_BLOCK elements run by th_pool: 32768 where each
   element costs an exp or so, ACT_PAR_MIN_CHEAP for the memory-bound
   compare-and-select loops (ReLU, LeakyReLU, most backwards). th_pool's
   caller never waits for a helper that has not started (th_pool.h), so a
   split costs little when the helpers sleep and halves the time when
   they are awake, as they are between the layers of a step; under OpenMP's
   passive wait the cheap loops needed 2M elements (TH_NN_PAR_MIN_ELEMS) */
#define ACT_BLOCK 16384
#ifndef ACT_PAR_MIN_CHEAP
#define ACT_PAR_MIN_CHEAP 262144
#endif

/* forward of these (and backward of all but SoftPlus) is a select or a
   multiply per element */
static int act_cheap(th_nn_act op, int backward) {
  if (backward) return op != TH_NN_SOFTPLUS;
  return op == TH_NN_THRESHOLD || op == TH_NN_LEAKYRELU;
}

static int64_t act_min(th_nn_act op, int backward) {
  return act_cheap(op, backward) ? ACT_PAR_MIN_CHEAP : 32768;
}

#define TH_GENERIC_FILE "../nn/generic/activation.c"
#include "../tensor/th_generic_floating.h"

int th_nn_act_check(th_nn_act op, const double *p, int inplace) {
  if ((int)op < 0 || op >= TH_NN_NACT) return th_error_set("unknown activation %d", (int)op);
  switch (op) {
    case TH_NN_THRESHOLD:
      if (inplace && p[1] > p[0])
        return th_error_set("in-place processing requires value (%g) not exceed threshold (%g)",
                            p[1], p[0]);
      break;
    case TH_NN_LEAKYRELU:
      if (inplace && p[0] < 0)
        return th_error_set("in-place processing requires a non-negative negval, got %g", p[0]);
      break;
    case TH_NN_ELU:
      if (p[0] < 0) return th_error_set("alpha must be non-negative, got %g", p[0]);
      break;
    case TH_NN_SOFTPLUS:
      if (!(p[0] > 0)) return th_error_set("beta must be positive, got %g", p[0]);
      break;
    default: break;
  }
  return TH_OK;
}

int th_nn_act_update_output(th_nn_act op, const double *p, th_tensor *input, th_tensor *output,
                            int inplace) {
  if (th_nn_act_check(op, p, inplace) != TH_OK || th_nn_check_floating(input, "input") != TH_OK)
    return TH_ERR;
  if (inplace) {
    /* the output becomes a view of the input: of another type it would
       read the input's bytes as its own */
    if (output->dtype != input->dtype)
      return th_error_set("input must be a torch.%sTensor like the module's output (convert one with :type()), got torch.%sTensor",
                          th_dtype_name[output->dtype], th_dtype_name[input->dtype]);
    TH_DISPATCH_FLOATING(input->dtype, act_forward, (op, p, input, input), "activation");
    if (output != input) th_tensor_set_tensor(output, input);
    return TH_OK;
  }
  if (output->dtype != input->dtype)
    return th_error_set("input must be a torch.%sTensor like the module's output (convert one with :type()), got torch.%sTensor",
                        th_dtype_name[output->dtype], th_dtype_name[input->dtype]);
  if (th_tensor_resize_as(output, input) != TH_OK) return TH_ERR;
  return TH_DISPATCH_FLOATING(input->dtype, act_forward, (op, p, output, input), "activation");
}

int th_nn_act_update_grad_input(th_nn_act op, const double *p, const th_tensor *input,
                                th_tensor *gradOutput, th_tensor *gradInput,
                                const th_tensor *output, int inplace) {
  const th_tensor *ref;
  const char *refwhat;
  if (th_nn_act_check(op, p, inplace) != TH_OK) return TH_ERR;
  if (op == TH_NN_THRESHOLD || op == TH_NN_LEAKYRELU) {
    ref = input, refwhat = "input";
  } else {
    ref = output, refwhat = "output";
  }
  if (ref == NULL) return th_error_set("backward needs the module's %s", refwhat);
  if (th_nn_check_floating(ref, refwhat) != TH_OK) return TH_ERR;
  if (th_tensor_numel(ref) == 0)
    return th_error_set("the %s is empty: call updateOutput before updateGradInput", refwhat);
  if (th_nn_check_like(gradOutput, ref, "gradOutput", refwhat) != TH_OK) return TH_ERR;
  if (inplace) {
    if (gradInput->dtype != gradOutput->dtype)
      return th_error_set("gradOutput must be a torch.%sTensor like the module's gradInput (convert one with :type()), got torch.%sTensor",
                          th_dtype_name[gradInput->dtype], th_dtype_name[gradOutput->dtype]);
    TH_DISPATCH_FLOATING(ref->dtype, act_backward, (op, p, gradOutput, gradOutput, ref),
                         "activation");
    if (gradInput != gradOutput) th_tensor_set_tensor(gradInput, gradOutput);
    return TH_OK;
  }
  if (gradInput->dtype != ref->dtype)
    return th_error_set("%s must be a torch.%sTensor like the module's gradInput (convert one with :type()), got torch.%sTensor",
                        refwhat, th_dtype_name[gradInput->dtype], th_dtype_name[ref->dtype]);
  if (th_tensor_resize_as(gradInput, ref) != TH_OK) return TH_ERR;
  return TH_DISPATCH_FLOATING(ref->dtype, act_backward, (op, p, gradInput, gradOutput, ref),
                              "activation");
}

/* 1 when done; 0 when the operands do not suit the one-pass loop (the
   caller then runs the add and the ReLU as usual, with their checks) */
int th_nn_add_relu(th_tensor *a, const th_tensor *b) {
  const char *pa, *pb;
  size_t bytes;
  if (a->dtype != b->dtype || !TH_IS_FLOATING(a->dtype) || (a->flags & TH_TENSOR_FREED) ||
      (b->flags & TH_TENSOR_FREED) || !th_tensor_is_contiguous(a) || !th_tensor_is_contiguous(b) ||
      th_tensor_numel(a) != th_tensor_numel(b) || th_tensor_numel(a) == 0)
    return 0;
  /* b may be a itself, not a part of it shifted */
  pa = th_tensor_data(a), pb = th_tensor_data(b);
  bytes = (size_t)th_tensor_numel(a) * th_dtype_size[a->dtype];
  if (pa != pb && pa < pb + bytes && pb < pa + bytes) return 0;
  return TH_DISPATCH_FLOATING(a->dtype, add_relu, (a, b), "add_relu") == TH_OK;
}
