/*
** th_nn_lrn.c: local response normalization across channels
** (nn.SpatialCrossMapLRN). Channel c is normalized by the squares of the
** channels c - pre .. c + post (pre = (size-1)/2, post = size-1-pre,
** clipped at the edges): scale = k + alpha/size * sum, out = in * scale^-beta.
** Window sums are taken directly (not as a running add/subtract) so that
** float rounding does not drift along the channels. Images of a batch run
** in parallel on th_pool, each thread with its own slice of the 'ratio'
** buffer.
*/
#include <math.h>
#include <string.h>
#include "th_nn_internal.h"
#include "../tensor/th_pool.h"
#include "../tensor/th_cpu.h"
#include "../tensor/th_scratch.h"

/* elements from which forward splits its images over threads: a window
   sum of squares and two square roots an element, about 1 ns */
#define LRN_PAR_MIN 131072

typedef struct geom {
  int64_t N, C, P;   /* images, channels, pixels per channel */
  int64_t pre, post;
} geom;

static int check_geom(const th_tensor *input, int64_t size, geom *g) {
  char a[128];
  if (!TH_IS_FLOATING(input->dtype))
    return th_error_set("input must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[input->dtype]);
  if (!(input->ndim == 3 || input->ndim == 4) || th_tensor_numel(input) == 0)
    return th_error_set("input must be 3D or 4D (batch), got %dD %s", input->ndim,
                        th_tensor_sizestr(input, a, sizeof a));
  if (size < 1) return th_error_set("size must be positive, got %lld", (long long)size);
  g->N = input->ndim == 4 ? input->size[0] : 1;
  g->C = input->size[input->ndim - 3];
  g->P = input->size[input->ndim - 2] * input->size[input->ndim - 1];
  g->pre = (size - 1) / 2;
  g->post = size - 1 - g->pre;
  return TH_OK;
}

#define TH_GENERIC_FILE "../nn/generic/lrn.c"
#include "../tensor/th_generic_floating.h"

int th_nn_lrn_update_output(const th_tensor *input, th_tensor *output, th_tensor *scale,
                            int64_t size, double alpha, double beta, double k) {
  geom g;
  th_tensor in;
  int rc = TH_ERR;
  if (check_geom(input, size, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, output->dtype, "input") != TH_OK ||
      th_nn_check_type(scale, input->dtype, "scale") != TH_OK)
    return TH_ERR;
  th_tensor_init(&in, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK &&
      th_tensor_resize(output, input->ndim, input->size) == TH_OK &&
      th_tensor_resize(scale, input->ndim, input->size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, lrn_forward,
                              (&in, output, scale, &g, alpha / (double)size, beta, k),
                              "SpatialCrossMapLRN");
  th_tensor_clear(&in);
  return rc;
}

int th_nn_lrn_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                th_tensor *gradInput, const th_tensor *scale,
                                const th_tensor *output, th_tensor *ratio, int64_t size,
                                double alpha, double beta, double k) {
  geom g;
  th_tensor in, go, sc, out, ws;  /* ws: the thread's scratch (th_scratch.h) */
  int64_t ws_size[2];
  int rc = TH_ERR, nt;
  (void)k;
  if (check_geom(input, size, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, gradInput->dtype, "input") != TH_OK ||
      th_nn_check_type(gradOutput, input->dtype, "gradOutput") != TH_OK ||
      th_nn_check_same_size(gradOutput, input, "gradOutput", "the input size") != TH_OK ||
      th_nn_check_type(scale, input->dtype, "scale") != TH_OK ||
      th_nn_check_same_size(scale, input, "scale", "the input size; run forward first") != TH_OK ||
      th_nn_check_type(input, output->dtype, "input") != TH_OK ||
      th_nn_check_same_size(output, input, "output", "the input size; run forward first") != TH_OK ||
      th_nn_check_type(ratio, input->dtype, "paddedRatio") != TH_OK)
    return TH_ERR;
  nt = th_nn_threads_for(g.N, 4 * g.C * g.P * size);
  ws_size[0] = th_nn_scratch_rows(g.N, nt), ws_size[1] = (g.C + 1) * g.P;
  th_tensor_init(&in, input->dtype);
  th_tensor_init(&go, input->dtype);
  th_tensor_init(&sc, input->dtype);
  th_tensor_init(&out, input->dtype);
  th_tensor_init(&ws, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK && th_nn_contiguous(&go, gradOutput) == TH_OK &&
      th_nn_contiguous(&sc, scale) == TH_OK && th_nn_contiguous(&out, output) == TH_OK &&
      th_tensor_resize(gradInput, input->ndim, input->size) == TH_OK &&
      th_scratch_take(&ws, 2, ws_size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, lrn_backward,
                              (&in, &go, gradInput, &sc, &out, &ws, &g,
                               2 * alpha * beta / (double)size, beta, nt),
                              "SpatialCrossMapLRN");
  th_tensor_clear(&in);
  th_tensor_clear(&go);
  th_tensor_clear(&sc);
  th_tensor_clear(&out);
  th_tensor_clear(&ws);
  return rc;
}
