/*
** th_nn_pointwise.c: the parameter-free pointwise maps of the simple layers
** (Abs, HardTanh, SoftShrink, HardShrink, LogSigmoid, SoftSign, Sqrt,
** Square, Exp, Log, Power), forward and backward, float and double from
** generic/pointwise.c. Formulas and which operand backward reads: see
** th_nn_simple.h.
** Invariants: the output (gradInput) is resized as the operand it mirrors,
** never replaced; only HardTanh runs in place, where the clamped input
** selects in backward exactly the elements the original input would have
** (min < max is checked), so in-place results equal out-of-place ones.
*/
#include <math.h>
#include "th_nn_simple.h"
#include "th_nn_internal.h"
#include "../tensor/th_error.h"
#include "../tensor/th_generic.h"
#include "../tensor/th_iter.h"

const char *const th_nn_pw_name[TH_NN_NPW] = {
    "Abs",      "HardTanh", "SoftShrink", "HardShrink", "LogSigmoid", "SoftSign",
    "Sqrt",     "Square",   "Exp",        "Log",        "Power"};
_Static_assert(sizeof th_nn_pw_name / sizeof th_nn_pw_name[0] == TH_NN_NPW,
               "one name per pointwise map");

/* contiguous operands of at least this many elements are split over
   threads: PW_PAR_MIN where each element costs a transcendental function,
   PW_PAR_MIN_CHEAP for the memory-bound compare-and-select or multiply loops
   (th_nn_activation.c's policy, for the reason given at TH_NN_PAR_MIN_ELEMS) */
#define PW_PAR_MIN 32768
#define PW_PAR_MIN_CHEAP TH_NN_PAR_MIN_CHEAP

/* forward (backward) of these costs an exp, log, pow or sqrt per element */
static int pw_costly(th_nn_pw op, int backward) {
  switch (op) {
    case TH_NN_PW_LOGSIGMOID:
    case TH_NN_PW_POWER: return 1;
    case TH_NN_PW_SQRT:
    case TH_NN_PW_EXP:
    case TH_NN_PW_LOG: return !backward;
    default: return 0;
  }
}

#define TH_GENERIC_FILE "../nn/generic/pointwise.c"
#include "../tensor/th_generic_floating.h"

int th_nn_pw_reads_output(th_nn_pw op) {
  return op == TH_NN_PW_SQRT || op == TH_NN_PW_EXP;
}

int th_nn_pw_check(th_nn_pw op, const double *p, int inplace) {
  if ((int)op < 0 || op >= TH_NN_NPW) return th_error_set("unknown pointwise map %d", (int)op);
  if (op == TH_NN_PW_HARDTANH && !(p[1] > p[0]))
    return th_error_set("max_value must be larger than min_value, got min %g and max %g", p[0],
                        p[1]);
  if (inplace && op != TH_NN_PW_HARDTANH)
    return th_error_set("%s has no in-place form", th_nn_pw_name[op]);
  return TH_OK;
}

int th_nn_pw_update_output(th_nn_pw op, const double *p, th_tensor *input, th_tensor *output,
                           int inplace) {
  if (th_nn_pw_check(op, p, inplace) != TH_OK || th_nn_check_floating(input, "input") != TH_OK)
    return TH_ERR;
  if (inplace) {
    /* the output becomes a view of the input: of another type it would
       read the input's bytes as its own */
    if (output->dtype != input->dtype)
      return th_error_set("input must be a torch.%sTensor like the module's output (convert one with :type()), got torch.%sTensor",
                          th_dtype_name[output->dtype], th_dtype_name[input->dtype]);
    if (TH_DISPATCH_FLOATING(input->dtype, pw_forward, (op, p, input, input), "pointwise") != TH_OK)
      return TH_ERR;
    if (output != input) th_tensor_set_tensor(output, input);
    return TH_OK;
  }
  if (output->dtype != input->dtype)
    return th_error_set("input must be a torch.%sTensor like the module's output (convert one with :type()), got torch.%sTensor",
                        th_dtype_name[output->dtype], th_dtype_name[input->dtype]);
  if (th_tensor_resize_as(output, input) != TH_OK) return TH_ERR;
  return TH_DISPATCH_FLOATING(input->dtype, pw_forward, (op, p, output, input), "pointwise");
}

int th_nn_pw_update_grad_input(th_nn_pw op, const double *p, const th_tensor *input,
                               th_tensor *gradOutput, th_tensor *gradInput,
                               const th_tensor *output, int inplace) {
  const int from_output = th_nn_pw_reads_output(op);
  const th_tensor *ref = from_output ? output : input;
  const char *refwhat = from_output ? "output" : "input";
  if (th_nn_pw_check(op, p, inplace) != TH_OK) return TH_ERR;
  if (ref == NULL) return th_error_set("backward needs the module's %s", refwhat);
  if (th_nn_check_floating(ref, refwhat) != TH_OK) return TH_ERR;
  if (from_output && th_tensor_numel(ref) == 0 && th_tensor_numel(gradOutput) != 0)
    return th_error_set("the output is empty: call updateOutput before updateGradInput");
  if (th_nn_check_like(gradOutput, ref, "gradOutput", refwhat) != TH_OK) return TH_ERR;
  if (inplace) {
    if (gradInput->dtype != gradOutput->dtype)
      return th_error_set("gradOutput must be a torch.%sTensor like the module's gradInput (convert one with :type()), got torch.%sTensor",
                          th_dtype_name[gradInput->dtype], th_dtype_name[gradOutput->dtype]);
    if (TH_DISPATCH_FLOATING(ref->dtype, pw_backward, (op, p, gradOutput, gradOutput, ref),
                             "pointwise") != TH_OK)
      return TH_ERR;
    if (gradInput != gradOutput) th_tensor_set_tensor(gradInput, gradOutput);
    return TH_OK;
  }
  if (gradInput->dtype != ref->dtype)
    return th_error_set("%s must be a torch.%sTensor like the module's gradInput (convert one with :type()), got torch.%sTensor",
                        refwhat, th_dtype_name[gradInput->dtype], th_dtype_name[ref->dtype]);
  if (th_tensor_resize_as(gradInput, ref) != TH_OK) return TH_ERR;
  return TH_DISPATCH_FLOATING(ref->dtype, pw_backward, (op, p, gradInput, gradOutput, ref),
                              "pointwise");
}
