/*
** th_nn_featlp.c: LP pooling across the feature dimension
** (nn.FeatureLPPooling): y = (sum of x^p over 'width' consecutive
** features, windows 'stride' apart)^(1/p), as Torch7's THNN computes it
** (powers and sums in double). Every input form is seen as
** B x F x A x C (missing dimensions of size 1).
*/
#include <math.h>
#include <string.h>
#include "th_nn_internal.h"
#include "th_nn_spatial.h"

typedef struct geom {
  int64_t B, F, A, C, oF;
} geom;

static int check_input(const th_tensor *t, int64_t width, int64_t stride, int batch, geom *g) {
  char a[128];
  int64_t s[4] = {1, 1, 1, 1};
  int d, off;
  if (!TH_IS_FLOATING(t->dtype))
    return th_error_set("input must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[t->dtype]);
  if (batch ? (t->ndim < 2 || t->ndim > 4) : (t->ndim < 1 || t->ndim > 3))
    return th_error_set("input must be %s, got %dD %s",
                        batch ? "2D to 4D in batch mode" : "1D to 3D in non-batch mode", t->ndim,
                        th_tensor_sizestr(t, a, sizeof a));
  if (width < 2 || width > 16) return th_error_set("width must be within 2 to 16, got %lld", (long long)width);
  if (stride < 1 || stride > 4) return th_error_set("stride must be within 1 to 4, got %lld", (long long)stride);
  off = batch ? 0 : 1;
  for (d = 0; d < t->ndim; d++) s[d + off] = t->size[d];
  g->B = s[0];
  g->F = s[1];
  g->A = s[2];
  g->C = s[3];
  if (g->F < width)
    return th_error_set("input's feature dimension (%lld) must be >= width (%lld), got %s",
                        (long long)g->F, (long long)width, th_tensor_sizestr(t, a, sizeof a));
  if (th_tensor_numel(t) == 0) return th_error_set("input is empty");
  g->oF = (g->F - width) / stride + 1;
  return TH_OK;
}

#define TH_GENERIC_FILE "../nn/generic/featlp.c"
#include "../tensor/th_generic_floating.h"

int th_nn_featlp_update_output(const th_tensor *input, th_tensor *output, double power,
                               int64_t width, int64_t stride, int batch) {
  geom g;
  th_tensor in;
  int64_t size[4];
  int rc = TH_ERR;
  if (check_input(input, width, stride, batch, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, output->dtype, "input") != TH_OK) return TH_ERR;
  memcpy(size, input->size, sizeof(int64_t) * (size_t)input->ndim);
  size[batch ? 1 : 0] = g.oF;
  th_tensor_init(&in, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK && th_nn_resize_out(output, input->ndim, size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, featlp_forward, (&in, output, &g, power, width, stride),
                              "FeatureLPPooling");
  th_tensor_clear(&in);
  return rc;
}

int th_nn_featlp_update_grad_input(const th_tensor *gradOutput, const th_tensor *input,
                                   const th_tensor *output, th_tensor *gradInput, double power,
                                   int64_t width, int64_t stride, int batch) {
  geom g;
  th_tensor in, go, out, like;
  int rc = TH_ERR;
  if (check_input(input, width, stride, batch, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, gradInput->dtype, "input") != TH_OK ||
      th_nn_check_type(gradOutput, input->dtype, "gradOutput") != TH_OK ||
      th_nn_check_type(output, input->dtype, "output") != TH_OK)
    return TH_ERR;
  th_tensor_init(&like, input->dtype);
  like.ndim = input->ndim;
  memcpy(like.size, input->size, sizeof(int64_t) * (size_t)input->ndim);
  like.size[batch ? 1 : 0] = g.oF;
  if (th_nn_check_same_size(gradOutput, &like, "gradOutput", "the output size") != TH_OK ||
      th_nn_check_same_size(output, &like, "output", "the output size; run forward first") != TH_OK)
    return TH_ERR;
  th_tensor_init(&in, input->dtype);
  th_tensor_init(&go, input->dtype);
  th_tensor_init(&out, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK && th_nn_contiguous(&go, gradOutput) == TH_OK &&
      th_nn_contiguous(&out, output) == TH_OK &&
      th_nn_resize_out(gradInput, input->ndim, input->size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, featlp_backward,
                              (&go, &in, &out, gradInput, &g, power, width, stride),
                              "FeatureLPPooling");
  th_tensor_clear(&in);
  th_tensor_clear(&go);
  th_tensor_clear(&out);
  return rc;
}
