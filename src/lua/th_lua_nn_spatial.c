/*
** th_lua_nn_spatial.c: bindings in torch._C.nn for spatial pooling, sampling, padding and
*normalization
** (Torch7's wider module set). Arguments as in th_lua_nnarg.h: the module
** first (its class names the errors), then tensors, then numbers; every
** function returns its result tensor. The bindings of one shape (check,
** call, return) are rows of the table 'rows'.
*/
#include <string.h>
#include "th_lua_nnarg.h"
#include "../nn/th_nn_spatial.h"

/* the pooling window from the module's Torch7 fields */
static void window(lua_State *L, th_nn_window *w, const char *fn) {
  w->kW = th_lua_nn_intfield(L, "kW", 0, fn);
  w->kH = th_lua_nn_intfield(L, "kH", 0, fn);
  w->dW = th_lua_nn_intfield(L, "dW", w->kW, fn);
  w->dH = th_lua_nn_intfield(L, "dH", w->kH, fn);
  w->padW = th_lua_nn_intfield(L, "padW", 0, fn);
  w->padH = th_lua_nn_intfield(L, "padH", 0, fn);
}

/* --- adapters of the rows below: the kernel called with a[stack index] --- */

static int dilmaxpool_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_window w;
  window(c->L, &w, c->fn);
  return th_nn_dilmaxpool_update_output(
      a[2].t, a[3].t, a[4].t, &w, th_lua_nn_intfield(c->L, "dilationW", 1, c->fn),
      th_lua_nn_intfield(c->L, "dilationH", 1, c->fn), th_lua_nn_boolfield(c->L, "ceil_mode", 0));
}

static int adamaxpool_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_adamaxpool_update_output(a[2].t, a[3].t, a[4].t, a[5].i, a[6].i);
}

static int fracmaxpool_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_fracmaxpool_update_output(a[2].t, a[3].t, a[4].t, a[5].t, a[6].i, a[7].i, a[8].i,
                                         a[9].i);
}

static int indexmax_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_indexmax_update_grad_input(a[2].t, a[3].t, a[4].t, a[5].t);
}

static int adaavgpool_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_adaavgpool_update_output(a[2].t, a[3].t, a[4].i, a[5].i);
}

static int adaavgpool_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_adaavgpool_update_grad_input(a[2].t, a[3].t, a[4].t);
}

/* the padding: the mode argument at idx ("reflect" or "replicate") and the
   fields pad_l, pad_r, pad_t, pad_b (the last three default to pad_l) */
typedef struct padding {
  th_nn_pad_mode mode;
  int64_t l, r, t, b;
} padding;

static padding pad_args(th_lua_nn_call *c, int idx) {
  padding p = {TH_NN_PAD_REFLECT, 0, 0, 0, 0};
  const char *m = lua_tostring(c->L, idx);
  if (m && strcmp(m, "reflect") == 0) p.mode = TH_NN_PAD_REFLECT;
  else if (m && strcmp(m, "replicate") == 0) p.mode = TH_NN_PAD_REPLICATE;
  else luaL_error(c->L, "%s: padding mode must be 'reflect' or 'replicate'", c->fn);
  p.l = th_lua_nn_intfield(c->L, "pad_l", 0, c->fn);
  p.r = th_lua_nn_intfield(c->L, "pad_r", p.l, c->fn);
  p.t = th_lua_nn_intfield(c->L, "pad_t", p.l, c->fn);
  p.b = th_lua_nn_intfield(c->L, "pad_b", p.l, c->fn);
  return p;
}

static int pad_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  padding p = pad_args(c, 4);
  return th_nn_pad_update_output(a[2].t, a[3].t, p.mode, p.l, p.r, p.t, p.b);
}

static int pad_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  padding p = pad_args(c, 5);
  return th_nn_pad_update_grad_input(a[2].t, a[3].t, a[4].t, p.mode, p.l, p.r, p.t, p.b);
}

static int upnearest_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_upnearest_update_output(a[2].t, a[3].t, (int)a[4].i, a[5].i);
}

static int upnearest_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_upnearest_update_grad_input(a[2].t, a[3].t, a[4].t, (int)a[5].i, a[6].i);
}

