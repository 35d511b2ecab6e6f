/*
** th_lua_nn_spatial.c: bindings in torch._C.nn for spatial pooling, sampling, padding and normalization
** (Torch7's wider module set). Arguments as in th_lua_nnarg.h: the module
** first (its class names the errors), then tensors, then numbers; every
** function returns its result tensor.
*/
#include <string.h>
#include "th_lua_nnarg.h"
#include "../nn/th_nn_spatial.h"

#define TENSOR(i, what) th_lua_nn_tensor(L, (i), fn, (what))
#define INT(i, what) th_lua_nn_int(L, (i), 0, fn, (what))

/* the pooling window from the module's Torch7 fields */
static void window(lua_State *L, th_nn_window *w, const char *fn) {
  w->kW = th_lua_nn_intfield(L, "kW", 0, fn);
  w->kH = th_lua_nn_intfield(L, "kH", 0, fn);
  w->dW = th_lua_nn_intfield(L, "dW", w->kW, fn);
  w->dH = th_lua_nn_intfield(L, "dH", w->kH, fn);
  w->padW = th_lua_nn_intfield(L, "padW", 0, fn);
  w->padH = th_lua_nn_intfield(L, "padH", 0, fn);
}

/* dilmaxpool_updateOutput(self, input, output, indices) */
static int dilmaxpool_update_output(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateOutput");
  th_nn_window w;
  th_tensor *input = TENSOR(2, "input"), *output = TENSOR(3, "output");
  th_tensor *indices = TENSOR(4, "indices");
  window(L, &w, fn);
  th_lua_check(L, th_nn_dilmaxpool_update_output(input, output, indices, &w,
                                                 th_lua_nn_intfield(L, "dilationW", 1, fn),
                                                 th_lua_nn_intfield(L, "dilationH", 1, fn),
                                                 th_lua_nn_boolfield(L, "ceil_mode", 0)), fn);
  lua_settop(L, 3);
  return 1;
}

/* adamaxpool_updateOutput(self, input, output, indices, W, H) */
static int adamaxpool_update_output(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateOutput");
  th_tensor *input = TENSOR(2, "input"), *output = TENSOR(3, "output");
  th_tensor *indices = TENSOR(4, "indices");
  th_lua_check(L, th_nn_adamaxpool_update_output(input, output, indices, INT(5, "W"), INT(6, "H")), fn);
  lua_settop(L, 3);
  return 1;
}

/* fracmaxpool_updateOutput(self, input, output, indices, samples, oW, oH, poolW, poolH) */
static int fracmaxpool_update_output(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateOutput");
  th_tensor *input = TENSOR(2, "input"), *output = TENSOR(3, "output");
  th_tensor *indices = TENSOR(4, "indices"), *samples = TENSOR(5, "randomSamples");
  th_lua_check(L, th_nn_fracmaxpool_update_output(input, output, indices, samples, INT(6, "outW"),
                                                  INT(7, "outH"), INT(8, "poolSizeW"),
                                                  INT(9, "poolSizeH")), fn);
  lua_settop(L, 3);
  return 1;
}

/* indexmax_updateGradInput(self, input, gradOutput, gradInput, indices) */
static int indexmax_update_grad_input(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateGradInput");
  th_tensor *input = TENSOR(2, "input"), *go = TENSOR(3, "gradOutput");
  th_tensor *gi = TENSOR(4, "gradInput"), *indices = TENSOR(5, "indices");
  th_lua_check(L, th_nn_indexmax_update_grad_input(input, go, gi, indices), fn);
  lua_settop(L, 4);
  return 1;
}

/* adaavgpool_updateOutput(self, input, output, W, H) */
static int adaavgpool_update_output(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateOutput");
  th_tensor *input = TENSOR(2, "input"), *output = TENSOR(3, "output");
  th_lua_check(L, th_nn_adaavgpool_update_output(input, output, INT(4, "W"), INT(5, "H")), fn);
  lua_settop(L, 3);
  return 1;
}

