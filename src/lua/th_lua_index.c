/*
** th_lua_index.c: bindings for tensor index (stub, filled by its issue).
*/
#include "th_lua.h"

void th_lua_open_index(lua_State *L, int methods) {
  (void)L;
  (void)methods;
}
