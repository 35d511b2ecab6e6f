/*
** th_lua_nn_layers.c: bindings for the non-spatial nn kernels
** (src/nn/th_nn_layers.h) in torch._C.nn: Linear, the pointwise
** activations, SoftMax/LogSoftMax, the criterions and LookupTable.
** Every function takes the module first; its class name prefixes error
** messages ("nn.ReLU:updateOutput: ..."). Tensors and parameters come as
** explicit arguments, so the Lua modules decide which field each call
** uses. The activations and element-wise criterions are one C function
** each, registered once per op with the op as upvalue ("ReLU" and
** "Threshold" share TH_NN_THRESHOLD; the Lua module picks the entry).
*/
#include <stdio.h>
#include <string.h>
#include "th_lua.h"
#include "th_lua_nnarg.h"
#include "../nn/th_nn_layers.h"
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
  if (t->flags & TH_TENSOR_FREED)
    luaL_error(L, "%s: %s was freed (used after :free()/:dispose())", fn, what);
  return th_lua_nn_checkextent(L, t, fn, what);
}

static th_tensor *opt_tensor_arg(lua_State *L, int idx, const char *fn, const char *what) {
  return lua_isnoneornil(L, idx) ? NULL : tensor_arg(L, idx, fn, what);
}

static double num_arg(lua_State *L, int idx, double def, const char *fn, const char *what) {
  int isnum;
  lua_Number v;
  if (lua_isnoneornil(L, idx)) return def;
  v = lua_tonumberx(L, idx, &isnum);
  if (!isnum) luaL_error(L, "%s: %s must be a number, got %s", fn, what, th_lua_typename(L, idx));
  return (double)v;
}

static int64_t int_arg(lua_State *L, int idx, int64_t def, const char *fn, const char *what) {
  double v = num_arg(L, idx, (double)def, fn, what);
  if (v != (double)(int64_t)v)
    luaL_error(L, "%s: %s must be an integer, got %g", fn, what, v);
  return (int64_t)v;
}

/* --- Linear -------------------------------------------------------------- */

/* linear_updateOutput(self, input, output, weight, bias|nil, addBuffer) */
static int linear_update_output(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateOutput");
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *output = tensor_arg(L, 3, fn, "output");
  th_tensor *weight = tensor_arg(L, 4, fn, "weight"), *bias = opt_tensor_arg(L, 5, fn, "bias");
  th_tensor *buf = tensor_arg(L, 6, fn, "addBuffer");
  th_lua_check(L, th_nn_linear_update_output(input, output, weight, bias, buf), fn);
  lua_settop(L, 3);
  return 1;
}

/* linear_updateGradInput(self, input, gradOutput, gradInput, weight) */
static int linear_update_grad_input(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateGradInput");
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *go = tensor_arg(L, 3, fn, "gradOutput");
  th_tensor *gi = tensor_arg(L, 4, fn, "gradInput"), *weight = tensor_arg(L, 5, fn, "weight");
  th_lua_check(L, th_nn_linear_update_grad_input(input, go, gi, weight), fn);
  lua_settop(L, 4);
  return 1;
}

/* linear_accGradParameters(self, input, gradOutput, gradWeight, gradBias|nil, addBuffer, scale) */
static int linear_acc_grad_params(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "accGradParameters");
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *go = tensor_arg(L, 3, fn, "gradOutput");
  th_tensor *gw = tensor_arg(L, 4, fn, "gradWeight"), *gb = opt_tensor_arg(L, 5, fn, "gradBias");
  th_tensor *buf = tensor_arg(L, 6, fn, "addBuffer");
  double scale = num_arg(L, 7, 1.0, fn, "scale");
  th_lua_check(L, th_nn_linear_acc_grad_params(input, go, gw, gb, buf, scale), fn);
  return 0;
}

/* --- pointwise activations ----------------------------------------------- */

/* <Op>_updateOutput(self, input, output, inplace, p1, p2); upvalue: the op */
static int act_update_output(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateOutput");
  th_nn_act op = (th_nn_act)lua_tointeger(L, lua_upvalueindex(1));
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *output = tensor_arg(L, 3, fn, "output");
  int inplace = lua_toboolean(L, 4);
  double p[2];
  p[0] = num_arg(L, 5, 0.0, fn, "parameter 1");
  p[1] = num_arg(L, 6, 0.0, fn, "parameter 2");
  th_lua_check(L, th_nn_act_update_output(op, p, input, output, inplace), fn);
  lua_settop(L, 3);
  return 1;
}

/* addReLU(a, b) -> true when a = max(a + b, 0) was done (th_nn_add_relu) */
static int add_relu(lua_State *L) {
  th_tensor *a = th_lua_totensor(L, 1), *b = th_lua_totensor(L, 2);
  if (a != NULL && b != NULL) {
    a = th_lua_checkdata(L, 1, "addReLU", "tensor a");
    b = th_lua_checkdata(L, 2, "addReLU", "tensor b");
  }
  lua_pushboolean(L, a != NULL && b != NULL && th_nn_add_relu(a, b));
  return 1;
}

