/*
** th_nn_volconv.c: 3D convolution (nn.VolumetricConvolution, strided,
** padded and dilated) and its transpose (nn.VolumetricFullConvolution),
** lowered to BLAS through vol2col. Both are one "lowering" between a
** volume X that vol2col reads and a volume Y, with the weight as a
** Cy x (Cx*kT*kH*kW) matrix Wm:
**   forward lowering   Y = Wm * vol2col(X)
**   backward lowering  X = col2vol(Wm^T * Y)
**   accumulation       gradWm += scale * Y * vol2col(X)^T
** Convolution: X is the input, Y the output (weight nOut x nIn x k).
** Full convolution: X is the output, Y the input (weight nIn x nOut x k):
** its forward is the backward lowering and its gradInput the forward one.
** Columns are built a few output time-planes at a time (tiles of about
** TILE_ELEMS elements) in 'finput' (forward) or 'fgradInput' (backward),
** so no batch-sized column buffer exists; images run one after another
** with multi-threaded BLAS.
*/
#include <limits.h>
#include <string.h>
#include <cblas.h>
#include "../tensor/th_gemm.h"
#include "../tensor/th_scratch.h"
#include "th_nn_internal.h"
#include "th_nn_volumetric.h"

#ifndef TILE_ELEMS
#define TILE_ELEMS (1 << 22)
#endif

typedef struct geom {
  int batch;                  /* 5D operands */
  int64_t B;                  /* images (1 for a single volume) */
  int64_t Cx, Tx, Hx, Wx;     /* the volume vol2col reads */
  int64_t Cy, Ty, Hy, Wy;     /* the other side */
  int64_t K, N, S;            /* columns K x N per image; S = Hy * Wy */
  int64_t rows;               /* Y time-planes per tile */
} geom;

