/*
** th_nn_fullconv.c: full (transposed) convolution, nn.SpatialFullConvolution:
** the adjoint of th_nn_conv. Per image, weight^T * input gives the columns
** of the output, which col2im folds into it; backward runs im2col on
** gradOutput. As in th_nn_conv, 'finput' is per-thread forward scratch and
** 'fgradInput' per-thread backward scratch; nothing is carried between them.
*/
#include <limits.h>
#include <string.h>
#include <cblas.h>
#include "../tensor/th_gemm.h"
#include "../tensor/th_scratch.h"
#include "th_nn_internal.h"

typedef struct geom {
  int batch;
  int64_t B, nIn, iH, iW;
  int64_t nOut, oH, oW;
  int64_t K, N;   /* columns: (nOut*kH*kW) x (iH*iW) */
  int direct;     /* 1x1, stride 1, no padding */
} geom;

static int check_geom(const th_tensor *input, const th_tensor *weight, const th_nn_window *w,
                      int64_t adjW, int64_t adjH, geom *g) {
  char a[128];
  if (th_nn_check_window(w) != TH_OK) return TH_ERR;
  if (adjW < 0 || adjH < 0 || adjW >= w->dW || adjH >= w->dH)
    return th_error_set("adjW and adjH must be non-negative and smaller than dW and dH, got %lld,%lld for stride %lld,%lld",
                        (long long)adjW, (long long)adjH, (long long)w->dW, (long long)w->dH);
  if (!TH_IS_FLOATING(weight->dtype))
    return th_error_set("weight must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[weight->dtype]);
  if (weight->ndim != 4 || weight->size[2] != w->kH || weight->size[3] != w->kW)
    return th_error_set("weight must be nInputPlane x nOutputPlane x %lldx%lld, got %s",
                        (long long)w->kH, (long long)w->kW, th_tensor_sizestr(weight, a, sizeof a));
  g->nIn = weight->size[0];
  g->nOut = weight->size[1];
  if (th_nn_check_type(input, weight->dtype, "input") != TH_OK) return TH_ERR;
  if (!(input->ndim == 3 || input->ndim == 4) || input->size[input->ndim - 3] != g->nIn ||
      th_tensor_numel(input) == 0)
    return th_error_set("input must be 3D or 4D (batch) with %lld input planes, got %dD %s",
                        (long long)g->nIn, input->ndim, th_tensor_sizestr(input, a, sizeof a));
  g->batch = input->ndim == 4;
  g->B = g->batch ? input->size[0] : 1;
  g->iH = input->size[input->ndim - 2];
  g->iW = input->size[input->ndim - 1];
  g->oH = (g->iH - 1) * w->dH - 2 * w->padH + w->kH + adjH;
  g->oW = (g->iW - 1) * w->dW - 2 * w->padW + w->kW + adjW;
  if (g->oH < 1 || g->oW < 1)
    return th_error_set("input %s gives an empty output (%lldx%lld) with kernel %lldx%lld, stride %lld,%lld, padding %lld,%lld",
                        th_tensor_sizestr(input, a, sizeof a), (long long)g->oH, (long long)g->oW,
                        (long long)w->kH, (long long)w->kW, (long long)w->dW, (long long)w->dH,
                        (long long)w->padW, (long long)w->padH);
  g->K = g->nOut * w->kH * w->kW;
  g->N = g->iH * g->iW;
  g->direct = w->kW == 1 && w->kH == 1 && w->dW == 1 && w->dH == 1 && w->padW == 0 &&
              w->padH == 0;
  if (g->K > INT_MAX || g->N > INT_MAX || g->nIn > INT_MAX)
    return th_error_set("input %s with this kernel is too large for BLAS (matrix sizes over %d)",
                        th_tensor_sizestr(input, a, sizeof a), INT_MAX);
  return TH_OK;
}

#define TH_GENERIC_FILE "../nn/generic/fullconv.c"
#include "../tensor/th_generic_floating.h"

int th_nn_fullconv_update_output(const th_tensor *input, th_tensor *output, const th_tensor *weight,
                                 const th_tensor *bias, th_tensor *finput, const th_nn_window *w,
                                 int64_t adjW, int64_t adjH) {
  geom g;
  th_tensor in, wt, bs, ws;  /* ws: the thread's scratch (th_scratch.h) */
  int64_t size[4];
  int rc = TH_ERR, nt, nd;
  if (check_geom(input, weight, w, adjW, adjH, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_bias(bias, weight->dtype, g.nOut, "nOutputPlane", "bias") != TH_OK) return TH_ERR;
  if (th_nn_check_type(output, weight->dtype, "output") != TH_OK) return TH_ERR;
  if (th_nn_check_type(finput, weight->dtype, "finput") != TH_OK) return TH_ERR;
  th_tensor_init(&in, input->dtype);
  th_tensor_init(&wt, input->dtype);
  th_tensor_init(&bs, input->dtype);
  th_tensor_init(&ws, input->dtype);
  nt = th_nn_threads_for(g.B, 2 * g.nIn * g.K * g.N);
  nd = th_nn_out_sizes(g.batch, g.B, g.nOut, g.oH, g.oW, size);
  if (th_nn_contiguous(&in, input) != TH_OK || th_nn_contiguous(&wt, weight) != TH_OK ||
      (bias && th_nn_contiguous(&bs, bias) != TH_OK) || th_tensor_resize(output, nd, size) != TH_OK)
    goto done;
  if (!g.direct) {
    int64_t fs[3];
    fs[0] = th_nn_scratch_rows(g.B, nt), fs[1] = g.K, fs[2] = g.N;
    if (th_scratch_take(&ws, 3, fs) != TH_OK) goto done;
  }
  rc = TH_DISPATCH_FLOATING(input->dtype, fullconv_forward,
                            (&in, output, &wt, bias ? &bs : NULL, &ws, &g, w, nt),
                            "SpatialFullConvolution");
done:
  th_tensor_clear(&in);
  th_tensor_clear(&wt);
  th_tensor_clear(&bs);
  th_tensor_clear(&ws);
  return rc;
}

int th_nn_fullconv_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                     th_tensor *gradInput, const th_tensor *weight,
                                     th_tensor *fgradInput, const th_nn_window *w, int64_t adjW,
                                     int64_t adjH) {
  geom g;
  th_tensor go, wt, ws;  /* ws: the thread's scratch (th_scratch.h) */
  int rc = TH_ERR, nt;
  if (check_geom(input, weight, w, adjW, adjH, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_grad_output(gradOutput, weight->dtype, g.batch, g.B, g.nOut, g.oH, g.oW) != TH_OK)
    return TH_ERR;
  if (th_nn_check_type(gradInput, weight->dtype, "gradInput") != TH_OK) return TH_ERR;
  if (th_nn_check_type(fgradInput, weight->dtype, "fgradInput") != TH_OK) return TH_ERR;
  th_tensor_init(&go, input->dtype);
  th_tensor_init(&wt, input->dtype);
  th_tensor_init(&ws, input->dtype);
  nt = th_nn_threads_for(g.B, 2 * g.nIn * g.K * g.N);
  if (th_nn_contiguous(&go, gradOutput) != TH_OK || th_nn_contiguous(&wt, weight) != TH_OK ||
      th_tensor_resize(gradInput, input->ndim, input->size) != TH_OK)
    goto done;
  if (!g.direct) {
    int64_t fs[3];
    fs[0] = th_nn_scratch_rows(g.B, nt), fs[1] = g.K, fs[2] = g.N;
    if (th_scratch_take(&ws, 3, fs) != TH_OK) goto done;
  }
  rc = TH_DISPATCH_FLOATING(input->dtype, fullconv_backward_input,
                            (&go, gradInput, &wt, &ws, &g, w, nt), "SpatialFullConvolution");
done:
  th_tensor_clear(&go);
  th_tensor_clear(&wt);
  th_tensor_clear(&ws);
  return rc;
}

int th_nn_fullconv_acc_grad_params(const th_tensor *input, const th_tensor *gradOutput,
                                   th_tensor *gradWeight, th_tensor *gradBias,
                                   th_tensor *fgradInput, const th_nn_window *w, int64_t adjW,
                                   int64_t adjH, double scale) {
  geom g;
  th_tensor in, go, gw, gb, ws;  /* ws: the thread's scratch (th_scratch.h) */
  int rc = TH_ERR, nt;
  if (check_geom(input, gradWeight, w, adjW, adjH, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_grad_output(gradOutput, input->dtype, g.batch, g.B, g.nOut, g.oH, g.oW) != TH_OK)
    return TH_ERR;
  if (th_nn_check_bias(gradBias, input->dtype, g.nOut, "nOutputPlane", "gradBias") != TH_OK)
    return TH_ERR;
  if (th_nn_check_type(fgradInput, input->dtype, "fgradInput") != TH_OK) return TH_ERR;
  th_tensor_init(&in, input->dtype);
  th_tensor_init(&go, input->dtype);
  th_tensor_init(&gw, input->dtype);
  th_tensor_init(&gb, input->dtype);
  th_tensor_init(&ws, input->dtype);
  nt = th_nn_threads_for(g.B, 2 * g.nIn * g.K * g.N);
  if (th_nn_contiguous(&in, input) != TH_OK || th_nn_contiguous(&go, gradOutput) != TH_OK ||
      th_tensor_contiguous(&gw, gradWeight) != TH_OK ||
      (gradBias && th_tensor_contiguous(&gb, gradBias) != TH_OK))
    goto done;
  {
    int64_t fs[2];
    fs[0] = th_nn_scratch_rows(g.B, nt);
    fs[1] = (g.direct ? 0 : g.K * g.N) + g.nIn * g.K;
    if (th_scratch_take(&ws, 2, fs) != TH_OK) goto done;
  }
  rc = TH_DISPATCH_FLOATING(input->dtype, fullconv_backward_params,
                            (&in, &go, &gw, gradBias ? &gb : NULL, &ws, &g, w, nt, scale),
                            "SpatialFullConvolution");
  /* a non-contiguous gradient was accumulated in a copy: write it back */
  if (rc == TH_OK && gw.storage != gradWeight->storage) rc = th_tensor_copy(gradWeight, &gw);
  if (rc == TH_OK && gradBias && gb.storage != gradBias->storage) rc = th_tensor_copy(gradBias, &gb);
done:
  th_tensor_clear(&in);
  th_tensor_clear(&go);
  th_tensor_clear(&gw);
  th_tensor_clear(&gb);
  th_tensor_clear(&ws);
  return rc;
}
