/*
** th_lua_nn_simple.c: bindings in torch._C.nn for simple layers and activations
** (Torch7's wider module set; kernels in src/nn/th_nn_simple.h). Arguments as
** in th_lua_nnarg.h: the module first, its class prefixing every message.
** The pointwise maps are one C function pair, registered once per map with
** the map as upvalue ("Abs_updateOutput", "HardTanh_updateGradInput", ...).
*/
#include <stdio.h>
#include <string.h>
#include "th_lua_nnarg.h"
#include "../nn/th_nn_simple.h"

/* <Map>_updateOutput(self, input, output, inplace, p1, p2) */
static int pw_update_output(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateOutput");
  th_nn_pw op = (th_nn_pw)lua_tointeger(L, lua_upvalueindex(1));
  th_tensor *input = th_lua_nn_tensor(L, 2, fn, "input");
  th_tensor *output = th_lua_nn_tensor(L, 3, fn, "output");
  int inplace = lua_toboolean(L, 4);
  double p[2];
  p[0] = th_lua_nn_num(L, 5, 0.0, fn, "parameter 1");
  p[1] = th_lua_nn_num(L, 6, 0.0, fn, "parameter 2");
  th_lua_check(L, th_nn_pw_update_output(op, p, input, output, inplace), fn);
  lua_settop(L, 3);
  return 1;
}

/* <Map>_updateGradInput(self, input|nil, gradOutput, gradInput, output|nil, inplace, p1, p2) */
static int pw_update_grad_input(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateGradInput");
  th_nn_pw op = (th_nn_pw)lua_tointeger(L, lua_upvalueindex(1));
  th_tensor *input = th_lua_nn_opttensor(L, 2, fn, "input");
  th_tensor *go = th_lua_nn_tensor(L, 3, fn, "gradOutput");
  th_tensor *gi = th_lua_nn_tensor(L, 4, fn, "gradInput");
  th_tensor *output = th_lua_nn_opttensor(L, 5, fn, "output");
  int inplace = lua_toboolean(L, 6);
  double p[2];
  p[0] = th_lua_nn_num(L, 7, 0.0, fn, "parameter 1");
  p[1] = th_lua_nn_num(L, 8, 0.0, fn, "parameter 2");
  th_lua_check(L, th_nn_pw_update_grad_input(op, p, input, go, gi, output, inplace), fn);
  lua_settop(L, 4);
  return 1;
}

/* pw_check(self, name, inplace, p1, p2): a constructor's parameter check */
static int pw_check(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "__init");
  const char *name = luaL_checkstring(L, 2);
  int op;
  double p[2];
  p[0] = th_lua_nn_num(L, 4, 0.0, fn, "parameter 1");
  p[1] = th_lua_nn_num(L, 5, 0.0, fn, "parameter 2");
  for (op = 0; op < TH_NN_NPW; op++)
    if (strcmp(th_nn_pw_name[op], name) == 0) break;
  if (op == TH_NN_NPW) return luaL_error(L, "%s: unknown pointwise map '%s'", fn, name);
  th_lua_check(L, th_nn_pw_check((th_nn_pw)op, p, lua_toboolean(L, 3)), fn);
  return 0;
}

/* PReLU_updateOutput(self, input, output, weight, nOutputPlane) */
static int prelu_update_output(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateOutput");
  th_tensor *input = th_lua_nn_tensor(L, 2, fn, "input");
  th_tensor *output = th_lua_nn_tensor(L, 3, fn, "output");
  th_tensor *weight = th_lua_nn_tensor(L, 4, fn, "weight");
  int64_t n = th_lua_nn_int(L, 5, 0, fn, "nOutputPlane");
  th_lua_check(L, th_nn_prelu_update_output(input, output, weight, n), fn);
  lua_settop(L, 3);
  return 1;
}

/* PReLU_updateGradInput(self, input, gradOutput, gradInput, weight, nOutputPlane) */
static int prelu_update_grad_input(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateGradInput");
  th_tensor *input = th_lua_nn_tensor(L, 2, fn, "input");
  th_tensor *go = th_lua_nn_tensor(L, 3, fn, "gradOutput");
  th_tensor *gi = th_lua_nn_tensor(L, 4, fn, "gradInput");
  th_tensor *weight = th_lua_nn_tensor(L, 5, fn, "weight");
  int64_t n = th_lua_nn_int(L, 6, 0, fn, "nOutputPlane");
  th_lua_check(L, th_nn_prelu_update_grad_input(input, go, gi, weight, n), fn);
  lua_settop(L, 4);
  return 1;
}

