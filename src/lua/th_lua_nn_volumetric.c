/*
** th_lua_nn_volumetric.c: bindings in torch._C.nn for the volumetric
** modules (src/nn/th_nn_volumetric.h). Every function takes the module
** first (its class prefixes error messages) and reads the window from its
** fields as Torch7 names them (kT, kW, kH, dT, dW, dH, padT, padW, padH,
** dilationT/W/H, ceil_mode, ...); tensors come as explicit arguments, so
** the Lua side decides which buffer each call uses.
*/
#include "th_lua_nnarg.h"
#include "../nn/th_nn_volumetric.h"

#define FN(method)     \
  th_lua_nn_fname f_;  \
  const char *fn = th_lua_nn_fn(L, &f_, method)
#define T(i, what) th_lua_nn_tensor(L, i, fn, what)
#define OPT(i, what) th_lua_nn_opttensor(L, i, fn, what)

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

/* --- convolution -------------------------------------------------------- */

/* volconv_updateOutput(self, input, output, weight, bias|nil, finput) */
static int volconv_update_output(lua_State *L) {
  FN("updateOutput");
  th_nn_vol v;
  th_tensor *in = T(2, "input"), *out = T(3, "output"), *w = T(4, "weight");
  th_tensor *b = OPT(5, "bias"), *fin = T(6, "finput");
  window(L, &v, 1, fn);
  th_lua_check(L, th_nn_volconv_update_output(in, out, w, b, fin, &v), fn);
  lua_settop(L, 3);
  return 1;
}

/* volconv_updateGradInput(self, input, gradOutput, gradInput, weight, fgradInput) */
static int volconv_update_grad_input(lua_State *L) {
  FN("updateGradInput");
  th_nn_vol v;
  th_tensor *in = T(2, "input"), *go = T(3, "gradOutput"), *gi = T(4, "gradInput");
  th_tensor *w = T(5, "weight"), *fgi = T(6, "fgradInput");
  window(L, &v, 1, fn);
  th_lua_check(L, th_nn_volconv_update_grad_input(in, go, gi, w, fgi, &v), fn);
  lua_settop(L, 4);
  return 1;
}

/* volconv_accGradParameters(self, input, gradOutput, gradWeight, gradBias|nil, fgradInput, scale) */
static int volconv_acc_grad_params(lua_State *L) {
  FN("accGradParameters");
  th_nn_vol v;
  th_tensor *in = T(2, "input"), *go = T(3, "gradOutput"), *gw = T(4, "gradWeight");
  th_tensor *gb = OPT(5, "gradBias"), *fgi = T(6, "fgradInput");
  double scale = th_lua_nn_num(L, 7, 1, fn, "scale");
  window(L, &v, 1, fn);
  th_lua_check(L, th_nn_volconv_acc_grad_params(in, go, gw, gb, fgi, &v, scale), fn);
  return 0;
}

/* --- full convolution: the same arguments, then adjT, adjW, adjH ------- */

static void adjust(lua_State *L, int idx, int64_t *adj, const char *fn) {
  adj[0] = th_lua_nn_int(L, idx, 0, fn, "adjT");
  adj[2] = th_lua_nn_int(L, idx + 1, 0, fn, "adjW");
  adj[1] = th_lua_nn_int(L, idx + 2, 0, fn, "adjH");
}

static int volfullconv_update_output(lua_State *L) {
  FN("updateOutput");
  th_nn_vol v;
  int64_t adj[3];
  th_tensor *in = T(2, "input"), *out = T(3, "output"), *w = T(4, "weight");
  th_tensor *b = OPT(5, "bias"), *fin = T(6, "finput");
  window(L, &v, 0, fn);
  adjust(L, 7, adj, fn);
  th_lua_check(L, th_nn_volfullconv_update_output(in, out, w, b, fin, &v, adj), fn);
  lua_settop(L, 3);
  return 1;
}

