/*
** th_nn_softmax.c: SoftMax and LogSoftMax over the feature dimension,
** float and double from generic/softmax.c.
** Torch7's shapes: 1D (features), 2D (batch x features), 3D (features x
** h x w, one distribution per pixel), 4D (batch x features x h x w). Each
** distribution is 'dim' values 'stride' apart; there are nframe * stride
** of them. Forward subtracts the maximum before exponentiating, so large
** inputs do not overflow; sums accumulate in double. Backward reads only
** the output: SoftMax  gi = y (go - sum(go y)),
**              LogSoftMax gi = go - exp(y) sum(go).
*/
#include <math.h>
#include "th_nn_layers.h"
#include "th_nn_internal.h"
#include "../tensor/th_error.h"
#include "../tensor/th_generic.h"

typedef struct sgeom {
  int64_t nframe, dim, stride;
} sgeom;

/* elements from which a call is split over threads */
#define SM_PAR_MIN 32768
/* pixels whose distributions are walked together (3D/4D inputs) */
#define SM_BLOCK 256

#define TH_GENERIC_FILE "../nn/generic/softmax.c"
#include "../tensor/th_generic_floating.h"

static int geometry(const th_tensor *t, sgeom *g, const char *what) {
  char a[128];
  switch (t->ndim) {
    case 1: g->nframe = 1, g->dim = t->size[0], g->stride = 1; break;
    case 2: g->nframe = t->size[0], g->dim = t->size[1], g->stride = 1; break;
    case 3: g->nframe = 1, g->dim = t->size[0], g->stride = t->size[1] * t->size[2]; break;
    case 4:
      g->nframe = t->size[0], g->dim = t->size[1], g->stride = t->size[2] * t->size[3];
      break;
    default:
      return th_error_set("%s must be 1D, 2D (batch), 3D (features x h x w) or 4D (batch x features x h x w), got %dD %s",
                          what, t->ndim, th_tensor_sizestr(t, a, sizeof a));
  }
  if (th_tensor_numel(t) == 0)
    return th_error_set("%s must not be empty, got %s", what, th_tensor_sizestr(t, a, sizeof a));
  return TH_OK;
}

int th_nn_softmax_update_output(const th_tensor *input, th_tensor *output, int islog) {
  sgeom g;
  th_tensor in;
  int rc;
  if (!TH_IS_FLOATING(input->dtype))
    return th_error_set("input must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[input->dtype]);
  if (output->dtype != input->dtype)
    return th_error_set("input must be a torch.%sTensor like the module's output (convert one with :type()), got torch.%sTensor",
                        th_dtype_name[output->dtype], th_dtype_name[input->dtype]);
  if (geometry(input, &g, "input") != TH_OK) return TH_ERR;
  th_tensor_init(&in, input->dtype);
  if (th_tensor_contiguous(&in, input) != TH_OK) return TH_ERR;
  if (th_tensor_resize_as(output, input) != TH_OK) {
    th_tensor_clear(&in);
    return TH_ERR;
  }
  rc = TH_DISPATCH_FLOATING(input->dtype, softmax_forward, (&in, output, &g, islog), "softmax");
  th_tensor_clear(&in);
  return rc;
}

int th_nn_softmax_update_grad_input(const th_tensor *gradOutput, th_tensor *gradInput,
                                    const th_tensor *output, int islog) {
  sgeom g;
  th_tensor go;
  char a[128], b[128];
  int rc;
  if (!TH_IS_FLOATING(output->dtype) || th_tensor_numel(output) == 0)
    return th_error_set("the output is empty or not floating: call updateOutput before updateGradInput");
  if (geometry(output, &g, "output") != TH_OK) return TH_ERR;
  if (!th_tensor_is_contiguous(output))
    return th_error_set("the output must be contiguous (as updateOutput leaves it)");
  if (gradOutput->dtype != output->dtype || gradInput->dtype != output->dtype)
    return th_error_set("gradOutput and gradInput must be torch.%sTensor like the output, got torch.%sTensor and torch.%sTensor",
                        th_dtype_name[output->dtype], th_dtype_name[gradOutput->dtype],
                        th_dtype_name[gradInput->dtype]);
  if (th_tensor_numel(gradOutput) != th_tensor_numel(output))
    return th_error_set("gradOutput must have as many elements as the output (%s), got %s",
                        th_tensor_sizestr(output, a, sizeof a),
                        th_tensor_sizestr(gradOutput, b, sizeof b));
  th_tensor_init(&go, output->dtype);
  if (th_tensor_contiguous(&go, gradOutput) != TH_OK) return TH_ERR;
  if (th_tensor_resize_as(gradInput, output) != TH_OK) {
    th_tensor_clear(&go);
    return TH_ERR;
  }
  rc = TH_DISPATCH_FLOATING(output->dtype, softmax_backward, (&go, gradInput, output, &g, islog),
                            "softmax");
  th_tensor_clear(&go);
  return rc;
}
