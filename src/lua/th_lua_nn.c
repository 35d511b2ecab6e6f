/*
** th_lua_nn.c: bindings for the spatial nn kernels (src/nn/th_nn.h), in
** torch._C.nn. Every function takes the module first: its class name
** prefixes error messages ("nn.SpatialConvolution:updateOutput: ...") and
** its fields give the window (kW, kH, dW, dH, padW, padH) and flags, as
** Torch7's own C nn read them. Tensors come as explicit arguments, so the
** Lua side decides which buffer each call uses.
** th_lua_open_nn also opens the pointwise layers (th_lua_open_nn_layers).
*/
#include <stdio.h>
#include <string.h>
#include "th_lua.h"
#include "th_lua_nnarg.h"
#include "../nn/th_nn.h"
#include "../tensor/th_error.h"

typedef struct fname {
  char s[160];
} fname;

/* "<class of arg 1>:<method>" */
static const char *mname(lua_State *L, fname *f, const char *method) {
  const char *cls = lua_istable(L, 1) ? th_lua_typename(L, 1) : "nn.?";
  snprintf(f->s, sizeof f->s, "%s:%s", cls, method);
  return f->s;
}

static th_tensor *tensor_arg(lua_State *L, int idx, const char *fn, const char *what) {
  th_tensor *t = th_lua_totensor(L, idx);
  if (t == NULL)
    luaL_error(L, "%s: %s must be a tensor, got %s", fn, what, th_lua_typename(L, idx));
  /* the one place freed tensors and views past their storage are refused */
  return th_lua_nn_checkextent(L, th_lua_checkview(L, idx, fn), fn, what);
}

static th_tensor *opt_tensor_arg(lua_State *L, int idx, const char *fn, const char *what) {
  return lua_isnoneornil(L, idx) ? NULL : tensor_arg(L, idx, fn, what);
}

/* an integer field of the module at index 1; 'def' when nil and def_ok */
static int64_t int_field(lua_State *L, const char *k, int64_t def, int def_ok, const char *fn) {
  int isnum;
  lua_Integer v;
  lua_getfield(L, 1, k);
  if (lua_isnil(L, -1) && def_ok) {
    lua_pop(L, 1);
    return def;
  }
  v = lua_tointegerx(L, -1, &isnum);
  if (!isnum)
    luaL_error(L, "%s: field '%s' must be an integer, got %s", fn, k, th_lua_typename(L, -1));
  lua_pop(L, 1);
  return (int64_t)v;
}

static int bool_field(lua_State *L, const char *k, int def) {
  int v;
  lua_getfield(L, 1, k);
  v = lua_isnil(L, -1) ? def : lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

static double num_arg(lua_State *L, int idx, const char *fn, const char *what) {
  int isnum;
  lua_Number v = lua_tonumberx(L, idx, &isnum);
  if (!isnum) luaL_error(L, "%s: %s must be a number, got %s", fn, what, th_lua_typename(L, idx));
  return (double)v;
}

static int64_t int_arg(lua_State *L, int idx, const char *fn, const char *what) {
  int isnum;
  lua_Integer v = lua_tointegerx(L, idx, &isnum);
  if (!isnum)
    luaL_error(L, "%s: %s must be an integer, got %s", fn, what, th_lua_typename(L, idx));
  return (int64_t)v;
}

static void window(lua_State *L, th_nn_window *w, const char *fn) {
  w->kW = int_field(L, "kW", 0, 0, fn);
  w->kH = int_field(L, "kH", 0, 0, fn);
  w->dW = int_field(L, "dW", 1, 1, fn);
  w->dH = int_field(L, "dH", 1, 1, fn);
  w->padW = int_field(L, "padW", 0, 1, fn);
  w->padH = int_field(L, "padH", 0, 1, fn);
}

/* --- convolution ------------------------------------------------------- */

/* conv_updateOutput(self, input, output, weight, bias|nil, finput) */
static int conv_update_output(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateOutput");
  th_nn_window w;
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *output = tensor_arg(L, 3, fn, "output");
  th_tensor *weight = tensor_arg(L, 4, fn, "weight"), *bias = opt_tensor_arg(L, 5, fn, "bias");
  th_tensor *finput = tensor_arg(L, 6, fn, "finput");
  window(L, &w, fn);
  th_lua_check(L, th_nn_conv_update_output(input, output, weight, bias, finput, &w), fn);
  lua_settop(L, 3);
  return 1;
}

/* conv_updateGradInput(self, input, gradOutput, gradInput, weight, fgradInput) */
static int conv_update_grad_input(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateGradInput");
  th_nn_window w;
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *go = tensor_arg(L, 3, fn, "gradOutput");
  th_tensor *gi = tensor_arg(L, 4, fn, "gradInput"), *weight = tensor_arg(L, 5, fn, "weight");
  th_tensor *fgi = tensor_arg(L, 6, fn, "fgradInput");
  window(L, &w, fn);
  th_lua_check(L, th_nn_conv_update_grad_input(input, go, gi, weight, fgi, &w), fn);
  lua_settop(L, 4);
  return 1;
}

/* conv_accGradParameters(self, input, gradOutput, gradWeight, gradBias|nil, fgradInput, scale) */
static int conv_acc_grad_params(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "accGradParameters");
  th_nn_window w;
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *go = tensor_arg(L, 3, fn, "gradOutput");
  th_tensor *gw = tensor_arg(L, 4, fn, "gradWeight"), *gb = opt_tensor_arg(L, 5, fn, "gradBias");
  th_tensor *fgi = tensor_arg(L, 6, fn, "fgradInput");
  double scale = num_arg(L, 7, fn, "scale");
  window(L, &w, fn);
  th_lua_check(L, th_nn_conv_acc_grad_params(input, go, gw, gb, fgi, &w, scale), fn);
  return 0;
}

