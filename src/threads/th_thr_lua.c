/*
** th_thr_lua.c: luaopen_threads_core, and the Lua handles of shared
** objects. lua/threads/core.lua loads this entry point from torch's
** core.so (package.loadlib), so the package is one more table of the
** engine's C functions. A handle holds one reference of its object;
** h:free() drops it early (later use is an error naming the method),
** the garbage collector drops it otherwise.
*/
#include <stdio.h>
#include "th_thr.h"

const char *const thr_mt[THR_NKINDS] = {
  NULL, "threads.Mutex", "threads.Condition", "threads.CQueue", NULL, NULL
};

void thr_pushhandle(lua_State *L, thr_obj *o) {
  thr_handle *h = lua_newuserdatauv(L, sizeof *h, 0);
  h->o = o;
  luaL_setmetatable(L, thr_mt[o->kind]);
}

static thr_handle *anyhandle(lua_State *L, int idx, const char *fname) {
  int k;
  for (k = 1; k < THR_NKINDS; k++) {
    thr_handle *h;
    if (thr_mt[k] == NULL) continue;
    h = luaL_testudata(L, idx, thr_mt[k]);
    if (h != NULL) return h;
  }
  luaL_error(L, "%s: a threads.Mutex, Condition or Queue expected, got %s", fname, luaL_typename(L, idx));
  return NULL;
}

thr_obj *thr_checkobj(lua_State *L, int idx, thr_kind kind, const char *fname) {
  thr_handle *h = luaL_testudata(L, idx, thr_mt[kind]);
  if (h == NULL)
    luaL_error(L, "%s: %s expected as argument %d, got %s", fname, thr_mt[kind], idx, luaL_typename(L, idx));
  if (h->o == NULL) luaL_error(L, "%s: the %s was freed (:free())", fname, thr_mt[kind]);
  return h->o;
}

/* h:id(): the number that names the object in any thread: Mutex(id) */
static int h_id(lua_State *L) {
  thr_handle *h = anyhandle(L, 1, "id");
  if (h->o == NULL) return luaL_error(L, "id: the object was freed (:free())");
  lua_pushinteger(L, (lua_Integer)h->o->id);
  return 1;
}

/* h:free(): drops this handle's reference now; twice is harmless */
static int h_free(lua_State *L) {
  thr_handle *h = anyhandle(L, 1, "free");
  if (h->o != NULL) {
    thr_obj *o = h->o;
    h->o = NULL;
    thr_release(o);
  }
  return 0;
}

/* the shareable-userdata protocol (docs/threads.md): one new reference in
   flight, adopted by threads._adopt in the receiving state */
static int h_share(lua_State *L) {
  thr_handle *h = anyhandle(L, 1, "__share");
  if (h->o == NULL) return luaL_error(L, "__share: the object was freed (:free())");
  lua_pushlightuserdata(L, (void *)(intptr_t)thr_share(h->o));
  lua_pushliteral(L, "threads._adopt");
  return 2;
}

static int h_tostring(lua_State *L) {
  thr_handle *h = anyhandle(L, 1, "__tostring");
  const char *name = luaL_getmetafield(L, 1, "__name") ? lua_tostring(L, -1) : "threads object";
  if (h->o == NULL) lua_pushfstring(L, "%s (freed)", name);
  else lua_pushfstring(L, "%s %d", name, (int)h->o->id);
  return 1;
}

void thr_newmetatable(lua_State *L, thr_kind kind, const luaL_Reg *methods) {
  static const luaL_Reg common[] = {
    {"id", h_id}, {"free", h_free}, {"__share", h_share}, {NULL, NULL}
  };
  luaL_newmetatable(L, thr_mt[kind]);
  luaL_setfuncs(L, common, 0);
  luaL_setfuncs(L, methods, 0);
  lua_pushcfunction(L, h_free);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, h_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushvalue(L, -1);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}

/* core.count([kind]): live shared objects ('mutex', 'condition', 'queue',
   'tensor', 'storage', or all), and the references in flight: what the
   specs check for leaks */
static int c_count(lua_State *L) {
  static const char *const kinds[] = {"all", "mutex", "condition", "queue", "tensor", "storage", NULL};
  int k = luaL_checkoption(L, 1, "all", kinds);
  lua_pushinteger(L, (lua_Integer)thr_count((thr_kind)k));
  lua_pushinteger(L, (lua_Integer)thr_count_inflight());
  return 2;
}

int luaopen_threads_core(lua_State *L) {
  int core;
  lua_newtable(L);
  core = lua_gettop(L);
  thr_open_mutex(L, core);
  thr_open_cond(L, core);
  thr_open_queue(L, core);
  thr_open_thread(L, core);
  thr_open_share(L, core);
  lua_pushcfunction(L, c_count);
  lua_setfield(L, core, "count");
  return 1;
}
