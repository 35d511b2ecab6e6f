/*
** th_nn_unpool.c: max unpooling (nn.SpatialMaxUnpooling): the inverse of
** max pooling with stride equal to kernel. Each input element goes to the
** position its pooling module's 'indices' recorded (1-based within an
** oH x oW plane); the rest of the output is zero. An index outside the
** plane is an error, never a stray write.
*/
#include <stdatomic.h>
#include <string.h>
#include "th_nn_internal.h"

typedef struct geom {
  int64_t planes, iS, oS;
} geom;

static int check_geom(const th_tensor *input, const th_tensor *indices, int64_t oW, int64_t oH,
                      geom *g) {
  char a[128];
  if (!TH_IS_FLOATING(input->dtype))
    return th_error_set("input must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[input->dtype]);
  if (!(input->ndim == 3 || input->ndim == 4) || th_tensor_numel(input) == 0)
    return th_error_set("input must be 3D or 4D (batch), got %dD %s", input->ndim,
                        th_tensor_sizestr(input, a, sizeof a));
  if (th_nn_check_indices(indices) != TH_OK) return TH_ERR;
  if (th_nn_check_same_size(input, indices, "input", "the size of the pooling module's output") !=
      TH_OK)
    return TH_ERR;
  if (oW < 1 || oH < 1)
    return th_error_set("output size must be positive, got %lldx%lld", (long long)oH, (long long)oW);
  g->planes = input->size[0] * (input->ndim == 4 ? input->size[1] : 1);
  g->iS = input->size[input->ndim - 2] * input->size[input->ndim - 1];
  g->oS = oW * oH;
  return TH_OK;
}

static int bad_indices(int64_t bad, int64_t oW, int64_t oH) {
  return th_error_set("indices hold %lld positions outside the %lldx%lld output planes (did the pooling module run on an input of this size?)",
                      (long long)bad, (long long)oH, (long long)oW);
}

#define TH_GENERIC_FILE "../nn/generic/unpool.c"
#include "../tensor/th_generic_floating.h"

int th_nn_maxunpool_update_output(const th_tensor *input, th_tensor *output,
                                  const th_tensor *indices, int64_t oW, int64_t oH) {
  geom g;
  th_tensor in, ind;
  int64_t size[4];
  int d, rc = TH_ERR;
  if (check_geom(input, indices, oW, oH, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, output->dtype, "input") != TH_OK) return TH_ERR;
  for (d = 0; d < input->ndim - 2; d++) size[d] = input->size[d];
  size[d++] = oH;
  size[d++] = oW;
  th_tensor_init(&in, input->dtype);
  th_tensor_init(&ind, TH_LONG);
  if (th_nn_contiguous(&in, input) == TH_OK && th_nn_contiguous(&ind, indices) == TH_OK &&
      th_tensor_resize(output, d, size) == TH_OK) {
    int64_t bad = TH_DISPATCH_FLOATING(input->dtype, maxunpool_forward, (&in, output, &ind, &g),
                                       "SpatialMaxUnpooling");
    rc = bad < 0 ? TH_ERR : bad > 0 ? bad_indices(bad, oW, oH) : TH_OK;
  }
  th_tensor_clear(&in);
  th_tensor_clear(&ind);
  return rc;
}

int th_nn_maxunpool_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                      th_tensor *gradInput, const th_tensor *indices, int64_t oW,
                                      int64_t oH) {
  geom g;
  th_tensor go, ind, like;
  int d, rc = TH_ERR;
  if (check_geom(input, indices, oW, oH, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, gradInput->dtype, "input") != TH_OK) return TH_ERR;
  if (th_nn_check_type(gradOutput, input->dtype, "gradOutput") != TH_OK) return TH_ERR;
  th_tensor_init(&like, input->dtype);
  for (d = 0; d < input->ndim - 2; d++) like.size[d] = input->size[d];
  like.size[d++] = oH;
  like.size[d++] = oW;
  like.ndim = d;
  if (th_nn_check_same_size(gradOutput, &like, "gradOutput", "the output size") != TH_OK)
    return TH_ERR;
  th_tensor_init(&go, input->dtype);
  th_tensor_init(&ind, TH_LONG);
  if (th_nn_contiguous(&go, gradOutput) == TH_OK && th_nn_contiguous(&ind, indices) == TH_OK &&
      th_tensor_resize(gradInput, input->ndim, input->size) == TH_OK) {
    int64_t bad = TH_DISPATCH_FLOATING(input->dtype, maxunpool_backward,
                                       (&go, gradInput, &ind, &g), "SpatialMaxUnpooling");
    rc = bad < 0 ? TH_ERR : bad > 0 ? bad_indices(bad, oW, oH) : TH_OK;
  }
  th_tensor_clear(&go);
  th_tensor_clear(&ind);
  return rc;
}
