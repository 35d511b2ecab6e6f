/*
** th_lua_mapguard.c: a shared file mapping whose file shrank becomes a
** Lua error (the core's half is src/tensor/th_map_guard.c).
** The SIGBUS handler cannot raise a Lua error (it may run inside any C
** kernel, on any thread). Like lua.c's Ctrl-C, it only sets a hook on the
** main thread of the state that made the mapping (lua_sethook is safe in
** a signal handler); the hook runs as soon as the C call that met the
** fault returns, before its results reach Lua code, and raises the
** guard's message there. A hook set before (debug.sethook, a profiler) is
** put back first.
*/
#include "th_lua.h"
#include "../tensor/th_error.h"
#include "../tensor/th_map_guard.h"

static lua_Hook saved_hook;
static int saved_mask, saved_count;
static int armed;   /* atomic: the threads of a kernel may fault at once */

static void fault_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, saved_hook, saved_mask, saved_count);
  __atomic_store_n(&armed, 0, __ATOMIC_RELEASE);
  if (th_map_guard_report(L)) luaL_error(L, "Storage(filename, true): %s", th_error_msg());
}

/* in the signal handler: arm the hook once per pending report */
static void on_fault(void *owner) {
  lua_State *L = owner;
  if (__atomic_exchange_n(&armed, 1, __ATOMIC_ACQ_REL)) return;
  saved_hook = lua_gethook(L);
  saved_mask = lua_gethookmask(L);
  saved_count = lua_gethookcount(L);
  lua_sethook(L, fault_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

void th_lua_mapguard_own(lua_State *L, th_storage *s) {
  lua_State *main;
  lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
  main = lua_tothread(L, -1);
  lua_pop(L, 1);
  th_map_guard_set_notify(on_fault);
  th_map_guard_set_owner(s->data, main);
}
