/* th_lua_plan.c: bindings for plan (stub). */
#include "th_lua.h"

void th_lua_open_plan(lua_State *L, int C) {
  (void)L;
  (void)C;
}
