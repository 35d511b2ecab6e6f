/*
** th_nn_conv.c: 2D convolution (nn.SpatialConvolution) lowered to BLAS:
** im2col builds (nIn*kH*kW) x positions columns in a per-thread buffer and
** one gemm with the nOut x (nIn*kH*kW) weight gives the output; 1x1
** stride-1 unpadded kernels use the image as its own columns (but on
** images under a quarter tile with enough output planes, grouped like the
** others), and any unpadded 1x1 writes its gradInput straight from the
** product, rows at a time; gradBias is summed beside gradWeight.
** A gemm runs near peak only with a few hundred columns, so the work is
** cut into tiles of about TILE_COLS columns: a large image into tiles of
** output rows, small images (13x13, 8x8) grouped G at a time side by side
** in one column matrix, their outputs gathered and scattered around the
** gemm. Tiles of a batch run in parallel (th_nn_threads_for), each thread
** with single-threaded BLAS.
** Backward re-derives the columns instead of keeping a whole batch of them
** from forward: the buffers stay per-thread and cache-sized, 'finput' is
** forward-only and 'fgradInput' backward-only scratch.
*/
#include <limits.h>
#include <string.h>
#include <cblas.h>
#include "../tensor/th_gemm.h"
#include "th_nn_internal.h"
#include "../tensor/th_pool.h"
#include "../tensor/th_scratch.h"
#include "../tensor/th_cpu.h"

typedef struct geom {
  int batch;                      /* 4D input */
  int64_t B, nIn, iH, iW;         /* B = 1 for a single image */
  int64_t nOut, oH, oW;
  int64_t K, N;                   /* an image's columns are K x N */
  int64_t rows;                   /* G == 1: output rows per tile */
  int64_t G;                      /* images per tile (then whole images) */
  int64_t tn;                     /* columns of a tile: rows * oW or G * N */
  int64_t units;                  /* tiles of images: ceil(B / G) */
  int64_t tnmax;                  /* columns of the widest tile any batch gets */
  int direct;                     /* 1x1, stride 1, no padding: no im2col */
  int one;                        /* 1x1, no padding (any stride): gradInput scattered */
} geom;

/* columns a tile aims at, and the cap on a thread's scratch (elements) */
#ifndef TILE_COLS
#define TILE_COLS 768
#endif
#ifndef TILE_MAX_ELEMS
#define TILE_MAX_ELEMS (1 << 20)
#endif
/* output planes from which a 1x1 on small images is grouped, per phase:
   the copies (input columns, gradInput's scatter, both for gradWeight)
   pay for themselves at different product sizes (docs/dev/conv1x1.md) */
#define GROUP_OUT_FORWARD 256
#define GROUP_OUT_GRAD_INPUT 128
#define GROUP_OUT_GRAD_WEIGHT 512