/* conv_winograd(['off'|'auto'|'on']): the Winograd mode before the call
   (th_nn_winograd_set_mode), setting it when given */
static int conv_winograd(lua_State *L) {
  static const char *const names[] = {"off", "auto", "on", NULL};
  int old = th_nn_winograd_get_mode();
  if (!lua_isnoneornil(L, 1)) th_nn_winograd_set_mode(luaL_checkoption(L, 1, NULL, names));
  lua_pushstring(L, names[old]);
  return 1;
}

/* conv_direct(['off'|'auto'|'on']): the mode of the direct kernels
   before the call (th_nn_convdirect_set_mode), setting it when given; the
   second result says whether this CPU can run them at all */
static int conv_direct(lua_State *L) {
  static const char *const names[] = {"off", "auto", "on", NULL};
  int old = th_nn_convdirect_get_mode();
  if (!lua_isnoneornil(L, 1)) th_nn_convdirect_set_mode(luaL_checkoption(L, 1, NULL, names));
  lua_pushstring(L, names[old]);
  lua_pushboolean(L, th_nn_convdirect_available());
  return 2;
}

/* conv_winogradChosen(self, input): whether forward, gradInput and
   gradWeight of this SpatialConvolution on this input take the Winograd
   path under the current modes (three booleans) */
static int conv_chosen(lua_State *L, int direct) {
  fname f;
  const char *fn = mname(L, &f, direct ? "directChosen" : "winogradChosen");
  th_nn_window w;
  th_tensor *input = tensor_arg(L, 2, fn, "input");
  int64_t nIn = int_field(L, "nInputPlane", 0, 1, fn), nOut = int_field(L, "nOutputPlane", 0, 1, fn);
  int64_t H, W, oH, oW;
  int p;
  window(L, &w, fn);
  if (input->ndim < 2) return luaL_error(L, "%s: input must be 3D or 4D, got %dD", fn, input->ndim);
  H = input->size[input->ndim - 2], W = input->size[input->ndim - 1];
  oH = (H + 2 * w.padH - w.kH) / (w.dH > 0 ? w.dH : 1) + 1;
  oW = (W + 2 * w.padW - w.kW) / (w.dW > 0 ? w.dW : 1) + 1;
  for (p = TH_NN_WINO_FORWARD; p <= TH_NN_WINO_GRAD_WEIGHT; p++)
    lua_pushboolean(L, direct ? th_nn_convdirect_chosen(&w, input->dtype, p, nIn, nOut, oH, oW)
                              : th_nn_winograd_chosen(&w, p, nIn, nOut, oH, oW) &&
                                    !th_nn_convdirect_chosen(&w, input->dtype, p, nIn, nOut, oH, oW));
  return 3;
}

static int conv_winograd_chosen(lua_State *L) { return conv_chosen(L, 0); }

/* conv_directChosen(self, input): the same for the direct kernels, which
   come first (so winogradChosen says false where they are taken) */
static int conv_direct_chosen(lua_State *L) { return conv_chosen(L, 1); }


/* --- full convolution -------------------------------------------------- */

