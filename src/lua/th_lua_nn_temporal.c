/*
** th_lua_nn_temporal.c: bindings in torch._C.nn for temporal and spatial convolutions
** (Torch7's wider module set). Arguments as in th_lua_nnarg.h: the module
** first (its class names the errors, its fields give the window), tensors
** as explicit arguments; each binding a row of 'rows'.
*/
#include "th_lua_nnarg.h"
#include "../nn/th_nn_temporal.h"

/* the window and dilation of the module at index 1 (Torch7's field names) */
static void dilconv_params(lua_State *L, th_nn_dilconv *p, int depthwise, const char *fn) {
  p->w.kW = th_lua_nn_intfield(L, "kW", 0, fn);
  p->w.kH = th_lua_nn_intfield(L, "kH", 0, fn);
  p->w.dW = th_lua_nn_intfield(L, "dW", 1, fn);
  p->w.dH = th_lua_nn_intfield(L, "dH", 1, fn);
  p->w.padW = th_lua_nn_intfield(L, "padW", 0, fn);
  p->w.padH = th_lua_nn_intfield(L, "padH", 0, fn);
  p->dilW = th_lua_nn_intfield(L, "dilationW", 1, fn);
  p->dilH = th_lua_nn_intfield(L, "dilationH", 1, fn);
  p->depthwise = depthwise;
}

/* --- adapters of the rows below: the kernel called with a[stack index] --- */

static int dilconv_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_dilconv p;
  dilconv_params(c->L, &p, a[7].b, c->fn);
  return th_nn_dilconv_update_output(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, &p);
}

static int dilconv_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_dilconv p;
  dilconv_params(c->L, &p, a[7].b, c->fn);
  return th_nn_dilconv_update_grad_input(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, &p);
}

static int dilconv_acc(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_dilconv p;
  dilconv_params(c->L, &p, a[8].b, c->fn);
  return th_nn_dilconv_acc_grad_params(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, &p, a[7].n);
}

static const th_lua_nn_binding rows[] = {
    {"dilconv_updateOutput", "updateOutput", "input output weight bias? finput depthwise:b", 3,
     dilconv_out},
    {"dilconv_updateGradInput", "updateGradInput",
     "input gradOutput gradInput weight fgradInput depthwise:b", 4, dilconv_gin},
    {"dilconv_accGradParameters", "accGradParameters",
     "input gradOutput gradWeight gradBias? fgradInput scale:n=1 depthwise:b", 0, dilconv_acc},
    {NULL, NULL, NULL, 0, NULL}};

void th_lua_open_nn_temporal(lua_State *L, int C) {
  th_lua_nn_push(L, C);
  th_lua_nn_register(L, rows);
  lua_pop(L, 1);
}