/* adaavgpool_updateGradInput(self, input, gradOutput, gradInput) */
static int adaavgpool_update_grad_input(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateGradInput");
  th_tensor *input = TENSOR(2, "input"), *go = TENSOR(3, "gradOutput");
  th_tensor *gi = TENSOR(4, "gradInput");
  th_lua_check(L, th_nn_adaavgpool_update_grad_input(input, go, gi), fn);
  lua_settop(L, 4);
  return 1;
}

/* the padding mode argument: "reflect" or "replicate" */
static th_nn_pad_mode pad_mode(lua_State *L, int idx, const char *fn) {
  const char *m = lua_tostring(L, idx);
  if (m && strcmp(m, "reflect") == 0) return TH_NN_PAD_REFLECT;
  if (m && strcmp(m, "replicate") == 0) return TH_NN_PAD_REPLICATE;
  luaL_error(L, "%s: padding mode must be 'reflect' or 'replicate'", fn);
  return TH_NN_PAD_REFLECT;
}

/* pad_updateOutput(self, input, output, mode) with fields pad_l, pad_r, pad_t, pad_b */
static int pad_update_output(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateOutput");
  th_tensor *input = TENSOR(2, "input"), *output = TENSOR(3, "output");
  th_nn_pad_mode m = pad_mode(L, 4, fn);
  int64_t l = th_lua_nn_intfield(L, "pad_l", 0, fn), r = th_lua_nn_intfield(L, "pad_r", l, fn);
  int64_t t = th_lua_nn_intfield(L, "pad_t", l, fn), b = th_lua_nn_intfield(L, "pad_b", l, fn);
  th_lua_check(L, th_nn_pad_update_output(input, output, m, l, r, t, b), fn);
  lua_settop(L, 3);
  return 1;
}

/* pad_updateGradInput(self, input, gradOutput, gradInput, mode) */
static int pad_update_grad_input(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateGradInput");
  th_tensor *input = TENSOR(2, "input"), *go = TENSOR(3, "gradOutput");
  th_tensor *gi = TENSOR(4, "gradInput");
  th_nn_pad_mode m = pad_mode(L, 5, fn);
  int64_t l = th_lua_nn_intfield(L, "pad_l", 0, fn), r = th_lua_nn_intfield(L, "pad_r", l, fn);
  int64_t t = th_lua_nn_intfield(L, "pad_t", l, fn), b = th_lua_nn_intfield(L, "pad_b", l, fn);
  th_lua_check(L, th_nn_pad_update_grad_input(input, go, gi, m, l, r, t, b), fn);
  lua_settop(L, 4);
  return 1;
}

/* upnearest_updateOutput(self, input, output, nsp, scale) */
static int upnearest_update_output(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateOutput");
  th_tensor *input = TENSOR(2, "input"), *output = TENSOR(3, "output");
  th_lua_check(L, th_nn_upnearest_update_output(input, output, (int)INT(4, "dimensions"),
                                                INT(5, "scale_factor")), fn);
  lua_settop(L, 3);
  return 1;
}

/* upnearest_updateGradInput(self, input, gradOutput, gradInput, nsp, scale) */
static int upnearest_update_grad_input(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateGradInput");
  th_tensor *input = TENSOR(2, "input"), *go = TENSOR(3, "gradOutput");
  th_tensor *gi = TENSOR(4, "gradInput");
  th_lua_check(L, th_nn_upnearest_update_grad_input(input, go, gi, (int)INT(5, "dimensions"),
                                                    INT(6, "scale_factor")), fn);
  lua_settop(L, 4);
  return 1;
}

