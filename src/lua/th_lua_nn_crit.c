/*
** th_lua_nn_crit.c: bindings in torch._C.nn for criterions
** (Torch7's wider module set). Arguments as in th_lua_nnarg.h: the
** criterion first, its class naming the errors. Kernels: src/nn/th_nn_crit.h.
*/
#include "th_lua_nnarg.h"
#include "../nn/th_nn_crit.h"

/* multimargin_updateOutput(self, input, target, weights|nil, sizeAverage, p, margin) -> loss */
static int multimargin_update_output(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateOutput");
  th_tensor *input = th_lua_nn_tensor(L, 2, fn, "input");
  th_tensor *target = th_lua_nn_tensor(L, 3, fn, "target");
  th_tensor *weights = th_lua_nn_opttensor(L, 4, fn, "weights");
  int sizeAverage = lua_toboolean(L, 5);
  int64_t p = th_lua_nn_int(L, 6, 1, fn, "p");
  double margin = th_lua_nn_num(L, 7, 1.0, fn, "margin");
  double out = 0;
  if (p != 1 && p != 2) luaL_error(L, "%s: p must be 1 or 2, got %d", fn, (int)p);
  th_lua_check(L, th_nn_multimargin_update_output(input, target, weights, sizeAverage, (int)p,
                                                  margin, &out),
               fn);
  lua_pushnumber(L, out);
  return 1;
}

/* multimargin_updateGradInput(self, input, target, gradInput, weights|nil, sizeAverage, p, margin) */
static int multimargin_update_grad_input(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateGradInput");
  th_tensor *input = th_lua_nn_tensor(L, 2, fn, "input");
  th_tensor *target = th_lua_nn_tensor(L, 3, fn, "target");
  th_tensor *gi = th_lua_nn_tensor(L, 4, fn, "gradInput");
  th_tensor *weights = th_lua_nn_opttensor(L, 5, fn, "weights");
  int sizeAverage = lua_toboolean(L, 6);
  int64_t p = th_lua_nn_int(L, 7, 1, fn, "p");
  double margin = th_lua_nn_num(L, 8, 1.0, fn, "margin");
  if (p != 1 && p != 2) luaL_error(L, "%s: p must be 1 or 2, got %d", fn, (int)p);
  th_lua_check(L, th_nn_multimargin_update_grad_input(input, target, weights, sizeAverage,
                                                      (int)p, margin, gi),
               fn);
  lua_settop(L, 4);
  return 1;
}

/* multilabelmargin_updateOutput(self, input, target, isTarget, sizeAverage) -> loss */
static int multilabelmargin_update_output(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateOutput");
  th_tensor *input = th_lua_nn_tensor(L, 2, fn, "input");
  th_tensor *target = th_lua_nn_tensor(L, 3, fn, "target");
  th_tensor *isTarget = th_lua_nn_tensor(L, 4, fn, "isTarget");
  double out = 0;
  th_lua_check(L, th_nn_multilabelmargin_update_output(input, target, isTarget,
                                                       lua_toboolean(L, 5), &out),
               fn);
  lua_pushnumber(L, out);
  return 1;
}

/* multilabelmargin_updateGradInput(self, input, target, gradInput, isTarget, sizeAverage) */
static int multilabelmargin_update_grad_input(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateGradInput");
  th_tensor *input = th_lua_nn_tensor(L, 2, fn, "input");
  th_tensor *target = th_lua_nn_tensor(L, 3, fn, "target");
  th_tensor *gi = th_lua_nn_tensor(L, 4, fn, "gradInput");
  th_tensor *isTarget = th_lua_nn_tensor(L, 5, fn, "isTarget");
  th_lua_check(L, th_nn_multilabelmargin_update_grad_input(input, target, isTarget,
                                                           lua_toboolean(L, 6), gi),
               fn);
  lua_settop(L, 4);
  return 1;
}

static const luaL_Reg funcs[] = {
    {"multimargin_updateOutput", multimargin_update_output},
    {"multimargin_updateGradInput", multimargin_update_grad_input},
    {"multilabelmargin_updateOutput", multilabelmargin_update_output},
    {"multilabelmargin_updateGradInput", multilabelmargin_update_grad_input},
    {NULL, NULL}};

void th_lua_open_nn_crit(lua_State *L, int C) {
  th_lua_nn_push(L, C);
  luaL_setfuncs(L, funcs, 0);
  lua_pop(L, 1);
}