/* the weight as Cy x Cx x kT x kH x kW (or Cy x Cx*kT*kH*kW) */
static int weight_geom(const th_tensor *weight, const th_nn_vol *v, const char *layout, geom *g) {
  char a[128];
  int64_t k = v->kT * v->kH * v->kW;
  if (!TH_IS_FLOATING(weight->dtype))
    return th_error_set("weight must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[weight->dtype]);
  if (weight->ndim == 5 && weight->size[2] == v->kT && weight->size[3] == v->kH &&
      weight->size[4] == v->kW) {
    g->Cy = weight->size[0];
    g->Cx = weight->size[1];
  } else if (weight->ndim == 2 && weight->size[1] % k == 0) {
    g->Cy = weight->size[0];
    g->Cx = weight->size[1] / k;
  } else {
    return th_error_set("weight must be %s x %lldx%lldx%lld, got %s", layout, (long long)v->kT,
                        (long long)v->kH, (long long)v->kW, th_tensor_sizestr(weight, a, sizeof a));
  }
  return TH_OK;
}

/* the input: 4D or 5D with 'planes' planes; its sizes into *B, T, H, W */
static int input_geom(const th_tensor *input, int64_t planes, geom *g, int64_t *T, int64_t *H,
                      int64_t *W) {
  char a[128];
  if (!(input->ndim == 4 || input->ndim == 5) || input->size[input->ndim - 4] != planes ||
      th_tensor_numel(input) == 0)
    return th_error_set("input must be 4D or 5D (batch) with %lld input planes, got %dD %s",
                        (long long)planes, input->ndim, th_tensor_sizestr(input, a, sizeof a));
  g->batch = input->ndim == 5;
  g->B = g->batch ? input->size[0] : 1;
  *T = input->size[input->ndim - 3];
  *H = input->size[input->ndim - 2];
  *W = input->size[input->ndim - 1];
  return TH_OK;
}

/* columns, BLAS limits and the tile height, once both sides are known */
static int finish_geom(const th_tensor *input, const th_nn_vol *v, geom *g) {
  char a[128];
  g->K = g->Cx * v->kT * v->kH * v->kW;
  g->S = g->Hy * g->Wy;
  g->N = g->Ty * g->S;
  if (g->K > INT_MAX || g->N > INT_MAX || g->Cy > INT_MAX)
    return th_error_set("input %s with this kernel is too large for BLAS (matrix sizes over %d)",
                        th_tensor_sizestr(input, a, sizeof a), INT_MAX);
  g->rows = TILE_ELEMS / (g->K * g->S);
  if (g->rows < 1) g->rows = 1;
  if (g->rows > g->Ty) g->rows = g->Ty;
  return TH_OK;
}

/* output size of a convolution along one dimension; < 1 when too small */
static int64_t conv_size(int64_t in, int64_t k, int64_t d, int64_t pad, int64_t dil) {
  int64_t n = in + 2 * pad - (dil * (k - 1) + 1);
  return n < 0 ? 0 : n / d + 1;
}

static int conv_geom(const th_tensor *input, const th_tensor *weight, const th_nn_vol *v,
                     geom *g) {
  char a[128];
  if (th_nn_vol_check(v) != TH_OK) return TH_ERR;
  if (weight_geom(weight, v, "nOutputPlane x nInputPlane", g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, weight->dtype, "input") != TH_OK) return TH_ERR;
  if (input_geom(input, g->Cx, g, &g->Tx, &g->Hx, &g->Wx) != TH_OK) return TH_ERR;
  g->Ty = conv_size(g->Tx, v->kT, v->dT, v->padT, v->dilT);
  g->Hy = conv_size(g->Hx, v->kH, v->dH, v->padH, v->dilH);
  g->Wy = conv_size(g->Wx, v->kW, v->dW, v->padW, v->dilW);
  if (g->Ty < 1 || g->Hy < 1 || g->Wy < 1)
    return th_error_set("input %s is smaller than the %lldx%lldx%lld kernel (TxHxW, dilation %lld,%lld,%lld, padding %lld,%lld,%lld)",
                        th_tensor_sizestr(input, a, sizeof a), (long long)v->kT, (long long)v->kH,
                        (long long)v->kW, (long long)v->dilT, (long long)v->dilH,
                        (long long)v->dilW, (long long)v->padT, (long long)v->padH,
                        (long long)v->padW);
  return finish_geom(input, v, g);
}

static int full_geom(const th_tensor *input, const th_tensor *weight, const th_nn_vol *v,
                     const int64_t *adj, geom *g) {
  char a[128];
  if (th_nn_vol_check(v) != TH_OK) return TH_ERR;
  if (adj[0] < 0 || adj[1] < 0 || adj[2] < 0 || adj[0] >= v->dT || adj[1] >= v->dH ||
      adj[2] >= v->dW)
    return th_error_set("adjT, adjH, adjW must be at least 0 and below the stride %lld,%lld,%lld, got %lld,%lld,%lld",
                        (long long)v->dT, (long long)v->dH, (long long)v->dW, (long long)adj[0],
                        (long long)adj[1], (long long)adj[2]);
  if (weight_geom(weight, v, "nInputPlane x nOutputPlane", g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, weight->dtype, "input") != TH_OK) return TH_ERR;
  if (input_geom(input, g->Cy, g, &g->Ty, &g->Hy, &g->Wy) != TH_OK) return TH_ERR;
  /* the window parameters are below 2^31 (th_nn_vol_check): so is the
     stride, and a size below 2^31 keeps (size - 1) * stride in range */
  if (g->Ty > INT_MAX || g->Hy > INT_MAX || g->Wy > INT_MAX)
    return th_error_set("input %s is too large (a size over %d)", th_tensor_sizestr(input, a, sizeof a),
                        INT_MAX);
  g->Tx = (g->Ty - 1) * v->dT - 2 * v->padT + v->dilT * (v->kT - 1) + 1 + adj[0];
  g->Hx = (g->Hy - 1) * v->dH - 2 * v->padH + v->dilH * (v->kH - 1) + 1 + adj[1];
  g->Wx = (g->Wy - 1) * v->dW - 2 * v->padW + v->dilW * (v->kW - 1) + 1 + adj[2];
  if (g->Tx < 1 || g->Hx < 1 || g->Wx < 1)
    return th_error_set("input %s gives an empty output (%lldx%lldx%lld): the padding %lld,%lld,%lld is too large",
                        th_tensor_sizestr(input, a, sizeof a), (long long)g->Tx,
                        (long long)g->Hx, (long long)g->Wx, (long long)v->padT,
                        (long long)v->padH, (long long)v->padW);
  return finish_geom(input, v, g);
}

/* sizes of the X or Y side (with the batch dimension when batched) */
static int side_sizes(const geom *g, int x, int64_t *size) {
  int d = 0;
  if (g->batch) size[d++] = g->B;
  size[d++] = x ? g->Cx : g->Cy;
  size[d++] = x ? g->Tx : g->Ty;
  size[d++] = x ? g->Hx : g->Hy;
  size[d++] = x ? g->Wx : g->Wy;
  return d;
}

static int check_side(const th_tensor *t, const geom *g, int x, th_dtype dt, const char *what) {
  th_tensor like;
  if (th_nn_check_type(t, dt, what) != TH_OK) return TH_ERR;
  th_tensor_init(&like, dt);
  like.ndim = side_sizes(g, x, like.size);
  return th_nn_check_same_size(t, &like, what, "the output size");
}

/* the column scratch of one tile */
static int scratch(th_tensor *buf, const geom *g) {
  return th_scratch_take1d(buf, g->K * g->rows * g->S);
}

/* gradWeight/gradBias are accumulated in place: a non-contiguous one goes
   through a contiguous copy that is written back */
static int end_accum(th_tensor *tmp, th_tensor *t) {
  if (tmp->storage == t->storage && tmp->offset == t->offset) return TH_OK;
  return th_tensor_copy(t, tmp);
}

#define TH_GENERIC_FILE "../nn/generic/volconv.c"
#include "../tensor/th_generic_floating.h"

/* the three steps for either module: 'full' says which side is which */
static int update_output(const th_tensor *input, th_tensor *output, const th_tensor *weight,
                         const th_tensor *bias, th_tensor *finput, const geom *g,
                         const th_nn_vol *v, int full) {
  th_tensor in, wt, bs, ws;  /* ws: the thread's scratch (th_scratch.h) */
  int64_t size[5];
  int rc = TH_ERR;
  if (th_nn_check_bias(bias, weight->dtype, full ? g->Cx : g->Cy, "nOutputPlane", "bias") != TH_OK)
    return TH_ERR;
  if (th_nn_check_type(output, weight->dtype, "output") != TH_OK) return TH_ERR;
  if (th_nn_check_type(finput, weight->dtype, "finput") != TH_OK) return TH_ERR;
  th_tensor_init(&in, input->dtype);
  th_tensor_init(&wt, input->dtype);
  th_tensor_init(&bs, input->dtype);
  th_tensor_init(&ws, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK && th_nn_contiguous(&wt, weight) == TH_OK &&
      (bias == NULL || th_nn_contiguous(&bs, bias) == TH_OK) &&
      th_tensor_resize(output, side_sizes(g, full, size), size) == TH_OK &&
      scratch(&ws, g) == TH_OK) {
    if (full)
      rc = TH_DISPATCH_FLOATING(input->dtype, vc_backward,
                                (&in, output, &wt, bias ? &bs : NULL, &ws, g, v),
                                "VolumetricFullConvolution");
    else
      rc = TH_DISPATCH_FLOATING(input->dtype, vc_forward,
                                (&in, output, &wt, bias ? &bs : NULL, &ws, g, v),
                                "VolumetricConvolution");
  }
  th_tensor_clear(&in);
  th_tensor_clear(&wt);
  th_tensor_clear(&bs);
  th_tensor_clear(&ws);
  return rc;
}

static int update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                             th_tensor *gradInput, const th_tensor *weight,
                             th_tensor *fgradInput, const geom *g, const th_nn_vol *v,
                             int full) {
  th_tensor go, wt, ws;  /* ws: the thread's scratch (th_scratch.h) */
  int rc = TH_ERR;
  if (check_side(gradOutput, g, full, weight->dtype, "gradOutput") != TH_OK) return TH_ERR;
  if (th_nn_check_type(gradInput, weight->dtype, "gradInput") != TH_OK) return TH_ERR;
  if (th_nn_check_type(fgradInput, weight->dtype, "fgradInput") != TH_OK) return TH_ERR;
  th_tensor_init(&go, input->dtype);
  th_tensor_init(&wt, input->dtype);
  th_tensor_init(&ws, input->dtype);
  if (th_nn_contiguous(&go, gradOutput) == TH_OK && th_nn_contiguous(&wt, weight) == TH_OK &&
      th_tensor_resize(gradInput, input->ndim, input->size) == TH_OK &&
      scratch(&ws, g) == TH_OK) {
    if (full)
      rc = TH_DISPATCH_FLOATING(input->dtype, vc_forward,
                                (&go, gradInput, &wt, NULL, &ws, g, v),
                                "VolumetricFullConvolution");
    else
      rc = TH_DISPATCH_FLOATING(input->dtype, vc_backward,
                                (&go, gradInput, &wt, NULL, &ws, g, v),
                                "VolumetricConvolution");
  }
  th_tensor_clear(&go);
  th_tensor_clear(&wt);
  th_tensor_clear(&ws);
  return rc;
}

