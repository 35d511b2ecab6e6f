/*
** th_nn_upsample.c: nearest and linear up-sampling of 2D planes and 3D
** volumes (nn.SpatialUpSamplingNearest, nn.SpatialUpSamplingBilinear,
** nn.UpSampling). Inputs are seen as planes x D x H x W (D = 1 for 2D).
** Linear interpolation follows Torch7's THNN exactly: ratios and source
** positions in float, weights in 'real', corners aligned, the same order
** of operations; each axis's taps (source index, neighbour offset 0 or 1,
** weights) are tabulated once per call.
*/
#include <stdlib.h>
#include <string.h>
#include "th_nn_internal.h"
#include "th_nn_spatial.h"

typedef struct geom {
  int nsp;
  int64_t planes;
  int64_t i[3], o[3];   /* D, H, W (D = 1 when nsp == 2) */
} geom;

static int check_input(const th_tensor *input, int nsp, geom *g) {
  char a[128];
  int k;
  if (nsp != 2 && nsp != 3) return th_error_set("internal: %d spatial dimensions", nsp);
  if (!TH_IS_FLOATING(input->dtype))
    return th_error_set("input must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[input->dtype]);
  if (!(input->ndim == nsp + 1 || input->ndim == nsp + 2) || th_tensor_numel(input) == 0)
    return th_error_set("input must be %dD or %dD (batch), got %dD %s", nsp + 1, nsp + 2,
                        input->ndim, th_tensor_sizestr(input, a, sizeof a));
  g->nsp = nsp;
  g->planes = input->size[0] * (input->ndim == nsp + 2 ? input->size[1] : 1);
  g->i[0] = 1;
  for (k = 0; k < nsp; k++) g->i[3 - nsp + k] = input->size[input->ndim - nsp + k];
  return TH_OK;
}

static int out_size(const th_tensor *input, const geom *g, int64_t *size) {
  int d, k;
  for (d = 0; d < input->ndim - g->nsp; d++) size[d] = input->size[d];
  for (k = 0; k < g->nsp; k++) size[d++] = g->o[3 - g->nsp + k];
  return d;
}

/* gradOutput must be the output's size; 'fix' = 0: take the output size from it */
static int check_grad(const th_tensor *input, const th_tensor *gradOutput, geom *g, int fix) {
  th_tensor like;
  char a[128], b[128];
  int k;
  if (th_nn_check_type(gradOutput, input->dtype, "gradOutput") != TH_OK) return TH_ERR;
  if (!fix) {
    if (gradOutput->ndim != input->ndim)
      return th_error_set("gradOutput must be %dD like the input %s, got %s", input->ndim,
                          th_tensor_sizestr(input, a, sizeof a),
                          th_tensor_sizestr(gradOutput, b, sizeof b));
    g->o[0] = 1;
    for (k = 0; k < g->nsp; k++) g->o[3 - g->nsp + k] = gradOutput->size[input->ndim - g->nsp + k];
    for (k = 0; k < 3; k++)
      if (g->o[k] < 1 || g->o[k] > INT32_MAX)
        return th_error_set("gradOutput %s: output size must be positive",
                            th_tensor_sizestr(gradOutput, b, sizeof b));
  }
  th_tensor_init(&like, input->dtype);
  like.ndim = out_size(input, g, like.size);
  return th_nn_check_same_size(gradOutput, &like, "gradOutput", "the output size");
}

#define TH_GENERIC_FILE "../nn/generic/upsample.c"
#include "../tensor/th_generic_floating.h"

static int set_scale(geom *g, int64_t scale) {
  int k;
  if (scale < 1) return th_error_set("scale_factor must be a positive integer, got %lld", (long long)scale);
  g->o[0] = 1;
  for (k = 3 - g->nsp; k < 3; k++) {
    if (g->i[k] > INT32_MAX / scale)
      return th_error_set("output size %lld x %lld too large", (long long)g->i[k], (long long)scale);
    g->o[k] = g->i[k] * scale;
  }
  return TH_OK;
}

int th_nn_upnearest_update_output(const th_tensor *input, th_tensor *output, int nsp,
                                  int64_t scale) {
  geom g;
  th_tensor in;
  int64_t size[TH_MAXDIM];
  int nd, rc = TH_ERR;
  if (check_input(input, nsp, &g) != TH_OK || set_scale(&g, scale) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, output->dtype, "input") != TH_OK) return TH_ERR;
  nd = out_size(input, &g, size);
  th_tensor_init(&in, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK && th_nn_resize_out(output, nd, size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, upnearest_forward, (&in, output, &g, scale),
                              "nearest up-sampling");
  th_tensor_clear(&in);
  return rc;
}

int th_nn_upnearest_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                      th_tensor *gradInput, int nsp, int64_t scale) {
  geom g;
  th_tensor go;
  int rc = TH_ERR;
  if (check_input(input, nsp, &g) != TH_OK || set_scale(&g, scale) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, gradInput->dtype, "input") != TH_OK) return TH_ERR;
  if (check_grad(input, gradOutput, &g, 1) != TH_OK) return TH_ERR;
  th_tensor_init(&go, input->dtype);
  if (th_nn_contiguous(&go, gradOutput) == TH_OK &&
      th_nn_resize_out(gradInput, input->ndim, input->size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, upnearest_backward, (&go, gradInput, &g, scale),
                              "nearest up-sampling");
  th_tensor_clear(&go);
  return rc;
}

int th_nn_uplinear_update_output(const th_tensor *input, th_tensor *output, int nsp,
                                 const int64_t *osize) {
  geom g;
  th_tensor in;
  int64_t size[TH_MAXDIM];
  int nd, k, rc = TH_ERR;
  if (check_input(input, nsp, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, output->dtype, "input") != TH_OK) return TH_ERR;
  g.o[0] = 1;
  for (k = 0; k < nsp; k++) {
    if (osize[k] < 1 || osize[k] > INT32_MAX)
      return th_error_set("output size must be positive, got %lld", (long long)osize[k]);
    g.o[3 - nsp + k] = osize[k];
  }
  nd = out_size(input, &g, size);
  th_tensor_init(&in, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK && th_nn_resize_out(output, nd, size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, uplinear_run, (&in, output, &g, 0),
                              "linear up-sampling");
  th_tensor_clear(&in);
  return rc;
}

int th_nn_uplinear_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                     th_tensor *gradInput, int nsp) {
  geom g;
  th_tensor go;
  int rc = TH_ERR;
  if (check_input(input, nsp, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, gradInput->dtype, "input") != TH_OK) return TH_ERR;
  if (check_grad(input, gradOutput, &g, 0) != TH_OK) return TH_ERR;
  th_tensor_init(&go, input->dtype);
  if (th_nn_contiguous(&go, gradOutput) == TH_OK &&
      th_nn_resize_out(gradInput, input->ndim, input->size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, uplinear_run, (gradInput, &go, &g, 1),
                              "linear up-sampling");
  th_tensor_clear(&go);
  return rc;
}
