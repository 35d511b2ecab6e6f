/*
** th_nn_pad.c: reflection and replication padding of 2D planes
** (nn.SpatialReflectionPadding, nn.SpatialReplicationPadding), Torch7's
** index maps with negative amounts cropping. Each output column x reads
** input column map(x - l); the maps are tabulated once per call and
** checked to stay inside the input, so the kernels never index outside.
*/
#include <stdlib.h>
#include <string.h>
#include "th_nn_internal.h"
#include "th_nn_spatial.h"

typedef struct geom {
  int64_t planes, iH, iW, oH, oW;
  int64_t *mx, *my;   /* input column of each output column, row of each row */
} geom;

static int64_t map1(int64_t p, int64_t n, th_nn_pad_mode mode) {
  if (mode == TH_NN_PAD_REPLICATE) return p < 0 ? 0 : p >= n ? n - 1 : p;
  return p < 0 ? -p : p >= n ? 2 * (n - 1) - p : p;
}

static int check_pad(const th_tensor *input, th_nn_pad_mode mode, int64_t l, int64_t r,
                     int64_t t, int64_t b, geom *g) {
  char a[128];
  int64_t i;
  const int64_t lim = (int64_t)1 << 40;
  if (!TH_IS_FLOATING(input->dtype))
    return th_error_set("input must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[input->dtype]);
  if (!(input->ndim == 3 || input->ndim == 4) || th_tensor_numel(input) == 0)
    return th_error_set("input must be 3D or 4D (batch), got %dD %s", input->ndim,
                        th_tensor_sizestr(input, a, sizeof a));
  if (l > lim || r > lim || t > lim || b > lim || l < -lim || r < -lim || t < -lim || b < -lim)
    return th_error_set("padding %lld,%lld,%lld,%lld out of range", (long long)l, (long long)r,
                        (long long)t, (long long)b);
  g->planes = input->size[0] * (input->ndim == 4 ? input->size[1] : 1);
  g->iH = input->size[input->ndim - 2];
  g->iW = input->size[input->ndim - 1];
  g->oH = g->iH + t + b;
  g->oW = g->iW + l + r;
  if (g->oH < 1 || g->oW < 1)
    return th_error_set("input %s is too small for padding l=%lld, r=%lld, t=%lld, b=%lld (output %lldx%lld)",
                        th_tensor_sizestr(input, a, sizeof a), (long long)l, (long long)r,
                        (long long)t, (long long)b, (long long)g->oH, (long long)g->oW);
  if (mode == TH_NN_PAD_REFLECT && (l >= g->iW || r >= g->iW || t >= g->iH || b >= g->iH))
    return th_error_set("reflection padding must be smaller than the input size, got l=%lld, r=%lld, t=%lld, b=%lld for input %s",
                        (long long)l, (long long)r, (long long)t, (long long)b,
                        th_tensor_sizestr(input, a, sizeof a));
  g->mx = malloc(sizeof(int64_t) * (size_t)(g->oW + g->oH));
  if (!g->mx) return th_error_set("out of memory for a %lldx%lld padding map", (long long)g->oH,
                                  (long long)g->oW);
  g->my = g->mx + g->oW;
  for (i = 0; i < g->oW; i++) g->mx[i] = map1(i - l, g->iW, mode);
  for (i = 0; i < g->oH; i++) g->my[i] = map1(i - t, g->iH, mode);
  for (i = 0; i < g->oW; i++)
    if (g->mx[i] < 0 || g->mx[i] >= g->iW) goto bad;
  for (i = 0; i < g->oH; i++)
    if (g->my[i] < 0 || g->my[i] >= g->iH) goto bad;
  return TH_OK;
bad:
  free(g->mx);
  return th_error_set("padding l=%lld, r=%lld, t=%lld, b=%lld reads outside the input %s",
                      (long long)l, (long long)r, (long long)t, (long long)b,
                      th_tensor_sizestr(input, a, sizeof a));
}

#define TH_GENERIC_FILE "../nn/generic/pad.c"
#include "../tensor/th_generic_floating.h"

int th_nn_pad_update_output(const th_tensor *input, th_tensor *output, th_nn_pad_mode mode,
                            int64_t l, int64_t r, int64_t t, int64_t b) {
  geom g;
  th_tensor in;
  int64_t size[4];
  int d, rc = TH_ERR;
  if (th_nn_check_type(input, output->dtype, "input") != TH_OK) return TH_ERR;
  if (check_pad(input, mode, l, r, t, b, &g) != TH_OK) return TH_ERR;
  for (d = 0; d < input->ndim - 2; d++) size[d] = input->size[d];
  size[d++] = g.oH;
  size[d++] = g.oW;
  th_tensor_init(&in, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK && th_nn_resize_out(output, d, size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, pad_forward, (&in, output, &g), "padding");
  th_tensor_clear(&in);
  free(g.mx);
  return rc;
}

int th_nn_pad_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                th_tensor *gradInput, th_nn_pad_mode mode, int64_t l, int64_t r,
                                int64_t t, int64_t b) {
  geom g;
  th_tensor go, like;
  int d, rc = TH_ERR;
  if (th_nn_check_type(input, gradInput->dtype, "input") != TH_OK) return TH_ERR;
  if (th_nn_check_type(gradOutput, input->dtype, "gradOutput") != TH_OK) return TH_ERR;
  if (check_pad(input, mode, l, r, t, b, &g) != TH_OK) return TH_ERR;
  th_tensor_init(&like, input->dtype);
  like.ndim = input->ndim;
  for (d = 0; d < input->ndim - 2; d++) like.size[d] = input->size[d];
  like.size[d++] = g.oH;
  like.size[d++] = g.oW;
  if (th_nn_check_same_size(gradOutput, &like, "gradOutput", "the output size") != TH_OK) {
    free(g.mx);
    return TH_ERR;
  }
  th_tensor_init(&go, input->dtype);
  if (th_nn_contiguous(&go, gradOutput) == TH_OK &&
      th_nn_resize_out(gradInput, input->ndim, input->size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, pad_backward, (&go, gradInput, &g), "padding");
  th_tensor_clear(&go);
  free(g.mx);
  return rc;
}
