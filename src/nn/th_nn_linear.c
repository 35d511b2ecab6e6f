/*
** th_nn_linear.c: nn.Linear through BLAS: gemm (batch) or gemv (single
** vector) for the product; in batch mode the bias rows and the gradBias
** column sums are plain loops (a BLAS ger/gemv would wake OpenBLAS's
** threads for little work). Torch7's 'addBuffer' of ones is still kept at
** the batch size for compatibility. Float and double from generic/linear.c.
** Read-only operands go through contiguous temporaries (views when they
** already are); results written in place (gradWeight, gradBias) are used
** directly when contiguous, else through a contiguous copy written back,
** so views into a flattened parameter vector work.
*/
#include <limits.h>
#include <string.h>
#include <cblas.h>
#include "../tensor/th_gemm.h"
#include "th_nn_layers.h"
#include "../tensor/th_error.h"
#include "../tensor/th_generic.h"

/* gradBias's column sums run over blocks of this many columns (a stack
   array of accreal) */
#define LINEAR_SUM_COLS 256

typedef struct lgeom {
  int batch;
  int64_t B, in, out;
} lgeom;

#define TH_GENERIC_FILE "../nn/generic/linear.c"
#include "../tensor/th_generic_floating.h"

static int check_same_type(const th_tensor *t, const th_tensor *ref, const char *what) {
  if (t->dtype != ref->dtype)
    return th_error_set("%s must be a torch.%sTensor like the weight, got torch.%sTensor", what,
                        th_dtype_name[ref->dtype], th_dtype_name[t->dtype]);
  return TH_OK;
}

static int geometry(const th_tensor *input, const th_tensor *weight, lgeom *g) {
  char a[128];
  if (!TH_IS_FLOATING(weight->dtype) || weight->ndim != 2)
    return th_error_set("weight must be a 2D torch.FloatTensor or torch.DoubleTensor, got %s %s",
                        th_dtype_name[weight->dtype], th_tensor_sizestr(weight, a, sizeof a));
  g->out = weight->size[0];
  g->in = weight->size[1];
  if (check_same_type(input, weight, "input") != TH_OK) return TH_ERR;
  if (input->ndim == 1 && input->size[0] == g->in) {
    g->batch = 0, g->B = 1;
  } else if (input->ndim == 2 && input->size[1] == g->in && input->size[0] > 0) {
    g->batch = 1, g->B = input->size[0];
  } else {
    return th_error_set("size mismatch: input must be 1D or 2D with %lld columns, got %dD %s", (long long)g->in,
                        input->ndim, th_tensor_sizestr(input, a, sizeof a));
  }
  if (g->B > INT_MAX || g->in > INT_MAX || g->out > INT_MAX)
    return th_error_set("sizes beyond BLAS's int range: input %s, weight %lldx%lld",
                        th_tensor_sizestr(input, a, sizeof a), (long long)g->out, (long long)g->in);
  return TH_OK;
}

static int check_grad_output(const th_tensor *go, const lgeom *g, const th_tensor *weight) {
  char a[128];
  if (check_same_type(go, weight, "gradOutput") != TH_OK) return TH_ERR;
  if (g->batch && (go->ndim != 2 || go->size[0] != g->B || go->size[1] != g->out))
    return th_error_set("gradOutput must be %lldx%lld (batch x outputSize), got %s",
                        (long long)g->B, (long long)g->out, th_tensor_sizestr(go, a, sizeof a));
  if (!g->batch && (go->ndim != 1 || go->size[0] != g->out))
    return th_error_set("gradOutput must be 1D with %lld elements (outputSize), got %s",
                        (long long)g->out, th_tensor_sizestr(go, a, sizeof a));
  return TH_OK;
}

/* makes 'buf' B ones. Refilled on every call (B writes, nothing next to the
   gemm): the memory optimizer may lend the buffer to other tensors between
   passes, so its contents cannot be trusted from one call to the next. */
static int add_buffer(th_tensor *buf, const th_tensor *weight, int64_t B) {
  if (check_same_type(buf, weight, "addBuffer") != TH_OK) return TH_ERR;
  if (th_tensor_resize1d(buf, B) != TH_OK) return TH_ERR;
  return th_tensor_fill(buf, 1.0);
}

