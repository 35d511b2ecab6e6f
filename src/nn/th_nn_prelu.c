/*
** th_nn_prelu.c: PReLU, y = x > 0 ? x : w x with a learnable slope w, one
** shared by every element or one per channel; float and double from
** generic/prelu.c.
** Both forms run as one loop over batch x planes x elements-per-plane: the
** shared slope is the case of one plane holding every element. Operands are
** read through contiguous temporaries (any strides accepted); the output
** and gradInput are written directly when contiguous, else through one.
*/
#include "th_nn_simple.h"
#include "th_nn_internal.h"
#include "../tensor/th_generic.h"

/* the input viewed as bs x n x ks (n planes of ks elements, bs of them) */
typedef struct planes {
  int64_t bs, n, ks;
} planes;

#define TH_GENERIC_FILE "../nn/generic/prelu.c"
#include "../tensor/th_generic_floating.h"

static int check_args(const th_tensor *input, const th_tensor *weight, int64_t nOutputPlane,
                      planes *pl) {
  char a[128];
  int64_t numel = th_tensor_numel(input);
  if (!TH_IS_FLOATING(weight->dtype))
    return th_error_set("weight must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[weight->dtype]);
  /* the weight carries the module's type: the input is measured against it */
  if (th_nn_check_type(input, weight->dtype, "input") != TH_OK) return TH_ERR;
  if (nOutputPlane < 0) return th_error_set("nOutputPlane must be >= 0, got %lld", (long long)nOutputPlane);
  if (th_tensor_numel(weight) != (nOutputPlane > 0 ? nOutputPlane : 1))
    return th_error_set("weight must have %lld elements, got %lld",
                        (long long)(nOutputPlane > 0 ? nOutputPlane : 1),
                        (long long)th_tensor_numel(weight));
  if (nOutputPlane == 0) {
    pl->bs = 1, pl->n = 1, pl->ks = numel;
    return TH_OK;
  }
  {
    int cdim = input->ndim > 1 ? 1 : 0;
    int d;
    if (input->ndim < 1 || input->size[cdim] != nOutputPlane)
      return th_error_set("input must have %lld planes in dimension %d, got %s", (long long)nOutputPlane,
                          cdim + 1, th_tensor_sizestr(input, a, sizeof a));
    pl->n = nOutputPlane;
    pl->bs = input->ndim > 1 ? input->size[0] : 1;
    pl->ks = 1;
    for (d = 2; d < input->ndim; d++) pl->ks *= input->size[d];
  }
  return TH_OK;
}

static int check_grad(const th_tensor *gradOutput, const th_tensor *input) {
  char a[128], b[128];
  if (th_nn_check_type(gradOutput, input->dtype, "gradOutput") != TH_OK) return TH_ERR;
  if (th_tensor_numel(gradOutput) != th_tensor_numel(input))
    return th_error_set("gradOutput must have as many elements as the input (%s), got %s",
                        th_tensor_sizestr(input, a, sizeof a),
                        th_tensor_sizestr(gradOutput, b, sizeof b));
  return TH_OK;
}

/* *dst is resized as 'like'; *w is where to write: dst, or 'tmp' when dst
   is not contiguous (finish copies it over) */
static int out_begin(th_tensor *dst, const th_tensor *like, th_tensor *tmp, th_tensor **w) {
  if (th_tensor_resize_as(dst, like) != TH_OK) return TH_ERR;
  if (th_tensor_is_contiguous(dst)) {
    *w = dst;
    return TH_OK;
  }
  *w = tmp;
  return th_tensor_resize_as(tmp, like);
}

static int out_finish(th_tensor *dst, th_tensor *w) {
  return w == dst ? TH_OK : th_tensor_copy(dst, w);
}

int th_nn_prelu_update_output(const th_tensor *input, th_tensor *output, const th_tensor *weight,
                              int64_t nOutputPlane) {
  planes pl;
  th_tensor in, wt, tmp, *o = NULL;
  int rc = TH_ERR;
  if (check_args(input, weight, nOutputPlane, &pl) != TH_OK) return TH_ERR;
  if (th_nn_check_type(output, input->dtype, "output") != TH_OK) return TH_ERR;
  th_tensor_init(&in, input->dtype);
  th_tensor_init(&wt, input->dtype);
  th_tensor_init(&tmp, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK && th_nn_contiguous(&wt, weight) == TH_OK &&
      out_begin(output, input, &tmp, &o) == TH_OK) {
    rc = TH_DISPATCH_FLOATING(input->dtype, prelu_forward, (&in, o, &wt, &pl), "PReLU");
    if (rc == TH_OK) rc = out_finish(output, o);
  }
  th_tensor_clear(&in);
  th_tensor_clear(&wt);
  th_tensor_clear(&tmp);
  return rc;
}

int th_nn_prelu_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                  th_tensor *gradInput, const th_tensor *weight,
                                  int64_t nOutputPlane) {
  planes pl;
  th_tensor in, go, wt, tmp, *g = NULL;
  int rc = TH_ERR;
  if (check_args(input, weight, nOutputPlane, &pl) != TH_OK || check_grad(gradOutput, input) != TH_OK)
    return TH_ERR;
  if (th_nn_check_type(gradInput, input->dtype, "gradInput") != TH_OK) return TH_ERR;
  th_tensor_init(&in, input->dtype);
  th_tensor_init(&go, input->dtype);
  th_tensor_init(&wt, input->dtype);
  th_tensor_init(&tmp, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK && th_nn_contiguous(&go, gradOutput) == TH_OK &&
      th_nn_contiguous(&wt, weight) == TH_OK && out_begin(gradInput, input, &tmp, &g) == TH_OK) {
    rc = TH_DISPATCH_FLOATING(input->dtype, prelu_backward, (&in, &go, g, &wt, &pl), "PReLU");
    if (rc == TH_OK) rc = out_finish(gradInput, g);
  }
  th_tensor_clear(&in);
  th_tensor_clear(&go);
  th_tensor_clear(&wt);
  th_tensor_clear(&tmp);
  return rc;
}

int th_nn_prelu_acc_grad_params(const th_tensor *input, const th_tensor *gradOutput,
                                th_tensor *gradWeight, int64_t nOutputPlane, double scale) {
  planes pl;
  th_tensor in, go;
  int rc = TH_ERR;
  if (check_args(input, gradWeight, nOutputPlane, &pl) != TH_OK || check_grad(gradOutput, input) != TH_OK)
    return TH_ERR;
  if (!th_tensor_is_contiguous(gradWeight)) return th_error_set("gradWeight must be contiguous");
  th_tensor_init(&in, input->dtype);
  th_tensor_init(&go, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK && th_nn_contiguous(&go, gradOutput) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, prelu_acc, (&in, &go, gradWeight, &pl, scale), "PReLU");
  th_tensor_clear(&in);
  th_tensor_clear(&go);
  return rc;
}