/* <Op>_updateGradInput(self, input|nil, gradOutput, gradInput, output|nil, inplace, p1, p2) */
static int act_update_grad_input(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateGradInput");
  th_nn_act op = (th_nn_act)lua_tointeger(L, lua_upvalueindex(1));
  th_tensor *input = opt_tensor_arg(L, 2, fn, "input");
  th_tensor *go = tensor_arg(L, 3, fn, "gradOutput"), *gi = tensor_arg(L, 4, fn, "gradInput");
  th_tensor *output = opt_tensor_arg(L, 5, fn, "output");
  int inplace = lua_toboolean(L, 6);
  double p[2];
  p[0] = num_arg(L, 7, 0.0, fn, "parameter 1");
  p[1] = num_arg(L, 8, 0.0, fn, "parameter 2");
  th_lua_check(L, th_nn_act_update_grad_input(op, p, input, go, gi, output, inplace), fn);
  lua_settop(L, 4);
  return 1;
}

/* act_check(self, name, inplace, p1, p2): the constructor's parameter check */
static int act_check(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "__init");
  const char *name = luaL_checkstring(L, 2);
  int op;
  double p[2];
  for (op = 0; op < TH_NN_NACT; op++)
    if (strcmp(name, th_nn_act_name[op]) == 0) break;
  if (op == TH_NN_NACT) return luaL_error(L, "%s: unknown activation '%s'", fn, name);
  p[0] = num_arg(L, 4, 0.0, fn, "parameter 1");
  p[1] = num_arg(L, 5, 0.0, fn, "parameter 2");
  th_lua_check(L, th_nn_act_check((th_nn_act)op, p, lua_toboolean(L, 3)), fn);
  return 0;
}

/* --- SoftMax, LogSoftMax -------------------------------------------------- */

/* softmax_updateOutput(self, input, output, log) */
static int softmax_update_output(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateOutput");
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *output = tensor_arg(L, 3, fn, "output");
  th_lua_check(L, th_nn_softmax_update_output(input, output, lua_toboolean(L, 4)), fn);
  lua_settop(L, 3);
  return 1;
}

/* softmax_updateGradInput(self, gradOutput, gradInput, output, log) */
static int softmax_update_grad_input(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateGradInput");
  th_tensor *go = tensor_arg(L, 2, fn, "gradOutput"), *gi = tensor_arg(L, 3, fn, "gradInput");
  th_tensor *output = tensor_arg(L, 4, fn, "output");
  th_lua_check(L, th_nn_softmax_update_grad_input(go, gi, output, lua_toboolean(L, 5)), fn);
  lua_settop(L, 3);
  return 1;
}

/* --- element-wise criterions ---------------------------------------------- */

/* <Crit>_updateOutput(self, input, target, sizeAverage, weights|nil, p1) -> loss */
static int crit_update_output(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateOutput");
  th_nn_crit op = (th_nn_crit)lua_tointeger(L, lua_upvalueindex(1));
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *target = tensor_arg(L, 3, fn, "target");
  int sizeAverage = lua_toboolean(L, 4);
  th_tensor *weights = opt_tensor_arg(L, 5, fn, "weights");
  double p[1], out = 0;
  p[0] = num_arg(L, 6, 0.0, fn, "parameter");
  th_lua_check(L, th_nn_crit_update_output(op, p, input, target, weights, sizeAverage, &out), fn);
  lua_pushnumber(L, out);
  return 1;
}

/* <Crit>_updateGradInput(self, input, target, gradInput, sizeAverage, weights|nil, p1) */
static int crit_update_grad_input(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateGradInput");
  th_nn_crit op = (th_nn_crit)lua_tointeger(L, lua_upvalueindex(1));
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *target = tensor_arg(L, 3, fn, "target");
  th_tensor *gi = tensor_arg(L, 4, fn, "gradInput");
  int sizeAverage = lua_toboolean(L, 5);
  th_tensor *weights = opt_tensor_arg(L, 6, fn, "weights");
  double p[1];
  p[0] = num_arg(L, 7, 0.0, fn, "parameter");
  th_lua_check(L, th_nn_crit_update_grad_input(op, p, input, target, weights, sizeAverage, gi),
               fn);
  lua_settop(L, 4);
  return 1;
}

/* --- ClassNLLCriterion ------------------------------------------------------ */

/* classnll_updateOutput(self, input, target, weights|nil, sizeAverage, ignoreIndex)
   -> loss, total weight */