static int volfullconv_update_grad_input(lua_State *L) {
  FN("updateGradInput");
  th_nn_vol v;
  int64_t adj[3];
  th_tensor *in = T(2, "input"), *go = T(3, "gradOutput"), *gi = T(4, "gradInput");
  th_tensor *w = T(5, "weight"), *fgi = T(6, "fgradInput");
  window(L, &v, 0, fn);
  adjust(L, 7, adj, fn);
  th_lua_check(L, th_nn_volfullconv_update_grad_input(in, go, gi, w, fgi, &v, adj), fn);
  lua_settop(L, 4);
  return 1;
}

/* (self, input, gradOutput, gradWeight, gradBias|nil, fgradInput, scale, adjT, adjW, adjH) */
static int volfullconv_acc_grad_params(lua_State *L) {
  FN("accGradParameters");
  th_nn_vol v;
  int64_t adj[3];
  th_tensor *in = T(2, "input"), *go = T(3, "gradOutput"), *gw = T(4, "gradWeight");
  th_tensor *gb = OPT(5, "gradBias"), *fgi = T(6, "fgradInput");
  double scale = th_lua_nn_num(L, 7, 1, fn, "scale");
  window(L, &v, 0, fn);
  adjust(L, 8, adj, fn);
  th_lua_check(L, th_nn_volfullconv_acc_grad_params(in, go, gw, gb, fgi, &v, adj, scale), fn);
  return 0;
}

/* --- pooling ------------------------------------------------------------ */

/* volmaxpool_updateOutput(self, input, output, indices) */
static int volmaxpool_update_output(lua_State *L) {
  FN("updateOutput");
  th_nn_vol v;
  th_tensor *in = T(2, "input"), *out = T(3, "output"), *ind = T(4, "indices");
  window(L, &v, 1, fn);
  th_lua_check(L, th_nn_volmaxpool_update_output(in, out, ind, &v,
                                                 th_lua_nn_boolfield(L, "ceil_mode", 0)), fn);
  lua_settop(L, 3);
  return 1;
}

/* volmaxpool_updateGradInput(self, input, gradOutput, gradInput, indices) */
static int volmaxpool_update_grad_input(lua_State *L) {
  FN("updateGradInput");
  th_nn_vol v;
  th_tensor *in = T(2, "input"), *go = T(3, "gradOutput"), *gi = T(4, "gradInput");
  th_tensor *ind = T(5, "indices");
  window(L, &v, 1, fn);
  th_lua_check(L, th_nn_volmaxpool_update_grad_input(in, go, gi, ind, &v,
                                                     th_lua_nn_boolfield(L, "ceil_mode", 0)), fn);
  lua_settop(L, 4);
  return 1;
}

/* volavgpool_updateOutput(self, input, output) */
static int volavgpool_update_output(lua_State *L) {
  FN("updateOutput");
  th_nn_vol v;
  th_tensor *in = T(2, "input"), *out = T(3, "output");
  window(L, &v, 0, fn);
  th_lua_check(L, th_nn_volavgpool_update_output(in, out, &v,
                                                 th_lua_nn_boolfield(L, "ceil_mode", 0),
                                                 th_lua_nn_boolfield(L, "count_include_pad", 1)),
               fn);
  lua_settop(L, 3);
  return 1;
}

/* volavgpool_updateGradInput(self, input, gradOutput, gradInput) */
static int volavgpool_update_grad_input(lua_State *L) {
  FN("updateGradInput");
  th_nn_vol v;
  th_tensor *in = T(2, "input"), *go = T(3, "gradOutput"), *gi = T(4, "gradInput");
  window(L, &v, 0, fn);
  th_lua_check(L, th_nn_volavgpool_update_grad_input(in, go, gi, &v,
                                                     th_lua_nn_boolfield(L, "ceil_mode", 0),
                                                     th_lua_nn_boolfield(L, "count_include_pad", 1)),
               fn);
  lua_settop(L, 4);
  return 1;
}

