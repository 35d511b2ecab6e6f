/*
** th_nn_dilconv.c: dilated and depthwise 2D convolution
** (nn.SpatialDilatedConvolution, nn.SpatialDepthWiseConvolution), lowered
** to BLAS as th_nn_conv.c lowers nn.SpatialConvolution: per image and per
** group of input planes, im2col of the group's planes into a per-thread
** column buffer and one gemm with the group's kernels, on tiles of output
** rows that keep the buffer cache-sized. A plain dilated convolution has
** one group of all input planes; a depthwise one a group per input plane,
** its kernels strided in Torch7's R x nIn x kH x kW weight. Without
** dilation the columns come from th_nn_im2col (th_nn_im2col.c) itself.
** Invariants: the scratch a thread gets depends on the layer and, from
** th_nn_scratch_full batches on, not on the batch (the tile height is
** fixed by the layer), as optnet's size prediction expects; gradient sums
** are split over threads in a fixed way, so results repeat run to run.
*/
#include <limits.h>
#include <string.h>
#include <cblas.h>
#include "../tensor/th_gemm.h"
#include "../tensor/th_scratch.h"
#include "th_nn_internal.h"
#include "th_nn_temporal.h"

typedef struct geom {
  int batch;                  /* 4D input */
  int64_t B, nIn, H, W;       /* B = 1 for a single image */
  int64_t R;                  /* weight rows (nOut, or the depth multiplier) */
  int64_t G, Cg, Mg;          /* groups; input planes and output planes per group */
  int64_t nOut, oH, oW, N;    /* N = oH * oW */
  int64_t kH, kW, Kg;         /* Kg = Cg * kH * kW: a group's column rows */
  int64_t lda;                /* weight elements between a group's successive kernels */
  int64_t wg;                 /* weight elements between groups */
  int64_t bo, bg;             /* bias elements between outputs of a group, between groups */
  int64_t nW;                 /* weight elements */
  int64_t rows, tn;           /* output rows per tile, scratch columns (rows * oW) */
} geom;

/* a tile aims at this many columns, and a thread's scratch at most at
   TILE_MAX_ELEMS elements (as th_nn_conv.c) */
#define TILE_COLS 768
#define TILE_MAX_ELEMS (1 << 20)