int th_nn_linear_update_output(const th_tensor *input, th_tensor *output, const th_tensor *weight,
                               const th_tensor *bias, th_tensor *addBuffer) {
  lgeom g;
  th_tensor x, w, b;
  int rc;
  char a[128];
  if (geometry(input, weight, &g) != TH_OK || check_same_type(output, weight, "output") != TH_OK)
    return TH_ERR;
  if (bias != NULL) {
    if (check_same_type(bias, weight, "bias") != TH_OK) return TH_ERR;
    if (th_tensor_numel(bias) != g.out)
      return th_error_set("bias must have %lld elements (outputSize), got %s", (long long)g.out,
                          th_tensor_sizestr(bias, a, sizeof a));
  }
  if (g.batch && bias != NULL && add_buffer(addBuffer, weight, g.B) != TH_OK) return TH_ERR;
  rc = g.batch ? th_tensor_resize2d(output, g.B, g.out) : th_tensor_resize1d(output, g.out);
  if (rc != TH_OK) return TH_ERR;
  th_tensor_init(&x, weight->dtype);
  th_tensor_init(&w, weight->dtype);
  th_tensor_init(&b, weight->dtype);
  rc = th_tensor_contiguous(&x, input);
  if (rc == TH_OK) rc = th_tensor_contiguous(&w, weight);
  if (rc == TH_OK && bias != NULL) rc = th_tensor_contiguous(&b, bias);
  if (rc == TH_OK)
    rc = TH_DISPATCH_FLOATING(weight->dtype, linear_forward,
                              (&g, &x, output, &w, bias ? &b : NULL, addBuffer), "Linear");
  th_tensor_clear(&x);
  th_tensor_clear(&w);
  th_tensor_clear(&b);
  return rc;
}

int th_nn_linear_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                   th_tensor *gradInput, const th_tensor *weight) {
  lgeom g;
  th_tensor go, w;
  int rc;
  if (geometry(input, weight, &g) != TH_OK || check_grad_output(gradOutput, &g, weight) != TH_OK ||
      check_same_type(gradInput, weight, "gradInput") != TH_OK)
    return TH_ERR;
  if (th_tensor_resize_as(gradInput, input) != TH_OK) return TH_ERR;
  th_tensor_init(&go, weight->dtype);
  th_tensor_init(&w, weight->dtype);
  rc = th_tensor_contiguous(&go, gradOutput);
  if (rc == TH_OK) rc = th_tensor_contiguous(&w, weight);
  if (rc == TH_OK)
    rc = TH_DISPATCH_FLOATING(weight->dtype, linear_backward, (&g, &go, gradInput, &w), "Linear");
  th_tensor_clear(&go);
  th_tensor_clear(&w);
  return rc;
}

/* 'work' becomes t when contiguous, else a contiguous copy of it */
static int writable(th_tensor *work, th_tensor *t) {
  return th_tensor_contiguous(work, t);
}

static int write_back(th_tensor *t, const th_tensor *work) {
  if (th_tensor_data(t) == th_tensor_data(work) && th_tensor_is_contiguous(t)) return TH_OK;
  return th_tensor_copy(t, work);
}

int th_nn_linear_acc_grad_params(const th_tensor *input, const th_tensor *gradOutput,
                                 th_tensor *gradWeight, th_tensor *gradBias,
                                 th_tensor *addBuffer, double scale) {
  lgeom g;
  th_tensor x, go, gw, gb;
  int rc;
  char a[128], b[128];
  if (geometry(input, gradWeight, &g) != TH_OK ||
      check_grad_output(gradOutput, &g, gradWeight) != TH_OK)
    return TH_ERR;
  if (gradBias != NULL) {
    if (check_same_type(gradBias, gradWeight, "gradBias") != TH_OK) return TH_ERR;
    if (th_tensor_numel(gradBias) != g.out)
      return th_error_set("gradBias must have %lld elements (outputSize, gradWeight %s), got %s",
                          (long long)g.out, th_tensor_sizestr(gradWeight, a, sizeof a),
                          th_tensor_sizestr(gradBias, b, sizeof b));
    if (g.batch && add_buffer(addBuffer, gradWeight, g.B) != TH_OK) return TH_ERR;
  }
  th_tensor_init(&x, gradWeight->dtype);
  th_tensor_init(&go, gradWeight->dtype);
  th_tensor_init(&gw, gradWeight->dtype);
  th_tensor_init(&gb, gradWeight->dtype);
  rc = th_tensor_contiguous(&x, input);
  if (rc == TH_OK) rc = th_tensor_contiguous(&go, gradOutput);
  if (rc == TH_OK) rc = writable(&gw, gradWeight);
  if (rc == TH_OK && gradBias != NULL) rc = writable(&gb, gradBias);
  if (rc == TH_OK)
    rc = TH_DISPATCH_FLOATING(gradWeight->dtype, linear_acc,
                              (&g, &x, &go, &gw, gradBias ? &gb : NULL, addBuffer, scale),
                              "Linear");
  if (rc == TH_OK) rc = write_back(gradWeight, &gw);
  if (rc == TH_OK && gradBias != NULL) rc = write_back(gradBias, &gb);
  th_tensor_clear(&x);
  th_tensor_clear(&go);
  th_tensor_clear(&gw);
  th_tensor_clear(&gb);
  return rc;
}