static void fmp_sizes(lua_State *L, int idx, int64_t *out, int64_t *pool, const char *fn) {
  out[0] = th_lua_nn_int(L, idx, 0, fn, "outT");
  out[1] = th_lua_nn_int(L, idx + 1, 0, fn, "outW");
  out[2] = th_lua_nn_int(L, idx + 2, 0, fn, "outH");
  pool[0] = th_lua_nn_intfield(L, "poolSizeT", 0, fn);
  pool[1] = th_lua_nn_intfield(L, "poolSizeW", 0, fn);
  pool[2] = th_lua_nn_intfield(L, "poolSizeH", 0, fn);
}

/* volfmp_updateOutput(self, input, output, indices, randomSamples, outT, outW, outH) */
static int volfmp_update_output(lua_State *L) {
  FN("updateOutput");
  int64_t out[3], pool[3];
  th_tensor *in = T(2, "input"), *o = T(3, "output"), *ind = T(4, "indices");
  th_tensor *s = T(5, "randomSamples");
  fmp_sizes(L, 6, out, pool, fn);
  th_lua_check(L, th_nn_volfmp_update_output(in, o, ind, s, out, pool), fn);
  lua_settop(L, 3);
  return 1;
}

/* volfmp_updateGradInput(self, input, gradOutput, gradInput, indices, outT, outW, outH) */
static int volfmp_update_grad_input(lua_State *L) {
  FN("updateGradInput");
  int64_t out[3], pool[3];
  th_tensor *in = T(2, "input"), *go = T(3, "gradOutput"), *gi = T(4, "gradInput");
  th_tensor *ind = T(5, "indices");
  fmp_sizes(L, 6, out, pool, fn);
  th_lua_check(L, th_nn_volfmp_update_grad_input(in, go, gi, ind, out), fn);
  lua_settop(L, 4);
  return 1;
}

/* --- replication padding ------------------------------------------------ */

static void pads(lua_State *L, int64_t *pad, const char *fn) {
  static const char *const k[6] = {"pleft", "pright", "ptop", "pbottom", "pfront", "pback"};
  int i;
  for (i = 0; i < 6; i++) pad[i] = th_lua_nn_intfield(L, k[i], 0, fn);
}

/* volreppad_updateOutput(self, input, output) */
static int volreppad_update_output(lua_State *L) {
  FN("updateOutput");
  int64_t pad[6];
  th_tensor *in = T(2, "input"), *out = T(3, "output");
  pads(L, pad, fn);
  th_lua_check(L, th_nn_volreppad_update_output(in, out, pad), fn);
  lua_settop(L, 3);
  return 1;
}

/* volreppad_updateGradInput(self, input, gradOutput, gradInput) */
static int volreppad_update_grad_input(lua_State *L) {
  FN("updateGradInput");
  int64_t pad[6];
  th_tensor *in = T(2, "input"), *go = T(3, "gradOutput"), *gi = T(4, "gradInput");
  pads(L, pad, fn);
  th_lua_check(L, th_nn_volreppad_update_grad_input(in, go, gi, pad), fn);
  lua_settop(L, 4);
  return 1;
}

static const luaL_Reg funcs[] = {
    {"volconv_updateOutput", volconv_update_output},
    {"volconv_updateGradInput", volconv_update_grad_input},
    {"volconv_accGradParameters", volconv_acc_grad_params},
    {"volfullconv_updateOutput", volfullconv_update_output},
    {"volfullconv_updateGradInput", volfullconv_update_grad_input},
    {"volfullconv_accGradParameters", volfullconv_acc_grad_params},
    {"volmaxpool_updateOutput", volmaxpool_update_output},
    {"volmaxpool_updateGradInput", volmaxpool_update_grad_input},
    {"volavgpool_updateOutput", volavgpool_update_output},
    {"volavgpool_updateGradInput", volavgpool_update_grad_input},
    {"volfmp_updateOutput", volfmp_update_output},
    {"volfmp_updateGradInput", volfmp_update_grad_input},
    {"volreppad_updateOutput", volreppad_update_output},
    {"volreppad_updateGradInput", volreppad_update_grad_input},
    {NULL, NULL}};

void th_lua_open_nn_volumetric(lua_State *L, int C) {
  th_lua_nn_push(L, C);
  luaL_setfuncs(L, funcs, 0);
  lua_pop(L, 1);
}
