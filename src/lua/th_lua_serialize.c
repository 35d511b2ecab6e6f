/* th_lua_serialize.c: bindings for serialize (stub). */
#include "th_lua.h"

void th_lua_open_serialize(lua_State *L, int C) {
  (void)L;
  (void)C;
}
