/*
** th_nn_winpool.c: max and average pooling where each output row and
** column has its own input span (nn.SpatialDilatedMaxPooling,
** nn.SpatialAdaptiveMaxPooling, nn.SpatialAdaptiveAveragePooling,
** nn.SpatialFractionalMaxPooling). Each module turns its geometry into
** 'spans' (first row, end row, row step per output row; the same for
** columns; per plane for the fractional module), checked to lie inside the
** image before any kernel reads through them; one max kernel and one
** average kernel then serve all four. Max pooling records 1-based plane
** positions in 'indices' (0: an empty window), and one scatter serves
** every backward.
*/
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "th_nn_internal.h"
#include "th_nn_spatial.h"

typedef struct geom {
  int64_t planes;   /* batch x channels */
  int64_t nchan;    /* channels: planes of one image */
  int64_t iH, iW, oH, oW;
} geom;

/* row r of output uses input rows y0[r], y0[r] + sy, ... < y1[r]; 'stride'
   is how far one plane's row tables are from the next (0: shared) */
typedef struct spans {
  int64_t *y0, *y1, *x0, *x1;
  int64_t sy, sx, stride_y, stride_x;
} spans;

static int check_input(const th_tensor *input, geom *g) {
  char a[128];
  if (!TH_IS_FLOATING(input->dtype))
    return th_error_set("input must be a torch.FloatTensor or torch.DoubleTensor, got torch.%sTensor",
                        th_dtype_name[input->dtype]);
  if (!(input->ndim == 3 || input->ndim == 4) || th_tensor_numel(input) == 0)
    return th_error_set("input must be 3D or 4D (batch), got %dD %s", input->ndim,
                        th_tensor_sizestr(input, a, sizeof a));
  g->nchan = input->size[input->ndim - 3];
  g->planes = input->size[0] * (input->ndim == 4 ? input->size[1] : 1);
  g->iH = input->size[input->ndim - 2];
  g->iW = input->size[input->ndim - 1];
  return TH_OK;
}

static int output_like(const th_tensor *input, const geom *g, int64_t *size) {
  const int64_t o[2] = {g->oH, g->oW};
  return th_nn_sizes_like(input, 2, o, size);
}

static int spans_alloc(spans *s, int64_t ny, int64_t nx) {
  memset(s, 0, sizeof *s);
  if (ny > INT64_MAX / 2 / (int64_t)sizeof(int64_t) || nx > INT64_MAX / 2 / (int64_t)sizeof(int64_t))
    return th_error_set("output too large (%lld x %lld windows)", (long long)ny, (long long)nx);
  s->y0 = malloc(sizeof(int64_t) * (size_t)(2 * ny + 1));
  s->x0 = malloc(sizeof(int64_t) * (size_t)(2 * nx + 1));
  if (!s->y0 || !s->x0) {
    free(s->y0);
    free(s->x0);
    s->y0 = s->x0 = NULL;
    return th_error_set("out of memory for %lld + %lld pooling windows", (long long)ny, (long long)nx);
  }
  s->y1 = s->y0 + ny;
  s->x1 = s->x0 + nx;
  s->sy = s->sx = 1;
  return TH_OK;
}

static void spans_free(spans *s) {
  free(s->y0);
  free(s->x0);
}

/* the invariant every kernel relies on: spans read only inside the image */
static int spans_check(const spans *s, int64_t ny, int64_t nx, int64_t iH, int64_t iW) {
  int64_t i;
  for (i = 0; i < ny; i++)
    if (s->y0[i] < 0 || s->y1[i] > iH || s->y0[i] > s->y1[i])
      return th_error_set("internal: pooling window rows %lld..%lld outside 0..%lld",
                          (long long)s->y0[i], (long long)s->y1[i], (long long)iH);
  for (i = 0; i < nx; i++)
    if (s->x0[i] < 0 || s->x1[i] > iW || s->x0[i] > s->x1[i])
      return th_error_set("internal: pooling window columns %lld..%lld outside 0..%lld",
                          (long long)s->x0[i], (long long)s->x1[i], (long long)iW);
  return TH_OK;
}

/* the kernels of this family write results in order: a result tensor
   that keeps a strided view of the right size (a Torch7 file's expanded
   buffer) is refused rather than written through its strides */
int th_nn_resize_out(th_tensor *t, int ndim, const int64_t *size) {
  char a[128];
  if (th_tensor_resize(t, ndim, size) != TH_OK) return TH_ERR;
  if (!th_tensor_is_contiguous(t))
    return th_error_set("result tensor %s is a non-contiguous view; give it its own memory (t:set())",
                        th_tensor_sizestr(t, a, sizeof a));
  return TH_OK;
}

