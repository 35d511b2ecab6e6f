/*
** th_nn_criterion.c: the criterions' loops (MSE, Abs, SmoothL1, Margin,
** DistKLDiv, BCE element-wise; ClassNLL gathering one log-probability per
** target), float and double from generic/criterion.c.
** Losses accumulate in double. Operands go through contiguous temporaries
** (views when already contiguous), so the loops are flat and BCE's
** weights broadcast by position in the last dimension, as Torch7's
** view(1, n):expandAs(target). Class numbers stay 1-based up to the
** kernels, which subtract one when they index.
*/
#include <math.h>
#include "th_nn_layers.h"
#include "th_nn_internal.h"
#include "../tensor/th_error.h"
#include "../tensor/th_generic.h"

const char *const th_nn_crit_name[TH_NN_NCRIT] = {"MSECriterion",    "AbsCriterion",
                                                  "SmoothL1Criterion", "MarginCriterion",
                                                  "DistKLDivCriterion", "BCECriterion"};
_Static_assert(sizeof th_nn_crit_name / sizeof th_nn_crit_name[0] == TH_NN_NCRIT,
               "one name per criterion");

/* Torch7's BCECriterion keeps log() finite at 0 and 1 with this */
#define BCE_EPS 1e-12
/* element-wise loops of at least this many elements go over th_pool */
#define CRIT_PAR_MIN 32768
/* a parallel loss sums blocks of at least CRIT_BLOCK elements, at most
   CRIT_MAX_BLOCKS of them */
#define CRIT_BLOCK 16384
#define CRIT_MAX_BLOCKS 1024

/* the contiguous operands of one element-wise criterion call */
typedef struct operands {
  th_tensor x, y, w;
  int has_w;
  int64_t n, wn;
} operands;

typedef struct nll {
  th_tensor x, w, t;  /* contiguous input and weights; targets as Long */
  int has_w;
  int64_t B, C;
} nll;

#define TH_GENERIC_FILE "../nn/generic/criterion.c"
#include "../tensor/th_generic_floating.h"

static void operands_clear(operands *o) {
  th_tensor_clear(&o->x);
  th_tensor_clear(&o->y);
  th_tensor_clear(&o->w);
}