/* PReLU_accGradParameters(self, input, gradOutput, gradWeight, nOutputPlane, scale) */
static int prelu_acc_grad_params(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "accGradParameters");
  th_tensor *input = th_lua_nn_tensor(L, 2, fn, "input");
  th_tensor *go = th_lua_nn_tensor(L, 3, fn, "gradOutput");
  th_tensor *gw = th_lua_nn_tensor(L, 4, fn, "gradWeight");
  int64_t n = th_lua_nn_int(L, 5, 0, fn, "nOutputPlane");
  double scale = th_lua_nn_num(L, 6, 1.0, fn, "scale");
  th_lua_check(L, th_nn_prelu_acc_grad_params(input, go, gw, n, scale), fn);
  return 0;
}

/* RReLU_updateOutput(self, input, output, noise, lower, upper, train, inplace):
   slopes come from the default generator (torch.manualSeed reproduces them) */
static int rrelu_update_output(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateOutput");
  th_tensor *input = th_lua_nn_tensor(L, 2, fn, "input");
  th_tensor *output = th_lua_nn_tensor(L, 3, fn, "output");
  th_tensor *noise = th_lua_nn_tensor(L, 4, fn, "noise");
  double lower = th_lua_nn_num(L, 5, 1.0 / 8, fn, "lower");
  double upper = th_lua_nn_num(L, 6, 1.0 / 3, fn, "upper");
  int train = lua_toboolean(L, 7), inplace = lua_toboolean(L, 8);
  th_lua_check(L, th_nn_rrelu_update_output(input, output, noise, lower, upper, train, inplace,
                                            th_random_default()),
               fn);
  lua_settop(L, 3);
  return 1;
}

/* RReLU_updateGradInput(self, input, gradOutput, gradInput, noise, lower, upper, train, inplace) */
static int rrelu_update_grad_input(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateGradInput");
  th_tensor *input = th_lua_nn_tensor(L, 2, fn, "input");
  th_tensor *go = th_lua_nn_tensor(L, 3, fn, "gradOutput");
  th_tensor *gi = th_lua_nn_tensor(L, 4, fn, "gradInput");
  th_tensor *noise = th_lua_nn_tensor(L, 5, fn, "noise");
  double lower = th_lua_nn_num(L, 6, 1.0 / 8, fn, "lower");
  double upper = th_lua_nn_num(L, 7, 1.0 / 3, fn, "upper");
  int train = lua_toboolean(L, 8), inplace = lua_toboolean(L, 9);
  th_lua_check(L, th_nn_rrelu_update_grad_input(input, go, gi, noise, lower, upper, train, inplace),
               fn);
  lua_settop(L, 4);
  return 1;
}

static const luaL_Reg funcs[] = {
    {"pw_check", pw_check},
    {"PReLU_updateOutput", prelu_update_output},
    {"PReLU_updateGradInput", prelu_update_grad_input},
    {"PReLU_accGradParameters", prelu_acc_grad_params},
    {"RReLU_updateOutput", rrelu_update_output},
    {"RReLU_updateGradInput", rrelu_update_grad_input},
    {NULL, NULL}};

void th_lua_open_nn_simple(lua_State *L, int C) {
  int op;
  char key[96];
  th_lua_nn_push(L, C);
  luaL_setfuncs(L, funcs, 0);
  for (op = 0; op < TH_NN_NPW; op++) {
    snprintf(key, sizeof key, "%s_updateOutput", th_nn_pw_name[op]);
    lua_pushinteger(L, op);
    lua_pushcclosure(L, pw_update_output, 1);
    lua_setfield(L, -2, key);
    snprintf(key, sizeof key, "%s_updateGradInput", th_nn_pw_name[op]);
    lua_pushinteger(L, op);
    lua_pushcclosure(L, pw_update_grad_input, 1);
    lua_setfield(L, -2, key);
  }
  lua_pop(L, 1);
}