#define TH_GENERIC_FILE "../nn/generic/winpool.c"
#include "../tensor/th_generic_floating.h"

/* resize output and indices, run the max kernel over 'sp' */
static int run_max(const th_tensor *input, th_tensor *output, th_tensor *indices, const geom *g,
                   const spans *sp, const char *name) {
  th_tensor in;
  int64_t size[4];
  int nd, rc = TH_ERR;
  if (th_nn_check_type(input, output->dtype, "input") != TH_OK) return TH_ERR;
  if (th_nn_check_indices(indices) != TH_OK) return TH_ERR;
  nd = output_like(input, g, size);
  th_tensor_init(&in, input->dtype);
  if (th_nn_contiguous(&in, input) == TH_OK && th_nn_resize_out(output, nd, size) == TH_OK &&
      th_nn_resize_out(indices, nd, size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, winmax_forward, (&in, output, indices, g, sp), name);
  th_tensor_clear(&in);
  return rc;
}

/* Torch7's dilated output size (computed in float, as THNN does) */
static int64_t dil_output_size(int64_t in, int64_t k, int64_t d, int64_t pad, int64_t dil,
                               int ceil_mode) {
  double n = (double)(in - (dil * (k - 1) + 1) + 2 * pad) / (double)d;
  int64_t o = (int64_t)(ceil_mode ? ceil(n) : floor(n)) + 1;
  if (pad && (o - 1) * d >= in + pad) o--;
  return o;
}

static void dil_spans(int64_t *a0, int64_t *a1, int64_t n, int64_t k, int64_t d, int64_t pad,
                      int64_t dil, int64_t in) {
  int64_t o;
  for (o = 0; o < n; o++) {
    int64_t s = o * d - pad, e = s + (k - 1) * dil + 1;
    if (e > in) e = in;
    while (s < 0) s += dil;
    if (s > e) s = e;
    a0[o] = s;
    a1[o] = e;
  }
}

int th_nn_dilmaxpool_update_output(const th_tensor *input, th_tensor *output, th_tensor *indices,
                                   const th_nn_window *w, int64_t dilW, int64_t dilH,
                                   int ceil_mode) {
  geom g;
  spans sp;
  char a[128];
  int rc;
  if (th_nn_check_window(w) != TH_OK) return TH_ERR;
  if (dilW < 1 || dilH < 1)
    return th_error_set("dilation must be positive, got %lld,%lld", (long long)dilW,
                        (long long)dilH);
  if (w->kW > (INT64_MAX / 4) / dilW || w->kH > (INT64_MAX / 4) / dilH)
    return th_error_set("dilated kernel too large");
  if (w->padW > w->kW / 2 || w->padH > w->kH / 2)
    return th_error_set("padding must be at most half the kernel size, got padding %lld,%lld for kernel %lldx%lld",
                        (long long)w->padW, (long long)w->padH, (long long)w->kW, (long long)w->kH);
  if (check_input(input, &g) != TH_OK) return TH_ERR;
  g.oH = dil_output_size(g.iH, w->kH, w->dH, w->padH, dilH, ceil_mode);
  g.oW = dil_output_size(g.iW, w->kW, w->dW, w->padW, dilW, ceil_mode);
  if (g.oH < 1 || g.oW < 1)
    return th_error_set("input %s is smaller than the %lldx%lld window (dilation %lld,%lld, padding %lld,%lld)",
                        th_tensor_sizestr(input, a, sizeof a), (long long)w->kW, (long long)w->kH,
                        (long long)dilW, (long long)dilH, (long long)w->padW, (long long)w->padH);
  if (spans_alloc(&sp, g.oH, g.oW) != TH_OK) return TH_ERR;
  sp.sy = dilH;
  sp.sx = dilW;
  dil_spans(sp.y0, sp.y1, g.oH, w->kH, w->dH, w->padH, dilH, g.iH);
  dil_spans(sp.x0, sp.x1, g.oW, w->kW, w->dW, w->padW, dilW, g.iW);
  rc = spans_check(&sp, g.oH, g.oW, g.iH, g.iW);
  if (rc == TH_OK) rc = run_max(input, output, indices, &g, &sp, "SpatialDilatedMaxPooling");
  spans_free(&sp);
  return rc;
}

static int check_out_size(int64_t oW, int64_t oH) {
  if (oW < 1 || oH < 1)
    return th_error_set("output size must be positive, got %lldx%lld (W x H)", (long long)oW,
                        (long long)oH);
  if (oW > INT32_MAX || oH > INT32_MAX)
    return th_error_set("output size %lldx%lld too large", (long long)oW, (long long)oH);
  return TH_OK;
}

/* Torch7's adaptive windows: the max module computes i / o * n, the
   average module (i * n) / o, both in float */
static void ada_spans(int64_t *a0, int64_t *a1, int64_t o, int64_t n, int avg) {
  int64_t i;
  for (i = 0; i < o; i++) {
    if (avg) {
      a0[i] = (int64_t)floor((float)(i * n) / (float)o);
      a1[i] = (int64_t)ceil((float)((i + 1) * n) / (float)o);
    } else {
      a0[i] = (int64_t)floor((float)i / (float)o * (float)n);
      a1[i] = (int64_t)ceil((float)(i + 1) / (float)o * (float)n);
    }
    /* float rounding must never leave the image */
    if (a1[i] > n) a1[i] = n;
    if (a0[i] > a1[i]) a0[i] = a1[i];
  }
}

int th_nn_adamaxpool_update_output(const th_tensor *input, th_tensor *output, th_tensor *indices,
                                   int64_t oW, int64_t oH) {
  geom g;
  spans sp;
  int rc;
  if (check_out_size(oW, oH) != TH_OK || check_input(input, &g) != TH_OK) return TH_ERR;
  g.oH = oH;
  g.oW = oW;
  if (spans_alloc(&sp, oH, oW) != TH_OK) return TH_ERR;
  ada_spans(sp.y0, sp.y1, oH, g.iH, 0);
  ada_spans(sp.x0, sp.x1, oW, g.iW, 0);
  rc = spans_check(&sp, oH, oW, g.iH, g.iW);
  if (rc == TH_OK) rc = run_max(input, output, indices, &g, &sp, "SpatialAdaptiveMaxPooling");
  spans_free(&sp);
  return rc;
}

int th_nn_fracmaxpool_update_output(const th_tensor *input, th_tensor *output, th_tensor *indices,
                                    const th_tensor *samples, int64_t oW, int64_t oH,
                                    int64_t poolW, int64_t poolH) {
  geom g;
  spans sp;
  th_tensor smp, like;
  char a[128];
  int rc = TH_ERR;
  if (check_out_size(oW, oH) != TH_OK || check_input(input, &g) != TH_OK) return TH_ERR;
  if (poolW < 1 || poolH < 1)
    return th_error_set("pool size must be positive, got %lldx%lld", (long long)poolW,
                        (long long)poolH);
  /* Torch7's bound (strict): room for the windows to move */
  if (oH + poolH - 1 >= g.iH || oW + poolW - 1 >= g.iW)
    return th_error_set("pool size %lldx%lld and output size %lldx%lld too large for the input %s",
                        (long long)poolW, (long long)poolH, (long long)oW, (long long)oH,
                        th_tensor_sizestr(input, a, sizeof a));
  if (th_nn_check_type(samples, input->dtype, "randomSamples") != TH_OK) return TH_ERR;
  th_tensor_init(&like, input->dtype);
  like.ndim = input->ndim - 1;
  memcpy(like.size, input->size, sizeof(int64_t) * (size_t)(input->ndim - 2));
  like.size[like.ndim - 1] = 2;
  if (th_nn_check_same_size(samples, &like, "randomSamples", "batch x planes x 2") != TH_OK)
    return TH_ERR;
  g.oH = oH;
  g.oW = oW;
  if (g.planes > INT64_MAX / 4 / (oH + oW)) return th_error_set("input too large");
  if (spans_alloc(&sp, g.planes * oH, g.planes * oW) != TH_OK) return TH_ERR;
  sp.stride_y = oH;
  sp.stride_x = oW;
  th_tensor_init(&smp, input->dtype);
  if (th_nn_contiguous(&smp, samples) == TH_OK &&
      TH_DISPATCH_FLOATING(input->dtype, frac_spans, (&smp, &sp, &g, poolW, poolH),
                           "SpatialFractionalMaxPooling") == TH_OK &&
      spans_check(&sp, g.planes * oH, g.planes * oW, g.iH, g.iW) == TH_OK)
    rc = run_max(input, output, indices, &g, &sp, "SpatialFractionalMaxPooling");
  th_tensor_clear(&smp);
  spans_free(&sp);
  return rc;
}

/* gradOutput must have the input's leading dimensions; oH x oW from it */
static int check_grad_output(const th_tensor *input, const th_tensor *gradOutput, geom *g) {
  char a[128], b[128];
  int d;
  if (check_input(input, g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(gradOutput, input->dtype, "gradOutput") != TH_OK) return TH_ERR;
  if (gradOutput->ndim != input->ndim) goto bad;
  for (d = 0; d < input->ndim - 2; d++)
    if (gradOutput->size[d] != input->size[d]) goto bad;
  g->oH = gradOutput->size[input->ndim - 2];
  g->oW = gradOutput->size[input->ndim - 1];
  if (g->oH < 1 || g->oW < 1) goto bad;
  return TH_OK;
bad:
  return th_error_set("gradOutput must be %dD with leading sizes of the input %s, got %s",
                      input->ndim, th_tensor_sizestr(input, a, sizeof a),
                      th_tensor_sizestr(gradOutput, b, sizeof b));
}

int th_nn_indexmax_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                     th_tensor *gradInput, const th_tensor *indices) {
  geom g;
  th_tensor go, ind;
  int rc = TH_ERR;
  if (check_grad_output(input, gradOutput, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, gradInput->dtype, "input") != TH_OK) return TH_ERR;
  if (th_nn_check_indices(indices) != TH_OK) return TH_ERR;
  if (th_nn_check_same_size(gradOutput, indices, "gradOutput",
                            "the size of the last output; run forward first") != TH_OK)
    return TH_ERR;
  th_tensor_init(&go, input->dtype);
  th_tensor_init(&ind, TH_LONG);
  if (th_nn_contiguous(&go, gradOutput) == TH_OK && th_nn_contiguous(&ind, indices) == TH_OK &&
      th_nn_resize_out(gradInput, input->ndim, input->size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, indexmax_backward, (&go, gradInput, &ind, &g),
                              "max pooling");
  th_tensor_clear(&go);
  th_tensor_clear(&ind);
  return rc;
}

int th_nn_adaavgpool_update_output(const th_tensor *input, th_tensor *output, int64_t oW,
                                   int64_t oH) {
  geom g;
  spans sp;
  th_tensor in;
  int64_t size[4];
  int nd, rc = TH_ERR;
  if (check_out_size(oW, oH) != TH_OK || check_input(input, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, output->dtype, "input") != TH_OK) return TH_ERR;
  g.oH = oH;
  g.oW = oW;
  if (spans_alloc(&sp, oH, oW) != TH_OK) return TH_ERR;
  ada_spans(sp.y0, sp.y1, oH, g.iH, 1);
  ada_spans(sp.x0, sp.x1, oW, g.iW, 1);
  nd = output_like(input, &g, size);
  th_tensor_init(&in, input->dtype);
  if (spans_check(&sp, oH, oW, g.iH, g.iW) == TH_OK && th_nn_contiguous(&in, input) == TH_OK &&
      th_nn_resize_out(output, nd, size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, winavg_forward, (&in, output, &g, &sp),
                              "SpatialAdaptiveAveragePooling");
  th_tensor_clear(&in);
  spans_free(&sp);
  return rc;
}

int th_nn_adaavgpool_update_grad_input(const th_tensor *input, const th_tensor *gradOutput,
                                       th_tensor *gradInput) {
  geom g;
  spans sp;
  th_tensor go;
  int rc = TH_ERR;
  if (check_grad_output(input, gradOutput, &g) != TH_OK) return TH_ERR;
  if (th_nn_check_type(input, gradInput->dtype, "input") != TH_OK) return TH_ERR;
  if (spans_alloc(&sp, g.oH, g.oW) != TH_OK) return TH_ERR;
  ada_spans(sp.y0, sp.y1, g.oH, g.iH, 1);
  ada_spans(sp.x0, sp.x1, g.oW, g.iW, 1);
  th_tensor_init(&go, input->dtype);
  if (spans_check(&sp, g.oH, g.oW, g.iH, g.iW) == TH_OK && th_nn_contiguous(&go, gradOutput) == TH_OK &&
      th_nn_resize_out(gradInput, input->ndim, input->size) == TH_OK)
    rc = TH_DISPATCH_FLOATING(input->dtype, winavg_backward, (&go, gradInput, &g, &sp),
                              "SpatialAdaptiveAveragePooling");
  th_tensor_clear(&go);
  spans_free(&sp);
  return rc;
}
