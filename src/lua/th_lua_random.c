/* th_lua_random.c: bindings for the random generator (stub). */
#include "th_lua.h"

void th_lua_open_random(lua_State *L, int C, int methods) {
  (void)L;
  (void)C;
  (void)methods;
}
