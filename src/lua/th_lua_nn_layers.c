/*
** th_lua_nn_layers.c: bindings for the non-spatial nn kernels
** (src/nn/th_nn_layers.h) in torch._C.nn: Linear, the pointwise
** activations, SoftMax/LogSoftMax, the criterions and LookupTable.
** Arguments as in th_lua_nnarg.h: the module first, its class prefixing
** error messages ("nn.ReLU:updateOutput: ..."); tensors and parameters as
** explicit arguments, so the Lua modules decide which field each call
** uses. The bindings of one shape (check, call, return) are rows of the
** table 'rows'. The activations are a th_lua_nn_pwfamily and the
** element-wise criterions one C function per direction, both registered
** once per op with the op as upvalue ("ReLU" and "Threshold" share
** TH_NN_THRESHOLD; the Lua module picks the entry).
*/
#include <stdio.h>
#include <string.h>
#include "th_lua.h"
#include "th_lua_nnarg.h"
#include "../nn/th_nn_layers.h"

/* --- adapters of the rows below: the kernel called with a[stack index] --- */

static int linear_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_linear_update_output(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t);
}

static int linear_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_linear_update_grad_input(a[2].t, a[3].t, a[4].t, a[5].t);
}

static int linear_acc(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_linear_acc_grad_params(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, a[7].n);
}

static int softmax_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_softmax_update_output(a[2].t, a[3].t, a[4].b);
}

static int softmax_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_softmax_update_grad_input(a[2].t, a[3].t, a[4].t, a[5].b);
}

static int classnll_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_classnll_update_output(a[2].t, a[3].t, a[4].t, a[5].b, a[6].i, &c->ret[0],
                                      &c->ret[1]);
}

static int classnll_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_classnll_update_grad_input(a[2].t, a[3].t, a[5].t, a[6].b, a[7].i, a[8].n, a[4].t);
}

static int lookup_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_lookup_update_output(a[2].t, a[3].t, a[4].t);
}

static int lookup_acc(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_lookup_acc_grad_params(a[2].t, a[3].t, a[4].t, a[5].i, a[6].n);
}

static int lookup_renorm(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_lookup_renorm(a[2].t, a[3].t, a[4].n, a[5].n);
}

static const th_lua_nn_binding rows[] = {
    {"linear_updateOutput", "updateOutput", "input output weight bias? addBuffer", 3, linear_out},
    {"linear_updateGradInput", "updateGradInput", "input gradOutput gradInput weight", 4,
     linear_gin},
    {"linear_accGradParameters", "accGradParameters",
     "input gradOutput gradWeight gradBias? addBuffer scale:n=1", 0, linear_acc},
    {"softmax_updateOutput", "updateOutput", "input output log:b", 3, softmax_out},
    {"softmax_updateGradInput", "updateGradInput", "gradOutput gradInput output log:b", 3,
     softmax_gin},
    /* -> loss, total weight */
    {"classnll_updateOutput", "updateOutput",
     "input target weights? sizeAverage:b ignoreIndex:i=-100", TH_LUA_NN_NUMBERS(2), classnll_out},
    {"classnll_updateGradInput", "updateGradInput",
     "input target gradInput weights? sizeAverage:b ignoreIndex:i=-100 totalWeight:n=1", 4,
     classnll_gin},
    {"lookup_updateOutput", "updateOutput", "weight input output", 4, lookup_out},
    {"lookup_accGradParameters", "accGradParameters",
     "input gradOutput gradWeight paddingValue:i=0 scale:n=1", 0, lookup_acc},
    {"lookup_renorm", "updateOutput", "weight input maxNorm:n=0 normType:n=2", 0, lookup_renorm},
    {NULL, NULL, NULL, 0, NULL}};

/* --- pointwise activations: a th_lua_nn_pwfamily ------------------------- */

static int act_check(int op, const double *p, int inplace) {
  return th_nn_act_check((th_nn_act)op, p, inplace);
}

static int act_forward(int op, const double *p, th_tensor *input, th_tensor *output, int inplace) {
  return th_nn_act_update_output((th_nn_act)op, p, input, output, inplace);
}

static int act_backward(int op, const double *p, const th_tensor *input, th_tensor *gradOutput,
                        th_tensor *gradInput, const th_tensor *output, int inplace) {
  return th_nn_act_update_grad_input((th_nn_act)op, p, input, gradOutput, gradInput, output,
                                     inplace);
}

static const th_lua_nn_pwfamily activations = {"activation", th_nn_act_name, TH_NN_NACT,
                                               act_check,    act_forward,    act_backward};

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

/* --- element-wise criterions ---------------------------------------------- */

/* <Crit>_updateOutput(self, input, target, sizeAverage, weights|nil, p1) -> loss */
static int crit_update_output(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateOutput");
  th_nn_crit op = (th_nn_crit)lua_tointeger(L, lua_upvalueindex(1));
  th_tensor *input = th_lua_nn_tensor(L, 2, fn, "input"),
            *target = th_lua_nn_tensor(L, 3, fn, "target");
  int sizeAverage = lua_toboolean(L, 4);
  th_tensor *weights = th_lua_nn_opttensor(L, 5, fn, "weights");
  double p[1], out = 0;
  p[0] = th_lua_nn_num(L, 6, 0.0, fn, "parameter");
  th_lua_check(L, th_nn_crit_update_output(op, p, input, target, weights, sizeAverage, &out), fn);
  lua_pushnumber(L, out);
  return 1;
}

/* <Crit>_updateGradInput(self, input, target, gradInput, sizeAverage, weights|nil, p1) */
static int crit_update_grad_input(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateGradInput");
  th_nn_crit op = (th_nn_crit)lua_tointeger(L, lua_upvalueindex(1));
  th_tensor *input = th_lua_nn_tensor(L, 2, fn, "input"),
            *target = th_lua_nn_tensor(L, 3, fn, "target");
  th_tensor *gi = th_lua_nn_tensor(L, 4, fn, "gradInput");
  int sizeAverage = lua_toboolean(L, 5);
  th_tensor *weights = th_lua_nn_opttensor(L, 6, fn, "weights");
  double p[1];
  p[0] = th_lua_nn_num(L, 7, 0.0, fn, "parameter");
  th_lua_check(L, th_nn_crit_update_grad_input(op, p, input, target, weights, sizeAverage, gi), fn);
  lua_settop(L, 4);
  return 1;
}

static const luaL_Reg funcs[] = {
    {"addReLU", add_relu},
    {NULL, NULL}};

void th_lua_open_nn_layers(lua_State *L, int C) {
  int op;
  th_lua_nn_push(L, C);
  luaL_setfuncs(L, funcs, 0);
  th_lua_nn_register(L, rows);
  th_lua_nn_register_pw(L, &activations, "act_check");
  for (op = 0; op < TH_NN_NCRIT; op++)
    th_lua_nn_register_op(L, th_nn_crit_name[op], op, crit_update_output, crit_update_grad_input);
  lua_pop(L, 1);
}