static int acc_grad_params(const th_tensor *input, const th_tensor *gradOutput,
                           th_tensor *gradWeight, th_tensor *gradBias, th_tensor *fgradInput,
                           const geom *g, const th_nn_vol *v, int full, double scale) {
  th_tensor in, go, gw, gb, ws;  /* ws: the thread's scratch (th_scratch.h) */
  int rc = TH_ERR;
  th_dtype dt = input->dtype;
  if (check_side(gradOutput, g, full, dt, "gradOutput") != TH_OK) return TH_ERR;
  if (th_nn_check_bias(gradBias, dt, full ? g->Cx : g->Cy, "nOutputPlane", "gradBias") != TH_OK)
    return TH_ERR;
  if (th_nn_check_type(fgradInput, dt, "fgradInput") != TH_OK) return TH_ERR;
  th_tensor_init(&in, dt);
  th_tensor_init(&go, dt);
  th_tensor_init(&gw, dt);
  th_tensor_init(&gb, dt);
  th_tensor_init(&ws, dt);
  if (th_nn_contiguous(&in, input) == TH_OK && th_nn_contiguous(&go, gradOutput) == TH_OK &&
      th_tensor_contiguous(&gw, gradWeight) == TH_OK &&
      (gradBias == NULL || th_tensor_contiguous(&gb, gradBias) == TH_OK) &&
      scratch(&ws, g) == TH_OK) {
    /* X is what vol2col reads: the input of a convolution, the gradOutput of a full one */
    const th_tensor *x = full ? &go : &in, *y = full ? &in : &go;
    rc = TH_DISPATCH_FLOATING(dt, vc_accum,
                              (x, y, &gw, gradBias ? &gb : NULL, &go, &ws, g, v, full,
                               scale),
                              full ? "VolumetricFullConvolution" : "VolumetricConvolution");
    if (rc == TH_OK) rc = end_accum(&gw, gradWeight);
    if (rc == TH_OK && gradBias) rc = end_accum(&gb, gradBias);
  }
  th_tensor_clear(&in);
  th_tensor_clear(&go);
  th_tensor_clear(&gw);
  th_tensor_clear(&gb);
  th_tensor_clear(&ws);
  return rc;
}