static int check_geom(const th_tensor *input, const th_tensor *weight, const th_nn_dilconv *p,
                      geom *g) {
  char a[128];
  const th_nn_window *w = &p->w;
  int64_t k, effH, effW;
  if (th_nn_check_window(w) != TH_OK) return TH_ERR;
  if (p->dilW < 1 || p->dilH < 1)
    return th_error_set("dilation must be positive, got %lld,%lld", (long long)p->dilW,
                        (long long)p->dilH);
  if (!TH_IS_FLOATING(weight->dtype))
    return th_error_set("weight must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[weight->dtype]);
  k = w->kW * w->kH;
  g->kH = w->kH;
  g->kW = w->kW;
  if (weight->ndim == 4 && weight->size[2] == w->kH && weight->size[3] == w->kW) {
    g->R = weight->size[0];
    g->nIn = weight->size[1];
  } else if (weight->ndim == 2 && weight->size[1] % k == 0) {
    g->R = weight->size[0];
    g->nIn = weight->size[1] / k;
  } else {
    return th_error_set("weight must be nOutputPlane x nInputPlane x %lldx%lld, got %s",
                        (long long)w->kH,
                        (long long)w->kW, th_tensor_sizestr(weight, a, sizeof a));
  }
  if (g->R < 1 || g->nIn < 1)
    return th_error_set("weight must not be empty, got %s", th_tensor_sizestr(weight, a, sizeof a));
  if (th_nn_check_type(input, weight->dtype, "input") != TH_OK) return TH_ERR;
  if (!(input->ndim == 3 || input->ndim == 4) || input->size[input->ndim - 3] != g->nIn ||
      th_tensor_numel(input) == 0)
    return th_error_set("input must be 3D or 4D (batch) with %lld input planes, got %dD %s",
                        (long long)g->nIn, input->ndim, th_tensor_sizestr(input, a, sizeof a));
  g->batch = input->ndim == 4;
  g->B = g->batch ? input->size[0] : 1;
  g->H = input->size[input->ndim - 2];
  g->W = input->size[input->ndim - 1];
  effH = p->dilH * (w->kH - 1) + 1;
  effW = p->dilW * (w->kW - 1) + 1;
  if ((g->H + 2 * w->padH < effH || g->W + 2 * w->padW < effW) && effH == w->kH && effW == w->kW)
    return th_error_set("input %s is smaller than the %lldx%lld kernel (with padding %lld,%lld)",
                        th_tensor_sizestr(input, a, sizeof a), (long long)w->kW, (long long)w->kH,
                        (long long)w->padW, (long long)w->padH);
  if (g->H + 2 * w->padH < effH || g->W + 2 * w->padW < effW)
    return th_error_set("input %s is smaller than the %lldx%lld kernel (dilated to %lldx%lld, padding %lld,%lld)",
                        th_tensor_sizestr(input, a, sizeof a), (long long)w->kW, (long long)w->kH,
                        (long long)effW, (long long)effH, (long long)w->padW, (long long)w->padH);
  g->oH = (g->H + 2 * w->padH - effH) / w->dH + 1;
  g->oW = (g->W + 2 * w->padW - effW) / w->dW + 1;
  g->N = g->oH * g->oW;
  g->nW = g->R * g->nIn * k;
  if (p->depthwise) {
    g->G = g->nIn, g->Cg = 1, g->Mg = g->R;
    g->Kg = k, g->lda = g->nIn * k, g->wg = k;
    g->bo = g->nIn, g->bg = 1;
  } else {
    g->G = 1, g->Cg = g->nIn, g->Mg = g->R;
    g->Kg = g->nIn * k, g->lda = g->Kg, g->wg = g->R * g->Kg;
    g->bo = 1, g->bg = g->R;
  }
  g->nOut = g->G * g->Mg;
  if (g->Kg > INT_MAX || g->N > INT_MAX || g->Mg > INT_MAX || g->lda > INT_MAX ||
      g->nW > INT64_MAX / 2)
    return th_error_set("input %s with this kernel is too large for BLAS (matrix sizes over %d)",
                        th_tensor_sizestr(input, a, sizeof a), INT_MAX);
  /* tiles of output rows: about TILE_COLS columns, at most TILE_MAX_ELEMS scratch */
  g->rows = th_nn_tile_rows(g->Kg, g->oH, g->oW, g->Kg * TILE_COLS);
  if (g->rows * g->oW * g->Kg > TILE_MAX_ELEMS)
    g->rows = th_nn_tile_rows(g->Kg, g->oH, g->oW, TILE_MAX_ELEMS);
  g->tn = g->rows * g->oW;
  return TH_OK;
}

/* output columns [*lo, *hi) whose input column x*d + off falls in [0, W) */
static void span(int64_t W, int64_t oW, int64_t d, int64_t off, int64_t *lo, int64_t *hi) {
  int64_t l = off >= 0 ? 0 : (-off + d - 1) / d;
  int64_t h = W - 1 - off < 0 ? 0 : (W - 1 - off) / d + 1;
  if (h > oW) h = oW;
  if (l > h) l = h;
  *lo = l;
  *hi = h;
}

/* scratch: a row of columns per thread (th_nn_scratch_rows rows), and
   with 'partials' a partial gradWeight for each row but the first, after
   the rows; *rows gets the row count */
static int scratch(th_tensor *buf, const geom *g, int nt, int partials, int64_t *rows) {
  const int64_t per = g->Kg * g->tn;
  int64_t r = th_nn_scratch_rows(g->B, nt), extra = partials ? (r - 1) * g->nW : 0;
  *rows = r;
  if (r > (INT64_MAX / 2 - extra) / per)
    return th_error_set("scratch of %lld x %lld elements is too large", (long long)r,
                        (long long)per);
  return th_scratch_take1d(buf, r * per + extra);
}

#define TH_GENERIC_FILE "../nn/generic/dilconv.c"
#include "../tensor/th_generic_floating.h"

int th_nn_dilconv_update_output(const th_tensor *input, th_tensor *output,
                                const th_tensor *weight, const th_tensor *bias,
                                th_tensor *finput, const th_nn_dilconv *p) {
  geom g;
  th_tensor in, wt, bs, ws;  /* ws: the thread's scratch (th_scratch.h) */
  int64_t size[4], rows;
  int rc = TH_ERR, nt, nd;
  if (check_geom(input, weight, p, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_bias(bias, weight->dtype, g.R * g.G,
        g.G > 1 ? "nOutputPlane x nInputPlane" : "nOutputPlane", "bias") != TH_OK)
    return TH_ERR;
  if (th_nn_check_type(output, weight->dtype, "output") != TH_OK) return TH_ERR;
  if (th_nn_check_type(finput, weight->dtype, "finput") != TH_OK) return TH_ERR;
  th_tensor_init(&in, input->dtype);
  th_tensor_init(&wt, input->dtype);
  th_tensor_init(&bs, input->dtype);
  th_tensor_init(&ws, input->dtype);
  nt = th_nn_threads_for(g.B, 2 * g.nOut * g.Kg * g.N);
  nd = th_nn_out_sizes(g.batch, g.B, g.nOut, g.oH, g.oW, size);
  if (th_nn_contiguous(&in, input) != TH_OK || th_nn_contiguous(&wt, weight) != TH_OK ||
      (bias && th_nn_contiguous(&bs, bias) != TH_OK) ||
      th_tensor_resize(output, nd, size) != TH_OK || scratch(&ws, &g, nt, 0, &rows) != TH_OK)
    goto done;
  rc = TH_DISPATCH_FLOATING(input->dtype, dilconv_forward,
                            (&in, output, &wt, bias ? &bs : NULL, &ws, &g, p, nt),
                            "SpatialDilatedConvolution");
done:
  th_tensor_clear(&in);
  th_tensor_clear(&wt);
  th_tensor_clear(&bs);
  th_tensor_clear(&ws);
  return rc;
}

int th_nn_dilconv_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                    th_tensor *gradInput, const th_tensor *weight,
                                    th_tensor *fgradInput, const th_nn_dilconv *p) {
  geom g;
  th_tensor go, wt, ws;  /* ws: the thread's scratch (th_scratch.h) */
  int64_t rows;
  int rc = TH_ERR, nt;
  if (check_geom(input, weight, p, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_grad_output(gradOutput, weight->dtype, g.batch, g.B, g.nOut, g.oH, g.oW) != TH_OK)
    return TH_ERR;
  if (th_nn_check_type(gradInput, weight->dtype, "gradInput") != TH_OK) return TH_ERR;
  if (th_nn_check_type(fgradInput, weight->dtype, "fgradInput") != TH_OK) return TH_ERR;
  th_tensor_init(&go, input->dtype);
  th_tensor_init(&wt, input->dtype);
  th_tensor_init(&ws, input->dtype);
  nt = th_nn_threads_for(g.B, 2 * g.nOut * g.Kg * g.N);
  if (th_nn_contiguous(&go, gradOutput) != TH_OK || th_nn_contiguous(&wt, weight) != TH_OK ||
      th_tensor_resize(gradInput, input->ndim, input->size) != TH_OK ||
      scratch(&ws, &g, nt, 0, &rows) != TH_OK)
    goto done;
  rc = TH_DISPATCH_FLOATING(input->dtype, dilconv_backward_input,
                            (&go, gradInput, &wt, &ws, &g, p, nt),
                            "SpatialDilatedConvolution");
done:
  th_tensor_clear(&go);
  th_tensor_clear(&wt);
  th_tensor_clear(&ws);
  return rc;
}

/* accumulated tensors: a non-contiguous one goes through a contiguous copy written back */
static int end_accum(th_tensor *tmp, th_tensor *t) {
  if (tmp->storage == t->storage && tmp->offset == t->offset) return TH_OK;
  return th_tensor_copy(t, tmp);
}

int th_nn_dilconv_acc_grad_params(const th_tensor *input, const th_tensor *gradOutput,
                                  th_tensor *gradWeight, th_tensor *gradBias,
                                  th_tensor *fgradInput, const th_nn_dilconv *p, double scale) {
  geom g;
  th_tensor in, go, gw, gb, ws;  /* ws: the thread's scratch (th_scratch.h) */
  int64_t rows;
  int rc = TH_ERR, nt;
  if (check_geom(input, gradWeight, p, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_grad_output(gradOutput, input->dtype, g.batch, g.B, g.nOut, g.oH, g.oW) != TH_OK)
    return TH_ERR;
  if (th_nn_check_bias(gradBias, input->dtype, g.R * g.G,
        g.G > 1 ? "nOutputPlane x nInputPlane" : "nOutputPlane", "gradBias") != TH_OK)
    return TH_ERR;
  if (th_nn_check_type(fgradInput, input->dtype, "fgradInput") != TH_OK) return TH_ERR;
  th_tensor_init(&in, input->dtype);
  th_tensor_init(&go, input->dtype);
  th_tensor_init(&gw, input->dtype);
  th_tensor_init(&gb, input->dtype);
  th_tensor_init(&ws, input->dtype);
  nt = th_nn_threads_for(g.B, 2 * g.nOut * g.Kg * g.N);
  /* per thread a column buffer; threads > 0 also a partial gradWeight, after all the rows */
  if (th_nn_contiguous(&in, input) != TH_OK || th_nn_contiguous(&go, gradOutput) != TH_OK ||
      th_tensor_contiguous(&gw, gradWeight) != TH_OK ||
      (gradBias && th_tensor_contiguous(&gb, gradBias) != TH_OK) ||
      scratch(&ws, &g, nt, 1, &rows) != TH_OK)
    goto done;
  rc = TH_DISPATCH_FLOATING(input->dtype, dilconv_backward_params,
                            (&in, &go, &gw, gradBias ? &gb : NULL, &ws, &g, p, nt, scale, rows),
                            "SpatialDilatedConvolution");
  if (rc == TH_OK) rc = end_accum(&gw, gradWeight);
  if (rc == TH_OK && gradBias) rc = end_accum(&gb, gradBias);
done:
  th_tensor_clear(&in);
  th_tensor_clear(&go);
  th_tensor_clear(&gw);
  th_tensor_clear(&gb);
  th_tensor_clear(&ws);
  return rc;
}