static int fullconv_update_output(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateOutput");
  th_nn_window w;
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *output = tensor_arg(L, 3, fn, "output");
  th_tensor *weight = tensor_arg(L, 4, fn, "weight"), *bias = opt_tensor_arg(L, 5, fn, "bias");
  th_tensor *finput = tensor_arg(L, 6, fn, "finput");
  int64_t adjW, adjH;
  window(L, &w, fn);
  adjW = int_field(L, "adjW", 0, 1, fn);
  adjH = int_field(L, "adjH", 0, 1, fn);
  th_lua_check(L, th_nn_fullconv_update_output(input, output, weight, bias, finput, &w, adjW, adjH),
               fn);
  lua_settop(L, 3);
  return 1;
}

static int fullconv_update_grad_input(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateGradInput");
  th_nn_window w;
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *go = tensor_arg(L, 3, fn, "gradOutput");
  th_tensor *gi = tensor_arg(L, 4, fn, "gradInput"), *weight = tensor_arg(L, 5, fn, "weight");
  th_tensor *fgi = tensor_arg(L, 6, fn, "fgradInput");
  int64_t adjW, adjH;
  window(L, &w, fn);
  adjW = int_field(L, "adjW", 0, 1, fn);
  adjH = int_field(L, "adjH", 0, 1, fn);
  th_lua_check(L, th_nn_fullconv_update_grad_input(input, go, gi, weight, fgi, &w, adjW, adjH), fn);
  lua_settop(L, 4);
  return 1;
}

static int fullconv_acc_grad_params(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "accGradParameters");
  th_nn_window w;
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *go = tensor_arg(L, 3, fn, "gradOutput");
  th_tensor *gw = tensor_arg(L, 4, fn, "gradWeight"), *gb = opt_tensor_arg(L, 5, fn, "gradBias");
  th_tensor *fgi = tensor_arg(L, 6, fn, "fgradInput");
  double scale = num_arg(L, 7, fn, "scale");
  int64_t adjW, adjH;
  window(L, &w, fn);
  adjW = int_field(L, "adjW", 0, 1, fn);
  adjH = int_field(L, "adjH", 0, 1, fn);
  th_lua_check(L, th_nn_fullconv_acc_grad_params(input, go, gw, gb, fgi, &w, adjW, adjH, scale),
               fn);
  return 0;
}

/* --- pooling ----------------------------------------------------------- */

/* maxpool_updateOutput(self, input, output, indices) */
static int maxpool_update_output(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateOutput");
  th_nn_window w;
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *output = tensor_arg(L, 3, fn, "output");
  th_tensor *indices = tensor_arg(L, 4, fn, "indices");
  window(L, &w, fn);
  th_lua_check(L, th_nn_maxpool_update_output(input, output, indices, &w,
                                              bool_field(L, "ceil_mode", 0)), fn);
  lua_settop(L, 3);
  return 1;
}

/* maxpool_updateGradInput(self, input, gradOutput, gradInput, indices) */
static int maxpool_update_grad_input(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateGradInput");
  th_nn_window w;
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *go = tensor_arg(L, 3, fn, "gradOutput");
  th_tensor *gi = tensor_arg(L, 4, fn, "gradInput"), *indices = tensor_arg(L, 5, fn, "indices");
  window(L, &w, fn);
  th_lua_check(L, th_nn_maxpool_update_grad_input(input, go, gi, indices, &w,
                                                  bool_field(L, "ceil_mode", 0)), fn);
  lua_settop(L, 4);
  return 1;
}

/* avgpool_updateOutput(self, input, output) */
static int avgpool_update_output(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateOutput");
  th_nn_window w;
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *output = tensor_arg(L, 3, fn, "output");
  window(L, &w, fn);
  th_lua_check(L, th_nn_avgpool_update_output(input, output, &w, bool_field(L, "ceil_mode", 0),
                                              bool_field(L, "count_include_pad", 1)), fn);
  lua_settop(L, 3);
  return 1;
}

/* avgpool_updateGradInput(self, input, gradOutput, gradInput) */
static int avgpool_update_grad_input(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateGradInput");
  th_nn_window w;
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *go = tensor_arg(L, 3, fn, "gradOutput");
  th_tensor *gi = tensor_arg(L, 4, fn, "gradInput");
  window(L, &w, fn);
  th_lua_check(L, th_nn_avgpool_update_grad_input(input, go, gi, &w, bool_field(L, "ceil_mode", 0),
                                                  bool_field(L, "count_include_pad", 1)), fn);
  lua_settop(L, 4);
  return 1;
}

