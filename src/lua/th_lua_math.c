/*
** th_lua_math.c: bindings for tensor math (stub, filled by its issue).
*/
#include "th_lua.h"

void th_lua_open_math(lua_State *L, int methods) {
  (void)L;
  (void)methods;
}
