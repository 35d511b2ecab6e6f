/* th_lua_nn.c: bindings for nn (stub). */
#include "th_lua.h"

void th_lua_open_nn(lua_State *L, int C) {
  (void)L;
  (void)C;
}
