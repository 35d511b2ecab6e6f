/*
** th_lua_nn_temporal.c: bindings in torch._C.nn for temporal and spatial convolutions
** (Torch7's wider module set). Arguments as in th_lua_nnarg.h: the module
** first (its class names the errors, its fields give the window), tensors
** as explicit arguments.
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

/* dilconv_updateOutput(self, input, output, weight, bias|nil, finput, depthwise) */
static int dilconv_update_output(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateOutput");
  th_nn_dilconv p;
  th_tensor *input = th_lua_nn_tensor(L, 2, fn, "input");
  th_tensor *output = th_lua_nn_tensor(L, 3, fn, "output");
  th_tensor *weight = th_lua_nn_tensor(L, 4, fn, "weight");
  th_tensor *bias = th_lua_nn_opttensor(L, 5, fn, "bias");
  th_tensor *finput = th_lua_nn_tensor(L, 6, fn, "finput");
  dilconv_params(L, &p, lua_toboolean(L, 7), fn);
  th_lua_check(L, th_nn_dilconv_update_output(input, output, weight, bias, finput, &p), fn);
  lua_settop(L, 3);
  return 1;
}

/* dilconv_updateGradInput(self, input, gradOutput, gradInput, weight, fgradInput, depthwise) */
static int dilconv_update_grad_input(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateGradInput");
  th_nn_dilconv p;
  th_tensor *input = th_lua_nn_tensor(L, 2, fn, "input");
  th_tensor *go = th_lua_nn_tensor(L, 3, fn, "gradOutput");
  th_tensor *gi = th_lua_nn_tensor(L, 4, fn, "gradInput");
  th_tensor *weight = th_lua_nn_tensor(L, 5, fn, "weight");
  th_tensor *fgradInput = th_lua_nn_tensor(L, 6, fn, "fgradInput");
  dilconv_params(L, &p, lua_toboolean(L, 7), fn);
  th_lua_check(L, th_nn_dilconv_update_grad_input(input, go, gi, weight, fgradInput, &p), fn);
  lua_settop(L, 4);
  return 1;
}

/* dilconv_accGradParameters(self, input, gradOutput, gradWeight, gradBias|nil, fgradInput,
                             scale, depthwise) */
static int dilconv_acc_grad_params(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "accGradParameters");
  th_nn_dilconv p;
  th_tensor *input = th_lua_nn_tensor(L, 2, fn, "input");
  th_tensor *go = th_lua_nn_tensor(L, 3, fn, "gradOutput");
  th_tensor *gw = th_lua_nn_tensor(L, 4, fn, "gradWeight");
  th_tensor *gb = th_lua_nn_opttensor(L, 5, fn, "gradBias");
  th_tensor *fgradInput = th_lua_nn_tensor(L, 6, fn, "fgradInput");
  double scale = th_lua_nn_num(L, 7, 1, fn, "scale");
  dilconv_params(L, &p, lua_toboolean(L, 8), fn);
  th_lua_check(L, th_nn_dilconv_acc_grad_params(input, go, gw, gb, fgradInput, &p, scale), fn);
  return 0;
}

static const luaL_Reg funcs[] = {
    {"dilconv_updateOutput", dilconv_update_output},
    {"dilconv_updateGradInput", dilconv_update_grad_input},
    {"dilconv_accGradParameters", dilconv_acc_grad_params},
    {NULL, NULL}};

void th_lua_open_nn_temporal(lua_State *L, int C) {
  th_lua_nn_push(L, C);
  luaL_setfuncs(L, funcs, 0);
  lua_pop(L, 1);
}
