/*
** th_lua_nn_crit.c: bindings in torch._C.nn for criterions
** (Torch7's wider module set). Arguments as in th_lua_nnarg.h: the
** criterion first, its class naming the errors; each binding a row of
** 'rows'. Kernels: src/nn/th_nn_crit.h.
*/
#include "th_lua_nnarg.h"
#include "../nn/th_nn_crit.h"

/* the norm p of a multi-margin criterion: 1 or 2 */
static int margin_p(th_lua_nn_call *c, int64_t p) {
  if (p != 1 && p != 2) luaL_error(c->L, "%s: p must be 1 or 2, got %d", c->fn, (int)p);
  return (int)p;
}

/* --- adapters of the rows below: the kernel called with a[stack index] --- */

static int multimargin_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_multimargin_update_output(a[2].t, a[3].t, a[4].t, a[5].b, margin_p(c, a[6].i),
                                         a[7].n, &c->ret[0]);
}

static int multimargin_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_multimargin_update_grad_input(a[2].t, a[3].t, a[5].t, a[6].b, margin_p(c, a[7].i),
                                             a[8].n, a[4].t);
}

static int multilabelmargin_out(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_multilabelmargin_update_output(a[2].t, a[3].t, a[4].t, a[5].b, &c->ret[0]);
}

static int multilabelmargin_gin(th_lua_nn_call *c, const th_lua_nn_val *a) {
  return th_nn_multilabelmargin_update_grad_input(a[2].t, a[3].t, a[5].t, a[6].b, a[4].t);
}

static const th_lua_nn_binding rows[] = {
    /* -> loss */
    {"multimargin_updateOutput", "updateOutput",
     "input target weights? sizeAverage:b p:i=1 margin:n=1", TH_LUA_NN_NUMBERS(1), multimargin_out},
    {"multimargin_updateGradInput", "updateGradInput",
     "input target gradInput weights? sizeAverage:b p:i=1 margin:n=1", 4, multimargin_gin},
    /* -> loss */
    {"multilabelmargin_updateOutput", "updateOutput", "input target isTarget sizeAverage:b",
     TH_LUA_NN_NUMBERS(1), multilabelmargin_out},
    {"multilabelmargin_updateGradInput", "updateGradInput",
     "input target gradInput isTarget sizeAverage:b", 4, multilabelmargin_gin},
    {NULL, NULL, NULL, 0, NULL}};

void th_lua_open_nn_crit(lua_State *L, int C) {
  th_lua_nn_push(L, C);
  th_lua_nn_register(L, rows);
  lua_pop(L, 1);
}