static int check_geom(const th_tensor *input, const th_tensor *weight, const th_nn_window *w,
                      geom *g) {
  char a[128];
  int64_t k = w->kW * w->kH;
  if (th_nn_check_window(w) != TH_OK) return TH_ERR;
  if (!TH_IS_FLOATING(weight->dtype))
    return th_error_set("weight must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[weight->dtype]);
  if (weight->ndim == 4 && weight->size[2] == w->kH && weight->size[3] == w->kW) {
    g->nOut = weight->size[0];
    g->nIn = weight->size[1];
  } else if (weight->ndim == 2 && weight->size[1] % k == 0) {
    g->nOut = weight->size[0];
    g->nIn = weight->size[1] / k;
  } else {
    return th_error_set("weight must be nOutputPlane x nInputPlane x %lldx%lld, got %s",
                        (long long)w->kH, (long long)w->kW,
                        th_tensor_sizestr(weight, a, sizeof a));
  }
  if (th_nn_check_type(input, weight->dtype, "input") != TH_OK) return TH_ERR;
  if (!(input->ndim == 3 || input->ndim == 4) || input->size[input->ndim - 3] != g->nIn ||
      th_tensor_numel(input) == 0)
    return th_error_set("input must be 3D or 4D (batch) with %lld input planes, got %dD %s",
                        (long long)g->nIn, input->ndim, th_tensor_sizestr(input, a, sizeof a));
  g->batch = input->ndim == 4;
  g->B = g->batch ? input->size[0] : 1;
  g->iH = input->size[input->ndim - 2];
  g->iW = input->size[input->ndim - 1];
  if (g->iH + 2 * w->padH < w->kH || g->iW + 2 * w->padW < w->kW)
    return th_error_set("input %s is smaller than the %lldx%lld kernel (with padding %lld,%lld)",
                        th_tensor_sizestr(input, a, sizeof a), (long long)w->kH,
                        (long long)w->kW, (long long)w->padW, (long long)w->padH);
  g->oH = (g->iH + 2 * w->padH - w->kH) / w->dH + 1;
  g->oW = (g->iW + 2 * w->padW - w->kW) / w->dW + 1;
  g->K = g->nIn * k;
  g->N = g->oH * g->oW;
  g->one = w->kW == 1 && w->kH == 1 && w->padW == 0 && w->padH == 0;
  g->direct = g->one && w->dW == 1 && w->dH == 1;
  if (g->K > INT_MAX || g->N > INT_MAX || g->nOut > INT_MAX)
    return th_error_set("input %s with this kernel is too large for BLAS (matrix sizes over %d)",
                        th_tensor_sizestr(input, a, sizeof a), INT_MAX);
  return TH_OK;
}

/* the direct kernels (th_nn_convdirect.c), stride 1 or 2 */
static int direct_chosen(const geom *g, const th_nn_window *w, th_dtype dt, int phase) {
  return th_nn_convdirect_chosen(w, dt, phase, g->nIn, g->nOut, g->oH, g->oW) ||
         th_nn_convdirect_strided_chosen(w, dt, phase, g->nIn, g->nOut, g->iH, g->iW);
}

/* tiles for nt threads: rows of one image when an image has TILE_COLS
   positions or more (or is direct: its columns are the image), else G
   whole images, with at least as many tiles as threads */
static void plan_tiles(geom *g, int nt, int64_t group_out) {
  int64_t per = g->K + g->nOut, cap, G;  /* scratch per column: im2col + gathered output */
  /* a 1x1 on images of under TILE_COLS / 4 positions (7x7) is grouped too,
     its columns copied, from 'group_out' output planes on: per-image
     products of 49 columns ran at two thirds of the grouped speed, but
     with few output planes the copies cost more than they save, and at
     14x14 grouping lost (docs/dev/conv1x1.md) */
  if (g->direct && g->B > 1 && 4 * g->N < TILE_COLS && g->nOut >= group_out) g->direct = 0;
  if (g->direct || g->N >= TILE_COLS) {
    g->G = 1;
    g->rows = th_nn_tile_rows(g->K, g->oH, g->oW, g->K * TILE_COLS);
    /* a strided 1x1's columns are the subsampled image: taken whole, one
       gemm per image as the stride-1 1x1 does with the image itself, up
       to two tiles' columns (the ResNet shortcuts from 56x56: 0.75-0.9 of
       the time of two 392-column tiles, docs/dev/strided.md) */
    if (g->one && !g->direct && g->N <= 2 * TILE_COLS && g->K * g->N <= TILE_MAX_ELEMS)
      g->rows = g->oH;
    cap = TILE_MAX_ELEMS / (g->K * g->oW);
    if (g->rows > cap) g->rows = th_nn_tile_rows(g->K, g->oH, g->oW, TILE_MAX_ELEMS);
    g->tn = g->rows * g->oW;
    g->tnmax = g->tn;
  } else {
    int64_t k;
    G = (TILE_COLS + g->N - 1) / g->N;
    cap = TILE_MAX_ELEMS / (per * g->N);
    if (G > cap) G = cap;
    if (G < 1) G = 1;
    g->tnmax = G * g->N;
    /* k tiles per thread, as few as G allows, then the images spread
       evenly over the nt * k tiles (16 images, G 6, 2 threads: 4 tiles of 4) */
    k = (g->B + nt * G - 1) / (nt * G);
    G = (g->B + nt * k - 1) / (nt * k);
    g->G = G < 1 ? 1 : G;
    g->rows = g->oH;
    g->tn = G * g->N;
  }
  g->units = (g->B + g->G - 1) / g->G;
}

/* per-thread scratch (elements): columns, and for grouped images the
   gathered output; 'extra' more for the caller (a partial gradWeight) */
static int64_t scratch(const geom *g, int64_t extra) {
  return (g->direct ? 0 : g->K * g->tn) + (g->G > 1 ? g->nOut * g->tn : 0) + extra;
}

/* the scratch row allocated: from th_nn_scratch_full batches on, the
   widest tile any batch gets, so that its size does not depend on the
   batch; the kernels use the first 'scratch' elements */
static int64_t scratch_alloc(const geom *g, int64_t extra) {
  if (!th_nn_scratch_full(g->B)) return scratch(g, extra);
  return (g->direct ? 0 : g->K * g->tnmax) + (g->tnmax > g->N ? g->nOut * g->tnmax : 0) + extra;
}

/* gradWeight/gradBias are accumulated in place: a non-contiguous one goes
   through a contiguous copy that is written back */
static int begin_accum(th_tensor *tmp, th_tensor *t) {
  return th_tensor_contiguous(tmp, t);
}

static int end_accum(th_tensor *tmp, th_tensor *t) {
  if (tmp->storage == t->storage && tmp->offset == t->offset) return TH_OK;
  return th_tensor_copy(t, tmp);
}

#define TH_GENERIC_FILE "../nn/generic/conv.c"
#include "../tensor/th_generic_floating.h"

int th_nn_conv_update_output(const th_tensor *input, th_tensor *output, const th_tensor *weight,
                             const th_tensor *bias, th_tensor *finput, const th_nn_window *w) {
  geom g;
  th_tensor in, wt, bs, ws;  /* ws: the thread's scratch (th_scratch.h) */
  int64_t size[4];
  int rc = TH_ERR, nt, nd, m;
  if (check_geom(input, weight, w, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_bias(bias, weight->dtype, g.nOut, "nOutputPlane", "bias") != TH_OK) return TH_ERR;
  if (th_nn_check_type(output, weight->dtype, "output") != TH_OK) return TH_ERR;
  if (th_nn_check_type(finput, weight->dtype, "finput") != TH_OK) return TH_ERR;
  th_tensor_init(&in, input->dtype);
  th_tensor_init(&wt, input->dtype);
  th_tensor_init(&bs, input->dtype);
  th_tensor_init(&ws, input->dtype);
  nt = th_nn_threads_for(g.B, 2 * g.nOut * g.K * g.N);
  plan_tiles(&g, nt, GROUP_OUT_FORWARD);
  nd = th_nn_out_sizes(g.batch, g.B, g.nOut, g.oH, g.oW, size);
  if (th_nn_contiguous(&in, input) != TH_OK || th_nn_contiguous(&wt, weight) != TH_OK ||
      (bias && th_nn_contiguous(&bs, bias) != TH_OK) || th_tensor_resize(output, nd, size) != TH_OK)
    goto done;
  if (direct_chosen(&g, w, input->dtype, TH_NN_WINO_FORWARD)) {
    rc = th_nn_convdirect_forward(&in, output, &wt, bias ? &bs : NULL, &ws, w, g.B, g.nIn, g.nOut);
    goto done;
  }
  if ((m = th_nn_winograd_chosen(w, TH_NN_WINO_FORWARD, g.nIn, g.nOut, g.oH, g.oW)) != 0) {
    rc = th_nn_winograd_forward(&in, output, &wt, bias ? &bs : NULL, &ws, w, m, g.B, g.nIn,
                                g.nOut);
    goto done;
  }
  if (scratch(&g, 0) > 0) {
    int64_t fs[2];
    fs[0] = th_nn_scratch_rows(g.B, nt), fs[1] = scratch_alloc(&g, 0);
    if (th_scratch_take(&ws, 2, fs) != TH_OK) goto done;
  }
  rc = TH_DISPATCH_FLOATING(input->dtype, conv_forward,
                            (&in, output, &wt, bias ? &bs : NULL, &ws, &g, w, nt),
                            "SpatialConvolution");
done:
  th_tensor_clear(&in);
  th_tensor_clear(&wt);
  th_tensor_clear(&bs);
  th_tensor_clear(&ws);
  return rc;
}

int th_nn_conv_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                 th_tensor *gradInput, const th_tensor *weight,
                                 th_tensor *fgradInput, const th_nn_window *w) {
  geom g;
  th_tensor go, wt, ws;  /* ws: the thread's scratch (th_scratch.h) */
  int rc = TH_ERR, nt, m;
  if (check_geom(input, weight, w, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_grad_output(gradOutput, weight->dtype, g.batch, g.B, g.nOut, g.oH, g.oW) != TH_OK)
    return TH_ERR;
  if (th_nn_check_type(gradInput, weight->dtype, "gradInput") != TH_OK) return TH_ERR;
  if (th_nn_check_type(fgradInput, weight->dtype, "fgradInput") != TH_OK) return TH_ERR;
  th_tensor_init(&go, input->dtype);
  th_tensor_init(&wt, input->dtype);
  th_tensor_init(&ws, input->dtype);
  nt = th_nn_threads_for(g.B, 2 * g.nOut * g.K * g.N);
  plan_tiles(&g, nt, GROUP_OUT_GRAD_INPUT);
  if (th_nn_contiguous(&go, gradOutput) != TH_OK || th_nn_contiguous(&wt, weight) != TH_OK ||
      th_tensor_resize(gradInput, input->ndim, input->size) != TH_OK)
    goto done;
  if (direct_chosen(&g, w, input->dtype, TH_NN_WINO_GRAD_INPUT)) {
    rc = th_nn_convdirect_backward_input(&go, gradInput, &wt, &ws, w, g.B, g.nIn, g.nOut);
    goto done;
  }
  if ((m = th_nn_winograd_chosen(w, TH_NN_WINO_GRAD_INPUT, g.nIn, g.nOut, g.oH, g.oW)) != 0) {
    rc = th_nn_winograd_backward_input(&go, gradInput, &wt, &ws, w, m, g.B, g.nIn, g.nOut);
    goto done;
  }
  if (scratch(&g, 0) > 0) {
    int64_t fs[2];
    fs[0] = th_nn_scratch_rows(g.B, nt), fs[1] = scratch_alloc(&g, 0);
    if (th_scratch_take(&ws, 2, fs) != TH_OK) goto done;
  }
  rc = TH_DISPATCH_FLOATING(input->dtype, conv_backward_input,
                            (&go, gradInput, &wt, &ws, &g, w, nt), "SpatialConvolution");
done:
  th_tensor_clear(&go);
  th_tensor_clear(&wt);
  th_tensor_clear(&ws);
  return rc;
}

int th_nn_conv_acc_grad_params(const th_tensor *input, const th_tensor *gradOutput,
                               th_tensor *gradWeight, th_tensor *gradBias, th_tensor *fgradInput,
                               const th_nn_window *w, double scale) {
  geom g;
  th_tensor in, go, gw, gb, ws;  /* ws: the thread's scratch (th_scratch.h) */
  int rc = TH_ERR, nt, direct, m;
  if (check_geom(input, gradWeight, w, &g) != TH_OK) return TH_ERR;
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
  nt = th_nn_threads_for(g.B, 2 * g.nOut * g.K * g.N);
  plan_tiles(&g, nt, GROUP_OUT_GRAD_WEIGHT);
  if (th_nn_contiguous(&in, input) != TH_OK || th_nn_contiguous(&go, gradOutput) != TH_OK ||
      begin_accum(&gw, gradWeight) != TH_OK || (gradBias && begin_accum(&gb, gradBias) != TH_OK))
    goto done;
  direct = direct_chosen(&g, w, input->dtype, TH_NN_WINO_GRAD_WEIGHT);
  m = direct ? 0 : th_nn_winograd_chosen(w, TH_NN_WINO_GRAD_WEIGHT, g.nIn, g.nOut, g.oH, g.oW);
  if (direct || m) {
    rc = direct ? th_nn_convdirect_backward_params(&in, &go, &gw, &ws, w, g.B, g.nIn,
                                                   g.nOut, scale)
                : th_nn_winograd_backward_params(&in, &go, &gw, &ws, w, m, g.B, g.nIn, g.nOut,
                                                 scale);
    if (rc == TH_OK && gradBias)
      rc = TH_DISPATCH_FLOATING(input->dtype, conv_bias_only, (&go, &gb, &g, scale),
                                "SpatialConvolution");
  } else {
    /* per thread a scratch row; a partial gradWeight for threads > 0 only
       (thread 0 sums into gradWeight itself), after all the rows */
    int64_t rows = th_nn_scratch_rows(g.B, nt), part = scratch_alloc(&g, 0);
    /* then, with a gradBias, each thread's plane sums (accreal: 2 floats) */
    int64_t bsums = gradBias ? 2 * rows * g.nOut + 1 : 0;
    if (th_scratch_take1d(&ws, rows * part + (rows - 1) * g.nOut * g.K + bsums) != TH_OK) goto done;
    rc = TH_DISPATCH_FLOATING(input->dtype, conv_backward_params,
                              (&in, &go, &gw, gradBias ? &gb : NULL, &ws, &g, w, nt, scale, rows,
                               part),
                              "SpatialConvolution");
  }
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
