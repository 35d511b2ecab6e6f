/*
** th_lua_nn_volumetric.c: bindings in torch._C.nn for volumetric modules
** (Torch7's wider module set). Arguments as in th_lua_nnarg.h.
*/
#include "th_lua_nnarg.h"

static const luaL_Reg funcs[] = {
    {NULL, NULL}};

void th_lua_open_nn_volumetric(lua_State *L, int C) {
  th_lua_nn_push(L, C);
  luaL_setfuncs(L, funcs, 0);
  lua_pop(L, 1);
}
