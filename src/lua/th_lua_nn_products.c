/*
** th_lua_nn_products.c: bindings in torch._C.nn for the linear family, distances and products
** (Torch7's wider module set). Arguments as in th_lua_nnarg.h. Only nn.IndexLinear has
** kernels of its own; the other modules compose tensor ops in Lua.
*/
#include "th_lua_nnarg.h"
#include "../nn/th_nn_products.h"

#define T(i, what) th_lua_nn_tensor(L, i, fn, what)

/* indexlinear_updateOutput(self, keys, keysOffset, values, sizes, output, weight, bias,
   normalizedValues, train) */
static int il_update_output(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateOutput");
  int64_t off = th_lua_nn_int(L, 3, -1, fn, "keysOffset");
  int train = lua_toboolean(L, 10);
  th_lua_check(L,
               th_nn_indexlinear_update_output(T(2, "keys"), off, T(4, "values"), T(5, "sizes"),
                                               T(6, "output"), T(7, "weight"), T(8, "bias"),
                                               T(9, "normalizedValues"), train),
               fn);
  return 0;
}

/* indexlinear_accGradParameters(self, keys, keysOffset, values, sizes, gradOutput, gradWeight,
   gradBias, weight, bias, scale) */
static int il_acc_grad(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "accGradParameters");
  int64_t off = th_lua_nn_int(L, 3, -1, fn, "keysOffset");
  double scale = th_lua_nn_num(L, 11, 1.0, fn, "scale");
  th_lua_check(L,
               th_nn_indexlinear_acc_grad_params(T(2, "keys"), off, T(4, "values"), T(5, "sizes"),
                                                 T(6, "gradOutput"), T(7, "gradWeight"),
                                                 T(8, "gradBias"), T(9, "weight"), T(10, "bias"),
                                                 scale),
               fn);
  return 0;
}

/* indexlinear_updateParameters(self, gradWeight, gradBias, weight, bias, keys, keysOffset,
   weightDecay, lr) */
static int il_update_params(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateParameters");
  int64_t off = th_lua_nn_int(L, 7, -1, fn, "keysOffset");
  double wd = th_lua_nn_num(L, 8, 0.0, fn, "weightDecay");
  double lr = th_lua_nn_num(L, 9, 0.0, fn, "learningRate");
  th_lua_check(L,
               th_nn_indexlinear_update_params(T(2, "gradWeight"), T(3, "gradBias"), T(4, "weight"),
                                               T(5, "bias"), T(6, "keys"), off, wd, lr),
               fn);
  return 0;
}

/* indexlinear_accUpdateGradParameters(self, keys, keysOffset, values, sizes, gradOutput,
   weight, bias, weightDecay, scale) */
static int il_acc_update(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "accUpdateGradParameters");
  int64_t off = th_lua_nn_int(L, 3, -1, fn, "keysOffset");
  double wd = th_lua_nn_num(L, 9, 0.0, fn, "weightDecay");
  double scale = th_lua_nn_num(L, 10, 1.0, fn, "scale");
  th_lua_check(L,
               th_nn_indexlinear_acc_update_params(T(2, "keys"), off, T(4, "values"), T(5, "sizes"),
                                                   T(6, "gradOutput"), T(7, "weight"),
                                                   T(8, "bias"), wd, scale),
               fn);
  return 0;
}

static const luaL_Reg funcs[] = {
    {"indexlinear_updateOutput", il_update_output},
    {"indexlinear_accGradParameters", il_acc_grad},
    {"indexlinear_updateParameters", il_update_params},
    {"indexlinear_accUpdateGradParameters", il_acc_update},
    {NULL, NULL}};

void th_lua_open_nn_products(lua_State *L, int C) {
  th_lua_nn_push(L, C);
  luaL_setfuncs(L, funcs, 0);
  lua_pop(L, 1);
}
