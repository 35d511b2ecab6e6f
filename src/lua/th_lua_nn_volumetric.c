/*
** th_lua_nn_volumetric.c: bindings in torch._C.nn for the volumetric
** modules (src/nn/th_nn_volumetric.h). Every function takes the module
** first (its class prefixes error messages) and reads the window from its
** fields as Torch7 names them (kT, kW, kH, dT, dW, dH, padT, padW, padH,
** dilationT/W/H, ceil_mode, ...); tensors come as explicit arguments, so
** the Lua side decides which buffer each call uses. Each binding is a row
** of 'rows' (th_lua_nnarg.h).
*/
#include "th_lua_nnarg.h"
#include "../nn/th_nn_volumetric.h"

/* the 3D window from the module's fields (missing kernel sizes read as 0
   and are refused by the kernels with a message) */
static void window(lua_State *L, th_nn_vol *v, int dilated, const char *fn) {
  v->kT = th_lua_nn_intfield(L, "kT", 0, fn);
  v->kW = th_lua_nn_intfield(L, "kW", 0, fn);
  v->kH = th_lua_nn_intfield(L, "kH", 0, fn);
  v->dT = th_lua_nn_intfield(L, "dT", 1, fn);
  v->dW = th_lua_nn_intfield(L, "dW", 1, fn);
  v->dH = th_lua_nn_intfield(L, "dH", 1, fn);
  v->padT = th_lua_nn_intfield(L, "padT", 0, fn);
  v->padW = th_lua_nn_intfield(L, "padW", 0, fn);
  v->padH = th_lua_nn_intfield(L, "padH", 0, fn);
  v->dilT = dilated ? th_lua_nn_intfield(L, "dilationT", 1, fn) : 1;
  v->dilW = dilated ? th_lua_nn_intfield(L, "dilationW", 1, fn) : 1;
  v->dilH = dilated ? th_lua_nn_intfield(L, "dilationH", 1, fn) : 1;
}

/* --- adapters of the rows below: the kernel called with a[stack index] --- */

static int volconv_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_vol v;
  window(c->L, &v, 1, c->fn);
  return th_nn_volconv_update_output(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, &v);
}

static int volconv_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_vol v;
  window(c->L, &v, 1, c->fn);
  return th_nn_volconv_update_grad_input(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, &v);
}

static int volconv_acc(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_vol v;
  window(c->L, &v, 1, c->fn);
  return th_nn_volconv_acc_grad_params(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, &v, a[7].n);
}

/* the full convolution's adjT, adjW, adjH at stack index idx.. as the
   kernels order them (T, H, W) */
static void adjust(const th_lua_nn_val *a, int idx, int64_t *adj) {
  adj[0] = a[idx].i, adj[2] = a[idx + 1].i, adj[1] = a[idx + 2].i;
}

static int volfullconv_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_vol v;
  int64_t adj[3];
  window(c->L, &v, 0, c->fn);
  adjust(a, 7, adj);
  return th_nn_volfullconv_update_output(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, &v, adj);
}

static int volfullconv_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_vol v;
  int64_t adj[3];
  window(c->L, &v, 0, c->fn);
  adjust(a, 7, adj);
  return th_nn_volfullconv_update_grad_input(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, &v, adj);
}

static int volfullconv_acc(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_vol v;
  int64_t adj[3];
  window(c->L, &v, 0, c->fn);
  adjust(a, 8, adj);
  return th_nn_volfullconv_acc_grad_params(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, &v, adj, a[7].n);
}

static int volmaxpool_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_vol v;
  window(c->L, &v, 1, c->fn);
  return th_nn_volmaxpool_update_output(a[2].t, a[3].t, a[4].t, &v,
                                        th_lua_nn_boolfield(c->L, "ceil_mode", 0));
}

static int volmaxpool_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_vol v;
  window(c->L, &v, 1, c->fn);
  return th_nn_volmaxpool_update_grad_input(a[2].t, a[3].t, a[4].t, a[5].t, &v,
                                            th_lua_nn_boolfield(c->L, "ceil_mode", 0));
}

static int volavgpool_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_vol v;
  window(c->L, &v, 0, c->fn);
  return th_nn_volavgpool_update_output(a[2].t, a[3].t, &v,
                                        th_lua_nn_boolfield(c->L, "ceil_mode", 0),
                                        th_lua_nn_boolfield(c->L, "count_include_pad", 1));
}