int th_nn_volconv_update_output(const th_tensor *input, th_tensor *output,
                                const th_tensor *weight, const th_tensor *bias,
                                th_tensor *finput, const th_nn_vol *v) {
  geom g;
  if (conv_geom(input, weight, v, &g) != TH_OK) return TH_ERR;
  return update_output(input, output, weight, bias, finput, &g, v, 0);
}

int th_nn_volconv_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                    th_tensor *gradInput, const th_tensor *weight,
                                    th_tensor *fgradInput, const th_nn_vol *v) {
  geom g;
  if (conv_geom(input, weight, v, &g) != TH_OK) return TH_ERR;
  return update_grad_input(input, gradOutput, gradInput, weight, fgradInput, &g, v, 0);
}

int th_nn_volconv_acc_grad_params(const th_tensor *input, const th_tensor *gradOutput,
                                  th_tensor *gradWeight, th_tensor *gradBias,
                                  th_tensor *fgradInput, const th_nn_vol *v, double scale) {
  geom g;
  if (conv_geom(input, gradWeight, v, &g) != TH_OK) return TH_ERR;
  return acc_grad_params(input, gradOutput, gradWeight, gradBias, fgradInput, &g, v, 0, scale);
}

int th_nn_volfullconv_update_output(const th_tensor *input, th_tensor *output,
                                    const th_tensor *weight, const th_tensor *bias,
                                    th_tensor *finput, const th_nn_vol *v, const int64_t *adj) {
  geom g;
  if (full_geom(input, weight, v, adj, &g) != TH_OK) return TH_ERR;
  return update_output(input, output, weight, bias, finput, &g, v, 1);
}

int th_nn_volfullconv_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                        th_tensor *gradInput, const th_tensor *weight,
                                        th_tensor *fgradInput, const th_nn_vol *v,
                                        const int64_t *adj) {
  geom g;
  if (full_geom(input, weight, v, adj, &g) != TH_OK) return TH_ERR;
  return update_grad_input(input, gradOutput, gradInput, weight, fgradInput, &g, v, 1);
}

int th_nn_volfullconv_acc_grad_params(const th_tensor *input, const th_tensor *gradOutput,
                                      th_tensor *gradWeight, th_tensor *gradBias,
                                      th_tensor *fgradInput, const th_nn_vol *v,
                                      const int64_t *adj, double scale) {
  geom g;
  if (full_geom(input, gradWeight, v, adj, &g) != TH_OK) return TH_ERR;
  return acc_grad_params(input, gradOutput, gradWeight, gradBias, fgradInput, &g, v, 1, scale);
}
