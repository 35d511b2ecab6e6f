/*
** th_lua_nn.c: bindings for the spatial nn kernels (src/nn/th_nn.h), in
** torch._C.nn. Every function takes the module first: its class name
** prefixes error messages ("nn.SpatialConvolution:updateOutput: ...") and
** its fields give the window (kW, kH, dW, dH, padW, padH) and flags, as
** Torch7's own C nn read them. Tensors come as explicit arguments, so the
** Lua side decides which buffer each call uses. Arguments as in
** th_lua_nnarg.h; the bindings of one shape (check, call, return) are rows
** of the table 'rows'.
** th_lua_open_nn also opens the other nn binding files.
*/
#include "th_lua.h"
#include "th_lua_nnarg.h"
#include "../nn/th_nn.h"

/* the window of the module at index 1: kW and kH required */
static void window(lua_State *L, th_nn_window *w, const char *fn) {
  w->kW = th_lua_nn_checkintfield(L, "kW", fn);
  w->kH = th_lua_nn_checkintfield(L, "kH", fn);
  w->dW = th_lua_nn_intfield(L, "dW", 1, fn);
  w->dH = th_lua_nn_intfield(L, "dH", 1, fn);
  w->padW = th_lua_nn_intfield(L, "padW", 0, fn);
  w->padH = th_lua_nn_intfield(L, "padH", 0, fn);
}

/* --- adapters of the rows below: the kernel called with a[stack index] --- */

static int conv_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_window w;
  window(c->L, &w, c->fn);
  return th_nn_conv_update_output(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, &w);
}

static int conv_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_window w;
  window(c->L, &w, c->fn);
  return th_nn_conv_update_grad_input(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, &w);
}

static int conv_acc(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_window w;
  window(c->L, &w, c->fn);
  return th_nn_conv_acc_grad_params(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, &w, a[7].n);
}

/* the window and the output adjustment (adjW, adjH) of a full convolution */
static void fullwindow(th_lua_nn_call *c, th_nn_window *w, int64_t *adjW, int64_t *adjH) {
  window(c->L, w, c->fn);
  *adjW = th_lua_nn_intfield(c->L, "adjW", 0, c->fn);
  *adjH = th_lua_nn_intfield(c->L, "adjH", 0, c->fn);
}

static int fullconv_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_window w;
  int64_t aw, ah;
  fullwindow(c, &w, &aw, &ah);
  return th_nn_fullconv_update_output(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, &w, aw, ah);
}

static int fullconv_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_window w;
  int64_t aw, ah;
  fullwindow(c, &w, &aw, &ah);
  return th_nn_fullconv_update_grad_input(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, &w, aw, ah);
}

static int fullconv_acc(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_window w;
  int64_t aw, ah;
  fullwindow(c, &w, &aw, &ah);
  return th_nn_fullconv_acc_grad_params(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, &w, aw, ah, a[7].n);
}

static int maxpool_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_window w;
  window(c->L, &w, c->fn);
  return th_nn_maxpool_update_output(a[2].t, a[3].t, a[4].t, &w,
                                     th_lua_nn_boolfield(c->L, "ceil_mode", 0));
}

static int maxpool_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_window w;
  window(c->L, &w, c->fn);
  return th_nn_maxpool_update_grad_input(a[2].t, a[3].t, a[4].t, a[5].t, &w,
                                         th_lua_nn_boolfield(c->L, "ceil_mode", 0));
}

static int avgpool_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_window w;
  window(c->L, &w, c->fn);
  return th_nn_avgpool_update_output(a[2].t, a[3].t, &w, th_lua_nn_boolfield(c->L, "ceil_mode", 0),
                                     th_lua_nn_boolfield(c->L, "count_include_pad", 1));
}

static int avgpool_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  th_nn_window w;
  window(c->L, &w, c->fn);
  return th_nn_avgpool_update_grad_input(a[2].t, a[3].t, a[4].t, &w,
                                         th_lua_nn_boolfield(c->L, "ceil_mode", 0),
                                         th_lua_nn_boolfield(c->L, "count_include_pad", 1));
}

static int maxunpool_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_maxunpool_update_output(a[2].t, a[3].t, a[4].t, a[5].i, a[6].i);
}