/* pool_outputSize(in, k, d, pad, ceil_mode) -> n (0 when the window does not fit) */
static int pool_output_size(lua_State *L) {
  const char *fn = "nn.pool_outputSize";
  int64_t n = th_nn_pool_output_size(int_arg(L, 1, fn, "size"), int_arg(L, 2, fn, "kernel"),
                                     int_arg(L, 3, fn, "stride"), int_arg(L, 4, fn, "padding"),
                                     lua_toboolean(L, 5));
  lua_pushinteger(L, (lua_Integer)n);
  return 1;
}

/* --- max unpooling ----------------------------------------------------- */

/* maxunpool_updateOutput(self, input, output, indices, oW, oH) */
static int maxunpool_update_output(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateOutput");
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *output = tensor_arg(L, 3, fn, "output");
  th_tensor *indices = tensor_arg(L, 4, fn, "indices");
  int64_t oW = int_arg(L, 5, fn, "owidth"), oH = int_arg(L, 6, fn, "oheight");
  th_lua_check(L, th_nn_maxunpool_update_output(input, output, indices, oW, oH), fn);
  lua_settop(L, 3);
  return 1;
}

/* maxunpool_updateGradInput(self, input, gradOutput, gradInput, indices, oW, oH) */
static int maxunpool_update_grad_input(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateGradInput");
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *go = tensor_arg(L, 3, fn, "gradOutput");
  th_tensor *gi = tensor_arg(L, 4, fn, "gradInput"), *indices = tensor_arg(L, 5, fn, "indices");
  int64_t oW = int_arg(L, 6, fn, "owidth"), oH = int_arg(L, 7, fn, "oheight");
  th_lua_check(L, th_nn_maxunpool_update_grad_input(input, go, gi, indices, oW, oH), fn);
  lua_settop(L, 4);
  return 1;
}

/* --- batch normalization ----------------------------------------------- */

/* batchnorm_updateOutput(self, input, output, weight|nil, bias|nil, running_mean,
                          running_var, save_mean, save_std, train, momentum, eps, coef|nil
                          [, relu]) */
static int batchnorm_update_output(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateOutput");
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *output = tensor_arg(L, 3, fn, "output");
  th_tensor *weight = opt_tensor_arg(L, 4, fn, "weight"), *bias = opt_tensor_arg(L, 5, fn, "bias");
  th_tensor *rm = tensor_arg(L, 6, fn, "running_mean"), *rv = tensor_arg(L, 7, fn, "running_var");
  th_tensor *sm = tensor_arg(L, 8, fn, "save_mean"), *ss = tensor_arg(L, 9, fn, "save_std");
  int train = lua_toboolean(L, 10);
  double momentum = num_arg(L, 11, fn, "momentum"), eps = num_arg(L, 12, fn, "eps");
  th_tensor *coef = opt_tensor_arg(L, 13, fn, "coef");
  int relu = lua_toboolean(L, 14);
  th_lua_check(L, th_nn_batchnorm_update_output(input, output, weight, bias, rm, rv, sm, ss, coef,
                                                train, momentum, eps, relu), fn);
  lua_settop(L, 3);
  return 1;
}

/* batchnorm_apply(self, input, output, coef, relu) */
static int batchnorm_apply(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateOutput");
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *output = tensor_arg(L, 3, fn, "output");
  th_tensor *coef = tensor_arg(L, 4, fn, "coef");
  th_lua_check(L, th_nn_batchnorm_apply(input, output, coef, lua_toboolean(L, 5)), fn);
  lua_settop(L, 3);
  return 1;
}

/* batchnorm_backward(self, method, input, gradOutput, gradInput|nil, gradWeight|nil,
                      gradBias|nil, weight|nil, running_mean, running_var, save_mean,
                      save_std, stats|nil, stats_mode, train, scale, eps) */
static int batchnorm_backward(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, luaL_checkstring(L, 2));
  th_tensor *input = tensor_arg(L, 3, fn, "input"), *go = tensor_arg(L, 4, fn, "gradOutput");
  th_tensor *gi = opt_tensor_arg(L, 5, fn, "gradInput"), *gw = opt_tensor_arg(L, 6, fn, "gradWeight");
  th_tensor *gb = opt_tensor_arg(L, 7, fn, "gradBias"), *weight = opt_tensor_arg(L, 8, fn, "weight");
  th_tensor *rm = tensor_arg(L, 9, fn, "running_mean"), *rv = tensor_arg(L, 10, fn, "running_var");
  th_tensor *sm = tensor_arg(L, 11, fn, "save_mean"), *ss = tensor_arg(L, 12, fn, "save_std");
  th_tensor *stats = opt_tensor_arg(L, 13, fn, "stats");
  int mode = (int)int_arg(L, 14, fn, "stats mode"), train = lua_toboolean(L, 15);
  double scale = num_arg(L, 16, fn, "scale"), eps = num_arg(L, 17, fn, "eps");
  if (mode < TH_NN_STATS_NONE || mode > TH_NN_STATS_REUSE)
    luaL_error(L, "%s: stats mode must be 0, 1 or 2, got %d", fn, mode);
  th_lua_check(L, th_nn_batchnorm_backward(input, go, gi, gw, gb, weight, rm, rv, sm, ss, stats,
                                           mode, train, scale, eps), fn);
  return 0;
}

