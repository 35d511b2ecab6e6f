/*
** th_lua_nn_products.c: bindings in torch._C.nn for the linear family, distances and products
** (Torch7's wider module set). Arguments as in th_lua_nnarg.h, each binding a
** row of 'rows'. Only nn.IndexLinear has kernels of its own; the other
** modules compose tensor ops in Lua.
*/
#include "th_lua_nnarg.h"
#include "../nn/th_nn_products.h"

/* --- adapters of the rows below: the kernel called with a[stack index] --- */

static int il_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_indexlinear_update_output(a[2].t, a[3].i, a[4].t, a[5].t, a[6].t, a[7].t, a[8].t,
                                         a[9].t, a[10].b);
}

static int il_acc(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_indexlinear_acc_grad_params(a[2].t, a[3].i, a[4].t, a[5].t, a[6].t, a[7].t, a[8].t,
                                           a[9].t, a[10].t, a[11].n);
}

static int il_update(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_indexlinear_update_params(a[2].t, a[3].t, a[4].t, a[5].t, a[6].t, a[7].i, a[8].n,
                                         a[9].n);
}

static int il_acc_update(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_indexlinear_acc_update_params(a[2].t, a[3].i, a[4].t, a[5].t, a[6].t, a[7].t, a[8].t,
                                             a[9].n, a[10].n);
}

static const th_lua_nn_binding rows[] = {
    {"indexlinear_updateOutput", "updateOutput",
     "keys keysOffset:i=-1 values sizes output weight bias normalizedValues train:b", 0, il_out},
    {"indexlinear_accGradParameters", "accGradParameters",
     "keys keysOffset:i=-1 values sizes gradOutput gradWeight gradBias weight bias scale:n=1", 0,
     il_acc},
    {"indexlinear_updateParameters", "updateParameters",
     "gradWeight gradBias weight bias keys keysOffset:i=-1 weightDecay:n=0 learningRate:n=0", 0,
     il_update},
    {"indexlinear_accUpdateGradParameters", "accUpdateGradParameters",
     "keys keysOffset:i=-1 values sizes gradOutput weight bias weightDecay:n=0 scale:n=1", 0,
     il_acc_update},
    {NULL, NULL, NULL, 0, NULL}};

void th_lua_open_nn_products(lua_State *L, int C) {
  th_lua_nn_push(L, C);
  th_lua_nn_register(L, rows);
  lua_pop(L, 1);
}