static int maxunpool_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_maxunpool_update_grad_input(a[2].t, a[3].t, a[4].t, a[5].t, a[6].i, a[7].i);
}

static int batchnorm_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_batchnorm_update_output(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, a[7].t, a[8].t,
                                       a[9].t, a[13].t, a[10].b, a[11].n, a[12].n, a[14].b);
}

static int batchnorm_apply(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_batchnorm_apply(a[2].t, a[3].t, a[4].t, a[5].b);
}

static int batchnorm_bwd(th_lua_nn_call *c, const th_lua_nn_val *a) {
  int64_t mode = a[14].i;
  if (mode < TH_NN_STATS_NONE || mode > TH_NN_STATS_REUSE)
    luaL_error(c->L, "%s: stats mode must be 0, 1 or 2, got %d", c->fn, (int)mode);
  return th_nn_batchnorm_backward(a[3].t, a[4].t, a[5].t, a[6].t, a[7].t, a[8].t, a[9].t, a[10].t,
                                  a[11].t, a[12].t, a[13].t, (int)mode, a[15].b, a[16].n, a[17].n);
}

/* the cross-map LRN's size, alpha, beta, k: fields of the module, all required */
typedef struct lrn_params {
  int64_t size;
  double alpha, beta, k;
} lrn_params;

static lrn_params lrn_fields(th_lua_nn_call *c) {
  lrn_params p;
  p.size = th_lua_nn_checkintfield(c->L, "size", c->fn);
  p.alpha = th_lua_nn_checknumfield(c->L, "alpha", c->fn);
  p.beta = th_lua_nn_checknumfield(c->L, "beta", c->fn);
  p.k = th_lua_nn_checknumfield(c->L, "k", c->fn);
  return p;
}

static int lrn_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  lrn_params p = lrn_fields(c);
  return th_nn_lrn_update_output(a[2].t, a[3].t, a[4].t, p.size, p.alpha, p.beta, p.k);
}

static int lrn_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  lrn_params p = lrn_fields(c);
  return th_nn_lrn_update_grad_input(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, a[7].t, p.size,
                                     p.alpha, p.beta, p.k);
}

static const th_lua_nn_binding rows[] = {
    {"conv_updateOutput", "updateOutput", "input output weight bias? finput", 3, conv_out},
    {"conv_updateGradInput", "updateGradInput", "input gradOutput gradInput weight fgradInput", 4,
     conv_gin},
    {"conv_accGradParameters", "accGradParameters",
     "input gradOutput gradWeight gradBias? fgradInput scale:n", 0, conv_acc},
    {"fullconv_updateOutput", "updateOutput", "input output weight bias? finput", 3, fullconv_out},
    {"fullconv_updateGradInput", "updateGradInput", "input gradOutput gradInput weight fgradInput",
     4, fullconv_gin},
    {"fullconv_accGradParameters", "accGradParameters",
     "input gradOutput gradWeight gradBias? fgradInput scale:n", 0, fullconv_acc},
    {"maxpool_updateOutput", "updateOutput", "input output indices", 3, maxpool_out},
    {"maxpool_updateGradInput", "updateGradInput", "input gradOutput gradInput indices", 4,
     maxpool_gin},
    {"avgpool_updateOutput", "updateOutput", "input output", 3, avgpool_out},
    {"avgpool_updateGradInput", "updateGradInput", "input gradOutput gradInput", 4, avgpool_gin},
    {"maxunpool_updateOutput", "updateOutput", "input output indices owidth:i oheight:i", 3,
     maxunpool_out},
    {"maxunpool_updateGradInput", "updateGradInput",
     "input gradOutput gradInput indices owidth:i oheight:i", 4, maxunpool_gin},
    {"batchnorm_updateOutput", "updateOutput",
     "input output weight? bias? running_mean running_var save_mean save_std "
     "train:b momentum:n eps:n coef? relu:b",
     3, batchnorm_out},
    {"batchnorm_apply", "updateOutput", "input output coef relu:b", 3, batchnorm_apply},
    /* (self, method, ...): the method updateGradInput, accGradParameters or backward */
    {"batchnorm_backward", NULL,
     "input gradOutput gradInput? gradWeight? gradBias? weight? running_mean running_var "
     "save_mean save_std stats? stats_mode:i train:b scale:n eps:n",
     0, batchnorm_bwd},
    {"lrn_updateOutput", "updateOutput", "input output scale", 3, lrn_out},
    {"lrn_updateGradInput", "updateGradInput",
     "input gradOutput gradInput scale output paddedRatio", 4, lrn_gin},
    {NULL, NULL, NULL, 0, NULL}};