static int classnll_update_output(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateOutput");
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *target = tensor_arg(L, 3, fn, "target");
  th_tensor *weights = opt_tensor_arg(L, 4, fn, "weights");
  int sizeAverage = lua_toboolean(L, 5);
  int64_t ignore = int_arg(L, 6, -100, fn, "ignoreIndex");
  double out = 0, tw = 0;
  th_lua_check(L, th_nn_classnll_update_output(input, target, weights, sizeAverage, ignore, &out,
                                               &tw),
               fn);
  lua_pushnumber(L, out);
  lua_pushnumber(L, tw);
  return 2;
}

/* classnll_updateGradInput(self, input, target, gradInput, weights|nil, sizeAverage,
   ignoreIndex, totalWeight) */
static int classnll_update_grad_input(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateGradInput");
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *target = tensor_arg(L, 3, fn, "target");
  th_tensor *gi = tensor_arg(L, 4, fn, "gradInput");
  th_tensor *weights = opt_tensor_arg(L, 5, fn, "weights");
  int sizeAverage = lua_toboolean(L, 6);
  int64_t ignore = int_arg(L, 7, -100, fn, "ignoreIndex");
  double tw = num_arg(L, 8, 1.0, fn, "totalWeight");
  th_lua_check(L, th_nn_classnll_update_grad_input(input, target, weights, sizeAverage, ignore, tw,
                                                   gi),
               fn);
  lua_settop(L, 4);
  return 1;
}

/* --- LookupTable -------------------------------------------------------------- */

/* lookup_updateOutput(self, weight, input, output) */
static int lookup_update_output(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateOutput");
  th_tensor *weight = tensor_arg(L, 2, fn, "weight"), *input = tensor_arg(L, 3, fn, "input");
  th_tensor *output = tensor_arg(L, 4, fn, "output");
  th_lua_check(L, th_nn_lookup_update_output(weight, input, output), fn);
  lua_settop(L, 4);
  return 1;
}

/* lookup_accGradParameters(self, input, gradOutput, gradWeight, paddingValue, scale) */
static int lookup_acc_grad_params(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "accGradParameters");
  th_tensor *input = tensor_arg(L, 2, fn, "input"), *go = tensor_arg(L, 3, fn, "gradOutput");
  th_tensor *gw = tensor_arg(L, 4, fn, "gradWeight");
  int64_t pad = int_arg(L, 5, 0, fn, "paddingValue");
  double scale = num_arg(L, 6, 1.0, fn, "scale");
  th_lua_check(L, th_nn_lookup_acc_grad_params(input, go, gw, pad, scale), fn);
  return 0;
}

/* lookup_renorm(self, weight, input, maxNorm, normType) */
static int lookup_renorm(lua_State *L) {
  fname f;
  const char *fn = mname(L, &f, "updateOutput");
  th_tensor *weight = tensor_arg(L, 2, fn, "weight"), *input = tensor_arg(L, 3, fn, "input");
  double maxNorm = num_arg(L, 4, 0.0, fn, "maxNorm");
  double normType = num_arg(L, 5, 2.0, fn, "normType");
  th_lua_check(L, th_nn_lookup_renorm(weight, input, maxNorm, normType), fn);
  return 0;
}

static const luaL_Reg layer_funcs[] = {
    {"linear_updateOutput", linear_update_output},
    {"linear_updateGradInput", linear_update_grad_input},
    {"linear_accGradParameters", linear_acc_grad_params},
    {"act_check", act_check},
    {"addReLU", add_relu},
    {"softmax_updateOutput", softmax_update_output},
    {"softmax_updateGradInput", softmax_update_grad_input},
    {"classnll_updateOutput", classnll_update_output},
    {"classnll_updateGradInput", classnll_update_grad_input},
    {"lookup_updateOutput", lookup_update_output},
    {"lookup_accGradParameters", lookup_acc_grad_params},
    {"lookup_renorm", lookup_renorm},
    {NULL, NULL}};

/* registers name_updateOutput / name_updateGradInput closures over op */
static void reg_op(lua_State *L, const char *name, int op, lua_CFunction fwd, lua_CFunction bwd) {
  char key[96];
  snprintf(key, sizeof key, "%s_updateOutput", name);
  lua_pushinteger(L, op);
  lua_pushcclosure(L, fwd, 1);
  lua_setfield(L, -2, key);
  snprintf(key, sizeof key, "%s_updateGradInput", name);
  lua_pushinteger(L, op);
  lua_pushcclosure(L, bwd, 1);
  lua_setfield(L, -2, key);
}

void th_lua_open_nn_layers(lua_State *L, int C) {
  int op;
  /* torch._C.nn: created here unless another binding file made it first */
  lua_getfield(L, C, "nn");
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, C, "nn");
  }
  luaL_setfuncs(L, layer_funcs, 0);
  for (op = 0; op < TH_NN_NACT; op++)
    reg_op(L, th_nn_act_name[op], op, act_update_output, act_update_grad_input);
  for (op = 0; op < TH_NN_NCRIT; op++)
    reg_op(L, th_nn_crit_name[op], op, crit_update_output, crit_update_grad_input);
  lua_pop(L, 1);
}
