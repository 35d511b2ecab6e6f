/*
** th_nn_volpad.c: replication padding of volumes
** (nn.VolumetricReplicationPadding): each output cell copies the nearest
** input cell, index clamp(o - pad, 0, n - 1) per dimension, so negative
** pads crop (Torch7's mapping). Backward adds each gradOutput cell into
** the input cell it copied.
*/
#include <limits.h>
#include <string.h>
#include "th_nn_internal.h"
#include "th_nn_volumetric.h"

typedef struct geom {
  int64_t planes, iT, iH, iW, oT, oH, oW;
  int64_t pl, pt, pf;   /* left, top, front pads: the offsets of the mapping */
} geom;

static int check_geom(const th_tensor *input, const int64_t *pad, geom *g) {
  char a[128];
  int d;
  if (!TH_IS_FLOATING(input->dtype))
    return th_error_set("input must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[input->dtype]);
  if (!(input->ndim == 4 || input->ndim == 5) || th_tensor_numel(input) == 0)
    return th_error_set("input must be 4D or 5D (batch), got %dD %s", input->ndim,
                        th_tensor_sizestr(input, a, sizeof a));
  for (d = 0; d < 6; d++)
    if (pad[d] > INT_MAX || pad[d] < -INT_MAX)   /* sizes plus pads stay in range */
      return th_error_set("pads must be within +-%d, got %lld", INT_MAX, (long long)pad[d]);
  g->planes = input->size[0] * (input->ndim == 5 ? input->size[1] : 1);
  g->iT = input->size[input->ndim - 3];
  g->iH = input->size[input->ndim - 2];
  g->iW = input->size[input->ndim - 1];
  g->oT = g->iT + pad[4] + pad[5];
  g->oH = g->iH + pad[2] + pad[3];
  g->oW = g->iW + pad[0] + pad[1];
  g->pl = pad[0], g->pt = pad[2], g->pf = pad[4];
  if (g->oT < 1 || g->oH < 1 || g->oW < 1)
    return th_error_set("input %s padded by left %lld, right %lld, top %lld, bottom %lld, front %lld, back %lld gives an empty output (%lldx%lldx%lld)",
                        th_tensor_sizestr(input, a, sizeof a), (long long)pad[0], (long long)pad[1],
                        (long long)pad[2], (long long)pad[3], (long long)pad[4], (long long)pad[5],
                        (long long)g->oT, (long long)g->oH, (long long)g->oW);
  return TH_OK;
}

static int output_like(const th_tensor *input, const geom *g, int64_t *size) {
  const int64_t o[3] = {g->oT, g->oH, g->oW};
  return th_nn_sizes_like(input, 3, o, size);
}

static int64_t clamp(int64_t i, int64_t n) {
  return i < 0 ? 0 : i >= n ? n - 1 : i;
}

#define TH_GENERIC_FILE "../nn/generic/volpad.c"
#include "../tensor/th_generic_floating.h"

int th_nn_volreppad_update_output(const th_tensor *input, th_tensor *output, const int64_t *pad) {
  geom g;
  th_tensor in;
  int64_t size[5];
  int nd, rc = TH_ERR;
  if (check_geom(input, pad, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, output->dtype, "input") != TH_OK) return TH_ERR;
  nd = output_like(input, &g, size);
  th_tensor_init(&in, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK && th_tensor_resize(output, nd, size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, volpad, (&in, output, &g, 0),
                              "VolumetricReplicationPadding");
  th_tensor_clear(&in);
  return rc;
}

int th_nn_volreppad_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                      th_tensor *gradInput, const int64_t *pad) {
  geom g;
  th_tensor go;
  int64_t size[5];
  int rc = TH_ERR;
  if (check_geom(input, pad, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, gradInput->dtype, "input") != TH_OK) return TH_ERR;
  if (th_nn_check_grad_sizes(gradOutput, input->dtype, output_like(input, &g, size), size) != TH_OK)
    return TH_ERR;
  th_tensor_init(&go, input->dtype);
  if (th_nn_contiguous(&go, gradOutput) == TH_OK &&
      th_tensor_resize(gradInput, input->ndim, input->size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, volpad, (gradInput, &go, &g, 1),
                              "VolumetricReplicationPadding");
  th_tensor_clear(&go);
  return rc;
}