static int volavgpool_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_vol v;
  window(c->L, &v, 0, c->fn);
  return th_nn_volavgpool_update_grad_input(a[2].t, a[3].t, a[4].t, &v,
                                            th_lua_nn_boolfield(c->L, "ceil_mode", 0),
                                            th_lua_nn_boolfield(c->L, "count_include_pad", 1));
}

/* the fractional pooling's output sizes (arguments outT, outW, outH at idx..)
   and pool sizes (fields poolSizeT/W/H) */
static void fmp_sizes(th_lua_nn_call *c, const th_lua_nn_val *a, int idx, int64_t *out,
                      int64_t *pool) {
  out[0] = a[idx].i, out[1] = a[idx + 1].i, out[2] = a[idx + 2].i;
  pool[0] = th_lua_nn_intfield(c->L, "poolSizeT", 0, c->fn);
  pool[1] = th_lua_nn_intfield(c->L, "poolSizeW", 0, c->fn);
  pool[2] = th_lua_nn_intfield(c->L, "poolSizeH", 0, c->fn);
}

static int volfmp_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  int64_t out[3], pool[3];
  fmp_sizes(c, a, 6, out, pool);
  return th_nn_volfmp_update_output(a[2].t, a[3].t, a[4].t, a[5].t, out, pool);
}

static int volfmp_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  int64_t out[3], pool[3];
  fmp_sizes(c, a, 6, out, pool);
  return th_nn_volfmp_update_grad_input(a[2].t, a[3].t, a[4].t, a[5].t, out);
}

/* the replication padding's fields */
static void pads(th_lua_nn_call *c, int64_t *pad) {
  static const char *const k[6] = {"pleft", "pright", "ptop", "pbottom", "pfront", "pback"};
  int i;
  for (i = 0; i < 6; i++) pad[i] = th_lua_nn_intfield(c->L, k[i], 0, c->fn);
}

static int volreppad_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  int64_t pad[6];
  pads(c, pad);
  return th_nn_volreppad_update_output(a[2].t, a[3].t, pad);
}

static int volreppad_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  int64_t pad[6];
  pads(c, pad);
  return th_nn_volreppad_update_grad_input(a[2].t, a[3].t, a[4].t, pad);
}

#define ADJ "adjT:i=0 adjW:i=0 adjH:i=0"
#define OUTSIZE "outT:i=0 outW:i=0 outH:i=0"

static const th_lua_nn_binding rows[] = {
    {"volconv_updateOutput", "updateOutput", "input output weight bias? finput", 3, volconv_out},
    {"volconv_updateGradInput", "updateGradInput", "input gradOutput gradInput weight fgradInput",
     4, volconv_gin},
    {"volconv_accGradParameters", "accGradParameters",
     "input gradOutput gradWeight gradBias? fgradInput scale:n=1", 0, volconv_acc},
    {"volfullconv_updateOutput", "updateOutput", "input output weight bias? finput " ADJ, 3,
     volfullconv_out},
    {"volfullconv_updateGradInput", "updateGradInput",
     "input gradOutput gradInput weight fgradInput " ADJ, 4, volfullconv_gin},
    {"volfullconv_accGradParameters", "accGradParameters",
     "input gradOutput gradWeight gradBias? fgradInput scale:n=1 " ADJ, 0, volfullconv_acc},
    {"volmaxpool_updateOutput", "updateOutput", "input output indices", 3, volmaxpool_out},
    {"volmaxpool_updateGradInput", "updateGradInput", "input gradOutput gradInput indices", 4,
     volmaxpool_gin},
    {"volavgpool_updateOutput", "updateOutput", "input output", 3, volavgpool_out},
    {"volavgpool_updateGradInput", "updateGradInput", "input gradOutput gradInput", 4,
     volavgpool_gin},
    {"volfmp_updateOutput", "updateOutput", "input output indices randomSamples " OUTSIZE, 3,
     volfmp_out},
    {"volfmp_updateGradInput", "updateGradInput", "input gradOutput gradInput indices " OUTSIZE, 4,
     volfmp_gin},
    {"volreppad_updateOutput", "updateOutput", "input output", 3, volreppad_out},
    {"volreppad_updateGradInput", "updateGradInput", "input gradOutput gradInput", 4,
     volreppad_gin},
    {NULL, NULL, NULL, 0, NULL}};

void th_lua_open_nn_volumetric(lua_State *L, int C) {
  th_lua_nn_push(L, C);
  th_lua_nn_register(L, rows);
  lua_pop(L, 1);
}