/* the output sizes follow the dimensions: 2 or 3 of them */
static int uplinear_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  int nsp = (int)a[4].i, k;
  int64_t osz[3] = {0, 0, 0};
  if (nsp != 2 && nsp != 3) luaL_error(c->L, "%s: 2 or 3 spatial dimensions, got %d", c->fn, nsp);
  for (k = 0; k < nsp; k++) osz[k] = th_lua_nn_int(c->L, 5 + k, 0, c->fn, "output size");
  return th_nn_uplinear_update_output(a[2].t, a[3].t, nsp, osz);
}

static int uplinear_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_uplinear_update_grad_input(a[2].t, a[3].t, a[4].t, (int)a[5].i);
}

/* FeatureLPPooling's fields */
typedef struct featlp {
  double power;
  int64_t width, stride;
  int batch;
} featlp;

static featlp featlp_fields(th_lua_nn_call *c) {
  featlp p;
  p.power = th_lua_nn_numfield(c->L, "power", 2, c->fn);
  p.width = th_lua_nn_intfield(c->L, "width", 0, c->fn);
  p.stride = th_lua_nn_intfield(c->L, "stride", 0, c->fn);
  p.batch = th_lua_nn_boolfield(c->L, "batch_mode", 0);
  return p;
}

static int featlp_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  featlp p = featlp_fields(c);
  return th_nn_featlp_update_output(a[2].t, a[3].t, p.power, p.width, p.stride, p.batch);
}

static int featlp_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  featlp p = featlp_fields(c);
  return th_nn_featlp_update_grad_input(a[3].t, a[2].t, a[5].t, a[4].t, p.power, p.width, p.stride,
                                        p.batch);
}

static int localsum(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_localsum(a[3].t, a[4].t, a[5].t, a[6].b);
}

static const th_lua_nn_binding rows[] = {
    {"dilmaxpool_updateOutput", "updateOutput", "input output indices", 3, dilmaxpool_out},
    {"adamaxpool_updateOutput", "updateOutput", "input output indices W:i=0 H:i=0", 3,
     adamaxpool_out},
    {"fracmaxpool_updateOutput", "updateOutput",
     "input output indices randomSamples outW:i=0 outH:i=0 poolSizeW:i=0 poolSizeH:i=0", 3,
     fracmaxpool_out},
    {"indexmax_updateGradInput", "updateGradInput", "input gradOutput gradInput indices", 4,
     indexmax_gin},
    {"adaavgpool_updateOutput", "updateOutput", "input output W:i=0 H:i=0", 3, adaavgpool_out},
    {"adaavgpool_updateGradInput", "updateGradInput", "input gradOutput gradInput", 4,
     adaavgpool_gin},
    /* + the padding mode */
    {"pad_updateOutput", "updateOutput", "input output", 3, pad_out},
    {"pad_updateGradInput", "updateGradInput", "input gradOutput gradInput", 4, pad_gin},
    {"upnearest_updateOutput", "updateOutput", "input output dimensions:i=0 scale_factor:i=0", 3,
     upnearest_out},
    {"upnearest_updateGradInput", "updateGradInput",
     "input gradOutput gradInput dimensions:i=0 scale_factor:i=0", 4, upnearest_gin},
    /* + the output sizes */
    {"uplinear_updateOutput", "updateOutput", "input output dimensions:i=0", 3, uplinear_out},
    {"uplinear_updateGradInput", "updateGradInput", "input gradOutput gradInput dimensions:i=0", 4,
     uplinear_gin},
    {"featlp_updateOutput", "updateOutput", "input output", 3, featlp_out},
    {"featlp_updateGradInput", "updateGradInput", "input gradOutput gradInput output", 4,
     featlp_gin},
    /* (self, method, planes, kernel, output, transpose) */
    {"localsum", NULL, "input kernel output transpose:b", 5, localsum},
    {NULL, NULL, NULL, 0, NULL}};

void th_lua_open_nn_spatial(lua_State *L, int C) {
  th_lua_nn_push(L, C);
  th_lua_nn_register(L, rows);
  lua_pop(L, 1);
}
