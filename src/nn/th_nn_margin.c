/*
** th_nn_margin.c: MultiMarginCriterion and MultiLabelMarginCriterion (see
** th_nn_crit.h), float and double from generic/margin.c.
** The checks run before any output is touched: input 1D or 2D, target
** shape and values (class numbers read into a Long temporary by
** th_nn_read_indices, which rejects non-integers and out-of-range values),
** weights' size and dtype. Operands go through contiguous temporaries.
*/
#include <math.h>
#include "th_nn_crit.h"
#include "th_nn_layers.h"
#include "../tensor/th_error.h"
#include "../tensor/th_generic.h"

/* the contiguous operands of one call: B rows of C scores */
typedef struct rows {
  th_tensor x, t, w;
  int has_w;
  int64_t B, C;
} rows;

#define TH_GENERIC_FILE "../nn/generic/margin.c"
#include "../tensor/th_generic_floating.h"

static void rows_clear(rows *r) {
  th_tensor_clear(&r->x);
  th_tensor_clear(&r->t);
  th_tensor_clear(&r->w);
}

/* shape of the scores; initialises r's temporaries (cleared by the caller) */
static int rows_shape(rows *r, const th_tensor *input) {
  char a[128];
  th_tensor_init(&r->x, input->dtype);
  th_tensor_init(&r->t, TH_LONG);
  th_tensor_init(&r->w, input->dtype);
  r->has_w = 0;
  if (!TH_IS_FLOATING(input->dtype))
    return th_error_set("input must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[input->dtype]);
  if (input->ndim == 1) {
    r->B = 1, r->C = input->size[0];
  } else if (input->ndim == 2) {
    r->B = input->size[0], r->C = input->size[1];
  } else {
    return th_error_set("input must be 1D (classes) or 2D (batch x classes), got %dD %s",
                        input->ndim, th_tensor_sizestr(input, a, sizeof a));
  }
  if (r->B == 0 || r->C == 0)
    return th_error_set("input must not be empty, got %s", th_tensor_sizestr(input, a, sizeof a));
  return th_tensor_contiguous(&r->x, input);
}

static int grad_check(const th_tensor *input, th_tensor *gradInput) {
  if (gradInput->dtype != input->dtype)
    return th_error_set("input must be a torch.%sTensor like the criterion's gradInput (convert one with :type()), got torch.%sTensor",
                        th_dtype_name[gradInput->dtype], th_dtype_name[input->dtype]);
  if (th_tensor_resize_as(gradInput, input) != TH_OK) return TH_ERR;
  return th_tensor_zero(gradInput);
}

/* --- MultiMarginCriterion --------------------------------------------------- */

static int multimargin_get(rows *r, const th_tensor *input, const th_tensor *target,
                           const th_tensor *weights, int p) {
  char a[128], b[128];
  if (rows_shape(r, input) != TH_OK) return TH_ERR;
  if (p != 1 && p != 2) return th_error_set("p must be 1 or 2, got %d", p);
  if (th_tensor_numel(target) != r->B || target->ndim > 1 + (input->ndim == 1))
    return th_error_set("target must hold %lld class number%s (one per row of the %s input), got %s",
                        (long long)r->B, r->B == 1 ? "" : "s",
                        th_tensor_sizestr(input, a, sizeof a), th_tensor_sizestr(target, b, sizeof b));
  if (weights != NULL) {
    if (weights->dtype != input->dtype)
      return th_error_set("weights must be a torch.%sTensor like the input, got torch.%sTensor",
                          th_dtype_name[input->dtype], th_dtype_name[weights->dtype]);
    if (th_tensor_numel(weights) != r->C)
      return th_error_set("weights must have one element per class (%lld), got %s",
                          (long long)r->C, th_tensor_sizestr(weights, b, sizeof b));
    if (th_tensor_contiguous(&r->w, weights) != TH_OK) return TH_ERR;
    r->has_w = 1;
  }
  return th_nn_read_indices(target, r->C, 0, 0, &r->t, "target");
}

int th_nn_multimargin_update_output(const th_tensor *input, const th_tensor *target,
                                    const th_tensor *weights, int sizeAverage, int p,
                                    double margin, double *output) {
  rows r;
  int rc = multimargin_get(&r, input, target, weights, p);
  if (rc == TH_OK) {
    *output = TH_DISPATCH_FLOATING(input->dtype, multimargin_forward, (&r, p, margin),
                                   "MultiMarginCriterion");
    *output /= (double)r.C;
    if (sizeAverage) *output /= (double)r.B;
  }
  rows_clear(&r);
  return rc;
}

int th_nn_multimargin_update_grad_input(const th_tensor *input, const th_tensor *target,
                                        const th_tensor *weights, int sizeAverage, int p,
                                        double margin, th_tensor *gradInput) {
  rows r;
  int rc = multimargin_get(&r, input, target, weights, p);
  if (rc == TH_OK) rc = grad_check(input, gradInput);
  if (rc == TH_OK) {
    double g = sizeAverage ? 1.0 / ((double)r.B * (double)r.C) : 1.0 / (double)r.C;
    rc = TH_DISPATCH_FLOATING(input->dtype, multimargin_backward, (&r, p, margin, g, gradInput),
                              "MultiMarginCriterion");
  }
  rows_clear(&r);
  return rc;
}

/* --- MultiLabelMarginCriterion ---------------------------------------------- */

static int multilabel_get(rows *r, const th_tensor *input, const th_tensor *target,
                          th_tensor *isTarget) {
  char a[128], b[128];
  if (rows_shape(r, input) != TH_OK) return TH_ERR;
  if (!th_tensor_same_size(target, input))
    return th_error_set("target must have the input's size %s (class numbers, 0 ends a row), got %s",
                        th_tensor_sizestr(input, a, sizeof a), th_tensor_sizestr(target, b, sizeof b));
  if (isTarget->dtype != input->dtype)
    return th_error_set("isTarget must be a torch.%sTensor like the input, got torch.%sTensor",
                        th_dtype_name[input->dtype], th_dtype_name[isTarget->dtype]);
  if (th_nn_read_indices(target, r->C, 0, 1, &r->t, "target") != TH_OK) return TH_ERR;
  if (th_tensor_resize_as(isTarget, input) != TH_OK) return TH_ERR;
  return TH_DISPATCH_FLOATING(input->dtype, multilabel_mark, (r, isTarget),
                              "MultiLabelMarginCriterion");
}

int th_nn_multilabelmargin_update_output(const th_tensor *input, const th_tensor *target,
                                         th_tensor *isTarget, int sizeAverage, double *output) {
  rows r;
  int rc = multilabel_get(&r, input, target, isTarget);
  if (rc == TH_OK) {
    *output = TH_DISPATCH_FLOATING(input->dtype, multilabel_forward, (&r, isTarget),
                                   "MultiLabelMarginCriterion");
    *output /= (double)r.C;
    if (sizeAverage) *output /= (double)r.B;
  }
  rows_clear(&r);
  return rc;
}

int th_nn_multilabelmargin_update_grad_input(const th_tensor *input, const th_tensor *target,
                                             th_tensor *isTarget, int sizeAverage,
                                             th_tensor *gradInput) {
  rows r;
  int rc = multilabel_get(&r, input, target, isTarget);
  if (rc == TH_OK) rc = grad_check(input, gradInput);
  if (rc == TH_OK) {
    double g = sizeAverage ? 1.0 / ((double)r.B * (double)r.C) : 1.0 / (double)r.C;
    rc = TH_DISPATCH_FLOATING(input->dtype, multilabel_backward, (&r, isTarget, g, gradInput),
                              "MultiLabelMarginCriterion");
  }
  rows_clear(&r);
  return rc;
}