static int operands_get(operands *o, th_nn_crit op, const th_tensor *input,
                        const th_tensor *target, const th_tensor *weights) {
  char a[128], b[128];
  th_tensor_init(&o->x, input->dtype);
  th_tensor_init(&o->y, input->dtype);
  th_tensor_init(&o->w, input->dtype);
  o->has_w = 0;
  if ((int)op < 0 || op >= TH_NN_NCRIT) return th_error_set("unknown criterion %d", (int)op);
  if (!TH_IS_FLOATING(input->dtype))
    return th_error_set("input must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[input->dtype]);
  o->n = th_tensor_numel(input);
  if (o->n == 0) return th_error_set("input must not be empty");
  if (target->dtype != input->dtype)
    return th_error_set("target must be a torch.%sTensor like the input, got torch.%sTensor",
                        th_dtype_name[input->dtype], th_dtype_name[target->dtype]);
  if (th_tensor_numel(target) != o->n)
    return th_error_set("target must have as many elements as the input (%s, %lld), got %s (%lld)",
                        th_tensor_sizestr(input, a, sizeof a), (long long)o->n,
                        th_tensor_sizestr(target, b, sizeof b),
                        (long long)th_tensor_numel(target));
  if (weights != NULL) {
    int64_t last = input->size[input->ndim - 1];
    if (op != TH_NN_BCE) return th_error_set("%s takes no weights", th_nn_crit_name[op]);
    if (weights->dtype != input->dtype)
      return th_error_set("weights must be a torch.%sTensor like the input, got torch.%sTensor",
                          th_dtype_name[input->dtype], th_dtype_name[weights->dtype]);
    if (th_tensor_numel(weights) != last)
      return th_error_set("weights must have %lld elements (the size of the input's last dimension, input %s), got %s",
                          (long long)last, th_tensor_sizestr(input, a, sizeof a),
                          th_tensor_sizestr(weights, b, sizeof b));
    if (th_tensor_contiguous(&o->w, weights) != TH_OK) return TH_ERR;
    o->has_w = 1;
    o->wn = last;
  }
  if (th_tensor_contiguous(&o->x, input) != TH_OK) return TH_ERR;
  if (th_tensor_contiguous(&o->y, target) != TH_OK) return TH_ERR;
  return TH_OK;
}

int th_nn_crit_update_output(th_nn_crit op, const double *p, const th_tensor *input,
                             const th_tensor *target, const th_tensor *weights, int sizeAverage,
                             double *output) {
  operands o;
  int rc = operands_get(&o, op, input, target, weights);
  if (rc == TH_OK) {
    *output = TH_DISPATCH_FLOATING(input->dtype, crit_forward, (op, p, &o), "criterion");
    if (sizeAverage) *output /= (double)o.n;
  }
  operands_clear(&o);
  return rc;
}

int th_nn_crit_update_grad_input(th_nn_crit op, const double *p, const th_tensor *input,
                                 const th_tensor *target, const th_tensor *weights,
                                 int sizeAverage, th_tensor *gradInput) {
  operands o;
  int rc = operands_get(&o, op, input, target, weights);
  if (rc == TH_OK && gradInput->dtype != input->dtype)
    rc = th_error_set("input must be a torch.%sTensor like the criterion's gradInput (convert one with :type()), got torch.%sTensor",
                      th_dtype_name[gradInput->dtype], th_dtype_name[input->dtype]);
  if (rc == TH_OK) rc = th_tensor_resize_as(gradInput, input);
  if (rc == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, crit_backward,
                              (op, p, &o, sizeAverage ? 1.0 / (double)o.n : 1.0, gradInput),
                              "criterion");
  operands_clear(&o);
  return rc;
}

/* --- ClassNLLCriterion ------------------------------------------------------ */

static void nll_clear(nll *s) {
  th_tensor_clear(&s->x);
  th_tensor_clear(&s->w);
  th_tensor_clear(&s->t);
}

static int nll_get(nll *s, const th_tensor *input, const th_tensor *target,
                   const th_tensor *weights, int64_t ignoreIndex) {
  char a[128], b[128];
  th_tensor_init(&s->x, input->dtype);
  th_tensor_init(&s->w, input->dtype);
  th_tensor_init(&s->t, TH_LONG);
  s->has_w = 0;
  if (!TH_IS_FLOATING(input->dtype))
    return th_error_set("input must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[input->dtype]);
  if (input->ndim == 1) {
    s->B = 1, s->C = input->size[0];
  } else if (input->ndim == 2) {
    s->B = input->size[0], s->C = input->size[1];
  } else {
    return th_error_set("input must be 1D (classes) or 2D (batch x classes), got %dD %s",
                        input->ndim, th_tensor_sizestr(input, a, sizeof a));
  }
  if (th_tensor_numel(input) == 0)
    return th_error_set("input must not be empty, got %s", th_tensor_sizestr(input, a, sizeof a));
  if (th_tensor_numel(target) != s->B ||
      (target->ndim == 2 && target->size[1] != 1) || target->ndim > 2)
    return th_error_set("target must hold %lld class number%s (one per row of the %s input), got %s",
                        (long long)s->B, s->B == 1 ? "" : "s",
                        th_tensor_sizestr(input, a, sizeof a),
                        th_tensor_sizestr(target, b, sizeof b));
  if (weights != NULL) {
    if (weights->dtype != input->dtype)
      return th_error_set("weights must be a torch.%sTensor like the input, got torch.%sTensor",
                          th_dtype_name[input->dtype], th_dtype_name[weights->dtype]);
    if (th_tensor_numel(weights) != s->C)
      return th_error_set("weights must have one element per class (%lld), got %s",
                          (long long)s->C, th_tensor_sizestr(weights, b, sizeof b));
    if (th_tensor_contiguous(&s->w, weights) != TH_OK) return TH_ERR;
    s->has_w = 1;
  }
  if (th_nn_read_indices(target, s->C, ignoreIndex, 1, &s->t, "target") != TH_OK) return TH_ERR;
  return th_tensor_contiguous(&s->x, input);
}

int th_nn_classnll_update_output(const th_tensor *input, const th_tensor *target,
                                 const th_tensor *weights, int sizeAverage, int64_t ignoreIndex,
                                 double *output, double *total_weight) {
  nll s;
  int rc = nll_get(&s, input, target, weights, ignoreIndex);
  if (rc == TH_OK) {
    TH_DISPATCH_FLOATING(input->dtype, nll_forward, (&s, ignoreIndex, output, total_weight),
                         "ClassNLLCriterion");
    if (sizeAverage && *total_weight != 0) *output /= *total_weight;
  }
  nll_clear(&s);
  return rc;
}

int th_nn_classnll_update_grad_input(const th_tensor *input, const th_tensor *target,
                                     const th_tensor *weights, int sizeAverage,
                                     int64_t ignoreIndex, double total_weight,
                                     th_tensor *gradInput) {
  nll s;
  int rc = nll_get(&s, input, target, weights, ignoreIndex);
  if (rc == TH_OK && gradInput->dtype != input->dtype)
    rc = th_error_set("input must be a torch.%sTensor like the criterion's gradInput (convert one with :type()), got torch.%sTensor",
                      th_dtype_name[gradInput->dtype], th_dtype_name[input->dtype]);
  if (rc == TH_OK) rc = th_tensor_resize_as(gradInput, input);
  if (rc == TH_OK) rc = th_tensor_zero(gradInput);
  if (rc == TH_OK) {
    double norm = sizeAverage && total_weight != 0 ? 1.0 / total_weight : 1.0;
    TH_DISPATCH_FLOATING(input->dtype, nll_backward, (&s, ignoreIndex, norm, gradInput),
                         "ClassNLLCriterion");
  }
  nll_clear(&s);
  return rc;
}