/* uplinear_updateOutput(self, input, output, nsp, size1, size2 [, size3]) */
static int uplinear_update_output(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateOutput");
  th_tensor *input = TENSOR(2, "input"), *output = TENSOR(3, "output");
  int nsp = (int)INT(4, "dimensions"), k;
  int64_t osz[3] = {0, 0, 0};
  if (nsp != 2 && nsp != 3) luaL_error(L, "%s: 2 or 3 spatial dimensions, got %d", fn, nsp);
  for (k = 0; k < nsp; k++) osz[k] = INT(5 + k, "output size");
  th_lua_check(L, th_nn_uplinear_update_output(input, output, nsp, osz), fn);
  lua_settop(L, 3);
  return 1;
}

/* uplinear_updateGradInput(self, input, gradOutput, gradInput, nsp) */
static int uplinear_update_grad_input(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateGradInput");
  th_tensor *input = TENSOR(2, "input"), *go = TENSOR(3, "gradOutput");
  th_tensor *gi = TENSOR(4, "gradInput");
  th_lua_check(L, th_nn_uplinear_update_grad_input(input, go, gi, (int)INT(5, "dimensions")), fn);
  lua_settop(L, 4);
  return 1;
}

/* featlp_updateOutput(self, input, output) with fields power, width, stride, batch_mode */
static int featlp_update_output(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateOutput");
  th_tensor *input = TENSOR(2, "input"), *output = TENSOR(3, "output");
  th_lua_check(L, th_nn_featlp_update_output(input, output, th_lua_nn_numfield(L, "power", 2, fn),
                                             th_lua_nn_intfield(L, "width", 0, fn),
                                             th_lua_nn_intfield(L, "stride", 0, fn),
                                             th_lua_nn_boolfield(L, "batch_mode", 0)), fn);
  lua_settop(L, 3);
  return 1;
}

/* featlp_updateGradInput(self, input, gradOutput, gradInput, output) */
static int featlp_update_grad_input(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateGradInput");
  th_tensor *input = TENSOR(2, "input"), *go = TENSOR(3, "gradOutput");
  th_tensor *gi = TENSOR(4, "gradInput"), *output = TENSOR(5, "output");
  th_lua_check(L, th_nn_featlp_update_grad_input(go, input, output, gi,
                                                 th_lua_nn_numfield(L, "power", 2, fn),
                                                 th_lua_nn_intfield(L, "width", 0, fn),
                                                 th_lua_nn_intfield(L, "stride", 0, fn),
                                                 th_lua_nn_boolfield(L, "batch_mode", 0)), fn);
  lua_settop(L, 4);
  return 1;
}

/* localsum(self, method, planes, kernel, output, transpose) */
static int localsum(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, luaL_checkstring(L, 2));
  th_tensor *input = TENSOR(3, "input"), *kernel = TENSOR(4, "kernel");
  th_tensor *output = TENSOR(5, "output");
  th_lua_check(L, th_nn_localsum(input, kernel, output, lua_toboolean(L, 6)), fn);
  lua_settop(L, 5);
  return 1;
}

static const luaL_Reg funcs[] = {
    {"dilmaxpool_updateOutput", dilmaxpool_update_output},
    {"adamaxpool_updateOutput", adamaxpool_update_output},
    {"fracmaxpool_updateOutput", fracmaxpool_update_output},
    {"indexmax_updateGradInput", indexmax_update_grad_input},
    {"adaavgpool_updateOutput", adaavgpool_update_output},
    {"adaavgpool_updateGradInput", adaavgpool_update_grad_input},
    {"pad_updateOutput", pad_update_output},
    {"pad_updateGradInput", pad_update_grad_input},
    {"upnearest_updateOutput", upnearest_update_output},
    {"upnearest_updateGradInput", upnearest_update_grad_input},
    {"uplinear_updateOutput", uplinear_update_output},
    {"uplinear_updateGradInput", uplinear_update_grad_input},
    {"featlp_updateOutput", featlp_update_output},
    {"featlp_updateGradInput", featlp_update_grad_input},
    {"localsum", localsum},
    {NULL, NULL}};

void th_lua_open_nn_spatial(lua_State *L, int C) {
  th_lua_nn_push(L, C);
  luaL_setfuncs(L, funcs, 0);
  lua_pop(L, 1);
}