/* --- cross-map LRN ----------------------------------------------------- */

/* lrn_updateOutput(self, input, output, scale) with size, alpha, beta, k from self */
static int lrn_update_output(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateOutput");
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *output = tensor_arg(L, 3, fn, "output");
  th_tensor *scale = tensor_arg(L, 4, fn, "scale");
  int64_t size = int_field(L, "size", 0, 0, fn);
  double alpha, beta, k;
  lua_getfield(L, 1, "alpha");
  lua_getfield(L, 1, "beta");
  lua_getfield(L, 1, "k");
  alpha = num_arg(L, -3, fn, "field 'alpha'");
  beta = num_arg(L, -2, fn, "field 'beta'");
  k = num_arg(L, -1, fn, "field 'k'");
  th_lua_check(L, th_nn_lrn_update_output(input, output, scale, size, alpha, beta, k), fn);
  lua_settop(L, 3);
  return 1;
}

/* lrn_updateGradInput(self, input, gradOutput, gradInput, scale, output, ratio) */
static int lrn_update_grad_input(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateGradInput");
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *go = tensor_arg(L, 3, fn, "gradOutput");
  th_tensor *gi = tensor_arg(L, 4, fn, "gradInput"), *scale = tensor_arg(L, 5, fn, "scale");
  th_tensor *output = tensor_arg(L, 6, fn, "output"), *ratio = tensor_arg(L, 7, fn, "paddedRatio");
  int64_t size = int_field(L, "size", 0, 0, fn);
  double alpha, beta, k;
  lua_getfield(L, 1, "alpha");
  lua_getfield(L, 1, "beta");
  lua_getfield(L, 1, "k");
  alpha = num_arg(L, -3, fn, "field 'alpha'");
  beta = num_arg(L, -2, fn, "field 'beta'");
  k = num_arg(L, -1, fn, "field 'k'");
  th_lua_check(L, th_nn_lrn_update_grad_input(input, go, gi, scale, output, ratio, size, alpha,
                                              beta, k), fn);
  lua_settop(L, 4);
  return 1;
}

static const luaL_Reg nn_funcs[] = {
    {"conv_updateOutput", conv_update_output},
    {"conv_updateGradInput", conv_update_grad_input},
    {"conv_accGradParameters", conv_acc_grad_params},
    {"conv_winograd", conv_winograd},
    {"conv_direct", conv_direct},
    {"conv_winogradChosen", conv_winograd_chosen},
    {"conv_directChosen", conv_direct_chosen},
    {"fullconv_updateOutput", fullconv_update_output},
    {"fullconv_updateGradInput", fullconv_update_grad_input},
    {"fullconv_accGradParameters", fullconv_acc_grad_params},
    {"maxpool_updateOutput", maxpool_update_output},
    {"maxpool_updateGradInput", maxpool_update_grad_input},
    {"avgpool_updateOutput", avgpool_update_output},
    {"avgpool_updateGradInput", avgpool_update_grad_input},
    {"pool_outputSize", pool_output_size},
    {"maxunpool_updateOutput", maxunpool_update_output},
    {"maxunpool_updateGradInput", maxunpool_update_grad_input},
    {"batchnorm_updateOutput", batchnorm_update_output},
    {"batchnorm_apply", batchnorm_apply},
    {"batchnorm_backward", batchnorm_backward},
    {"lrn_updateOutput", lrn_update_output},
    {"lrn_updateGradInput", lrn_update_grad_input},
    {NULL, NULL}};

void th_lua_open_nn(lua_State *L, int C) {
  /* torch._C.nn: created here unless another binding file made it first */
  lua_getfield(L, C, "nn");
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, C, "nn");
  }
  luaL_setfuncs(L, nn_funcs, 0);
  lua_pop(L, 1);
  th_lua_open_nn_layers(L, C);
  th_lua_open_nn_simple(L, C);
  th_lua_open_nn_products(L, C);
  th_lua_open_nn_temporal(L, C);
  th_lua_open_nn_spatial(L, C);
  th_lua_open_nn_volumetric(L, C);
  th_lua_open_nn_crit(L, C);
}