/* --- bindings of their own shape ----------------------------------------- */

/* conv_winograd(['off'|'auto'|'on'|'on4']): the Winograd mode before the
   call (th_nn_winograd_set_mode), setting it when given */
static int conv_winograd(lua_State *L) {
  static const char *const names[] = {"off", "auto", "on", "on4", NULL};
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
   path under the current modes: per phase its output tile side, 2 for
   F(2x2,3x3) or 4 for F(4x4,3x3), or false */
static int conv_chosen(lua_State *L, int direct) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, direct ? "directChosen" : "winogradChosen");
  th_nn_window w;
  th_tensor *input = th_lua_nn_tensor(L, 2, fn, "input");
  int64_t nIn = th_lua_nn_intfield(L, "nInputPlane", 0, fn),
          nOut = th_lua_nn_intfield(L, "nOutputPlane", 0, fn);
  int64_t H, W, oH, oW;
  int p;
  window(L, &w, fn);
  if (input->ndim < 2) return luaL_error(L, "%s: input must be 3D or 4D, got %dD", fn, input->ndim);
  H = input->size[input->ndim - 2], W = input->size[input->ndim - 1];
  oH = (H + 2 * w.padH - w.kH) / (w.dH > 0 ? w.dH : 1) + 1;
  oW = (W + 2 * w.padW - w.kW) / (w.dW > 0 ? w.dW : 1) + 1;
  for (p = TH_NN_WINO_FORWARD; p <= TH_NN_WINO_GRAD_WEIGHT; p++) {
    int d = th_nn_convdirect_chosen(&w, input->dtype, p, nIn, nOut, oH, oW) ||
            th_nn_convdirect_strided_chosen(&w, input->dtype, p, nIn, nOut, H, W);
    int m = direct || d ? 0 : th_nn_winograd_chosen(&w, p, nIn, nOut, oH, oW);
    if (m) lua_pushinteger(L, m);
    else lua_pushboolean(L, direct && d);
  }
  return 3;
}

static int conv_winograd_chosen(lua_State *L) { return conv_chosen(L, 0); }

/* conv_directChosen(self, input): the same for the direct kernels, which
   come first (so winogradChosen says false where they are taken) */
static int conv_direct_chosen(lua_State *L) { return conv_chosen(L, 1); }

/* pool_outputSize(in, k, d, pad, ceil_mode) -> n (0 when the window does not fit) */
static int pool_output_size(lua_State *L) {
  const char *fn = "nn.pool_outputSize";
  int64_t n = th_nn_pool_output_size(th_lua_nn_checkint(L, 1, fn, "size"),
                                     th_lua_nn_checkint(L, 2, fn, "kernel"),
                                     th_lua_nn_checkint(L, 3, fn, "stride"),
                                     th_lua_nn_checkint(L, 4, fn, "padding"), lua_toboolean(L, 5));
  lua_pushinteger(L, (lua_Integer)n);
  return 1;
}

static const luaL_Reg funcs[] = {
    {"conv_winograd", conv_winograd},
    {"conv_direct", conv_direct},
    {"conv_winogradChosen", conv_winograd_chosen},
    {"conv_directChosen", conv_direct_chosen},
    {"pool_outputSize", pool_output_size},
    {NULL, NULL}};

void th_lua_open_nn(lua_State *L, int C) {
  th_lua_nn_push(L, C);  /* torch._C.nn */
  luaL_setfuncs(L, funcs, 0);
  th_lua_nn_register(L, rows);
  lua_pop(L, 1);
  th_lua_open_nn_layers(L, C);
  th_lua_open_nn_simple(L, C);
  th_lua_open_nn_products(L, C);
  th_lua_open_nn_temporal(L, C);
  th_lua_open_nn_spatial(L, C);
  th_lua_open_nn_volumetric(L, C);
  th_lua_open_nn_crit(L, C);
}
