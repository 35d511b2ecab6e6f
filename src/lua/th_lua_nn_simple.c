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

/* --- adapters of the rows below: the kernel called with a[stack index] --- */

static int prelu_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_prelu_update_output(a[2].t, a[3].t, a[4].t, a[5].i);
}

static int prelu_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_prelu_update_grad_input(a[2].t, a[3].t, a[4].t, a[5].t, a[6].i);
}

static int prelu_acc(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_prelu_acc_grad_params(a[2].t, a[3].t, a[4].t, a[5].i, a[6].n);
}

/* slopes come from the default generator (torch.manualSeed reproduces them) */
static int rrelu_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_rrelu_update_output(a[2].t, a[3].t, a[4].t, a[5].n, a[6].n, a[7].b, a[8].b,
                                   th_random_default());
}

static int rrelu_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_rrelu_update_grad_input(a[2].t, a[3].t, a[4].t, a[5].t, a[6].n, a[7].n, a[8].b,
                                       a[9].b);
}

static const th_lua_nn_binding rows[] = {
    {"PReLU_updateOutput", "updateOutput", "input output weight nOutputPlane:i=0", 3, prelu_out},
    {"PReLU_updateGradInput", "updateGradInput",
     "input gradOutput gradInput weight nOutputPlane:i=0", 4, prelu_gin},
    {"PReLU_accGradParameters", "accGradParameters",
     "input gradOutput gradWeight nOutputPlane:i=0 scale:n=1", 0, prelu_acc},
    {"RReLU_updateOutput", "updateOutput",
     "input output noise lower:n=0.125 upper:n=0.3333333333333333 train:b inplace:b", 3, rrelu_out},
    {"RReLU_updateGradInput", "updateGradInput",
     "input gradOutput gradInput noise lower:n=0.125 upper:n=0.3333333333333333 train:b inplace:b",
     4, rrelu_gin},
    {NULL, NULL, NULL, 0, NULL}};

static const luaL_Reg funcs[] = {
    {"pw_check", pw_check},
    {NULL, NULL}};

void th_lua_open_nn_simple(lua_State *L, int C) {
  int op;
  th_lua_nn_push(L, C);
  luaL_setfuncs(L, funcs, 0);
  th_lua_nn_register(L, rows);
  for (op = 0; op < TH_NN_NPW; op++)
    th_lua_nn_register_op(L, th_nn_pw_name[op], op, pw_update_output, pw_update_grad_input);
  lua_pop(L, 1);
}
