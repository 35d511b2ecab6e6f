/*
** th_lua_scope.c: dispose scopes (torch.DisposeScope) and memory categories.
** A scope frees, when it closes, every tensor born while it was the
** innermost open scope of the running coroutine, except those moved out
** or detached (TorchSharp's third technique, after GC and explicit free).
**
** Per Lua state, the registry holds at &STATE_KEY a table:
**   [ST_STACKS]   thread -> array of open scopes, innermost last (weak keys:
**                 a collected coroutine takes its stack with it)
**   [ST_OWNER]    tensor -> the scope it is registered with (weak keys)
**   [ST_PENDING]  tensors registered at birth whose storage category is not
**                 settled yet (weak values), ST_NPENDING of them
**   [ST_WEAKV]    the metatable {__mode = 'v'} shared by member tables
** A scope is a userdata; user value 1 is its member table (lightuserdata of
** the th_tensor -> the tensor, weak values), user value 2 its thread.
** Invariants: a tensor is in scope S's member table iff owner[t] == S; a
** closed scope has no members and is on no stack; tables hold tensors only
** weakly, so a scope never keeps garbage alive and never hands back a
** collected tensor (weak values are cleared before finalizers run).
**
** Memory categories (th_alloc.h): a scope's tensors count as 'scoped' when
** their storage is theirs alone (refcount 1, so a view of an outside
** tensor never re-labels the outside memory). Storages are made by the
** core, which knows no scopes, so the label is applied after the fact:
** th_lua_gcstep calls th_lua_scope_sync after each allocating binding
** (that settles the tensors just born), and torch.memoryStats walks all
** scopes first (that catches tensors resized long after birth). A storage
** leaves 'scoped' when its tensor is detached, moved out of all scopes or
** freed while still shared. 'module' is set explicitly (nn) and never
** touched by scopes.
*/
#include <string.h>
#include "th_lua.h"

int th_lua_scope_nopen;     /* open scopes, all states: 0 keeps tensor birth cheap */
int th_lua_scope_npending;  /* births since the last sync, all states: a hint */

static const char STATE_KEY = 'D';
enum { ST_STACKS = 1, ST_OWNER, ST_PENDING, ST_NPENDING, ST_WEAKV };

#define SCOPE_MT "torch.DisposeScope"

typedef struct scope {
  int open;
} scope;

/* --- storage categories ------------------------------------------------- */

static void mark_scoped(th_tensor *t) {
  th_storage *s = t->storage;
  if (s != NULL && s->cat == TH_MEM_FREE && s->refcount == 1)
    th_storage_set_category(s, TH_MEM_SCOPED);
}

static void unmark_scoped(th_tensor *t) {
  if (t->storage != NULL && t->storage->cat == TH_MEM_SCOPED)
    th_storage_set_category(t->storage, TH_MEM_FREE);
}

/* what a scope does at its end: t:free(), remembering who did it so that
   a later use says so */
static void dispose_tensor(th_tensor *t) {
  if (t->flags & TH_TENSOR_FREED) return;  /* freed twice is harmless */
  /* memory that outlives this view is not the scope's any more */
  if (t->storage != NULL && t->storage->refcount > 1) unmark_scoped(t);
  th_tensor_clear(t);
  t->flags |= TH_TENSOR_FREED | TH_LUA_TENSOR_DISPOSED;
}

/* --- state ---------------------------------------------------------------- */

static void new_weak_table(lua_State *L, const char *mode) {
  lua_newtable(L);
  lua_newtable(L);
  lua_pushstring(L, mode);
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
}

/* pushes the state table (created by th_lua_open_scope) */
static int push_state(lua_State *L) {
  luaL_checkstack(L, 10, "dispose scope");
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &STATE_KEY) == LUA_TTABLE) return lua_gettop(L);
  lua_pop(L, 1);
  lua_createtable(L, 5, 0);
  new_weak_table(L, "k");
  lua_rawseti(L, -2, ST_STACKS);
  new_weak_table(L, "k");
  lua_rawseti(L, -2, ST_OWNER);
  new_weak_table(L, "v");
  lua_rawseti(L, -2, ST_PENDING);
  lua_pushinteger(L, 0);
  lua_rawseti(L, -2, ST_NPENDING);
  lua_newtable(L);
  lua_pushliteral(L, "v");
  lua_setfield(L, -2, "__mode");
  lua_rawseti(L, -2, ST_WEAKV);
  lua_pushvalue(L, -1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &STATE_KEY);
  return lua_gettop(L);
}

/* pushes the stack of the running thread, or nil when it has none and !create */
static int push_stack(lua_State *L, int st, int create) {
  lua_rawgeti(L, st, ST_STACKS);
  lua_pushthread(L);
  if (lua_rawget(L, -2) != LUA_TTABLE && create) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushthread(L);
    lua_pushvalue(L, -2);
    lua_rawset(L, -4);
  }
  lua_remove(L, -2);
  return lua_type(L, -1) == LUA_TTABLE;
}

static scope *toscope(lua_State *L, int idx) { return luaL_testudata(L, idx, SCOPE_MT); }

static scope *checkscope(lua_State *L, int idx, const char *fname) {
  scope *s = toscope(L, idx);
  if (s == NULL)
    th_lua_argerror(L, idx, fname, "torch.DisposeScope expected, got %s", th_lua_typename(L, idx));
  return s;
}

/* pushes owner[t] (a scope or nil); the tensor is at t_idx */
static int push_owner(lua_State *L, int st, int t_idx) {
  lua_rawgeti(L, st, ST_OWNER);
  lua_pushvalue(L, t_idx);
  lua_rawget(L, -2);
  lua_remove(L, -2);
  return !lua_isnil(L, -1);
}

/* registers the tensor at t_idx with the open scope at s_idx */
static void add_member(lua_State *L, int st, int s_idx, int t_idx) {
  lua_getiuservalue(L, s_idx, 1);
  lua_pushvalue(L, t_idx);
  lua_rawsetp(L, -2, lua_touserdata(L, t_idx));
  lua_pop(L, 1);
  lua_rawgeti(L, st, ST_OWNER);
  lua_pushvalue(L, t_idx);
  lua_pushvalue(L, s_idx);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

/* unregisters the tensor at t_idx from the scope at s_idx (its owner) */
static void remove_member(lua_State *L, int st, int s_idx, int t_idx) {
  lua_getiuservalue(L, s_idx, 1);
  lua_pushnil(L);
  lua_rawsetp(L, -2, lua_touserdata(L, t_idx));
  lua_pop(L, 1);
  lua_rawgeti(L, st, ST_OWNER);
  lua_pushvalue(L, t_idx);
  lua_pushnil(L);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

static int is_member(lua_State *L, int s_idx, int t_idx) {
  int yes;
  lua_getiuservalue(L, s_idx, 1);
  yes = lua_rawgetp(L, -1, lua_touserdata(L, t_idx)) != LUA_TNIL && lua_rawequal(L, -1, t_idx);
  lua_pop(L, 2);
  return yes;
}

/* pushes the scope's stack and returns the scope's position in it (0 if absent) */
static lua_Integer find_in_stack(lua_State *L, int st, int s_idx) {
  lua_Integer i;
  lua_rawgeti(L, st, ST_STACKS);
  lua_getiuservalue(L, s_idx, 2);
  if (lua_rawget(L, -2) != LUA_TTABLE) {
    lua_remove(L, -2);
    return 0;
  }
  lua_remove(L, -2);
  for (i = (lua_Integer)lua_rawlen(L, -1); i > 0; i--) {
    int same;
    lua_rawgeti(L, -1, i);
    same = lua_rawequal(L, -1, s_idx);
    lua_pop(L, 1);
    if (same) return i;
  }
  return 0;
}

/* pushes the scope just outside the open scope at s_idx in its thread, or nil */
static void push_outer(lua_State *L, int st, int s_idx) {
  lua_Integer i = find_in_stack(L, st, s_idx);
  if (i > 1) lua_rawgeti(L, -1, i - 1);
  else lua_pushnil(L);
  lua_remove(L, -2);
}

/* moves the tensor at t_idx out of the scope at s_idx: into the next outer
   scope when 'outer' and there is one, else out of all scopes */
static void move_out(lua_State *L, int st, int s_idx, int t_idx, int outer) {
  th_tensor *t = lua_touserdata(L, t_idx);
  remove_member(L, st, s_idx, t_idx);
  if (outer) {
    push_outer(L, st, s_idx);
    if (!lua_isnil(L, -1)) {
      add_member(L, st, lua_gettop(L), t_idx);
      lua_pop(L, 1);
      return;  /* still scoped: the category stays */
    }
    lua_pop(L, 1);
  }
  unmark_scoped(t);
}

/* frees (or, when !dispose, lets go of) every member of the scope at s_idx but
   those that are keys of the table at keep_idx (0: none) */
static void release_members(lua_State *L, int st, int s_idx, int keep_idx, int dispose) {
  int members;
  lua_getiuservalue(L, s_idx, 1);
  members = lua_gettop(L);
  lua_rawgeti(L, st, ST_OWNER);
  lua_pushnil(L);
  while (lua_next(L, members)) {  /* key -2, tensor -1 */
    th_tensor *t = lua_touserdata(L, -1);
    int kept = 0;
    if (keep_idx) {
      lua_pushvalue(L, -1);
      kept = lua_rawget(L, keep_idx) != LUA_TNIL;
      lua_pop(L, 1);
    }
    if (!kept) {
      lua_pushvalue(L, -1);
      lua_pushnil(L);
      lua_rawset(L, members + 1);  /* owner[t] = nil */
      lua_pushvalue(L, -2);
      lua_pushnil(L);
      lua_rawset(L, members);  /* clearing a field during traversal is allowed */
      if (dispose) dispose_tensor(t);
      else unmark_scoped(t);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 2);
}

/* the end of a scope: off its thread's stack first, so nothing born from
   here on registers with it, then its members go */
static void close_scope(lua_State *L, int s_idx, int dispose) {
  scope *s = lua_touserdata(L, s_idx);
  int st;
  lua_Integer i, n;
  if (!s->open) return;
  s->open = 0;
  th_lua_scope_nopen--;
  st = push_state(L);
  i = find_in_stack(L, st, s_idx);
  if (i > 0) {  /* usually the top; out-of-order closes keep the rest in order */
    n = (lua_Integer)lua_rawlen(L, -1);
    for (; i < n; i++) {
      lua_rawgeti(L, -1, i + 1);
      lua_rawseti(L, -2, i);
    }
    lua_pushnil(L);
    lua_rawseti(L, -2, n);
  }
  lua_pop(L, 1);
  release_members(L, st, s_idx, 0, dispose);
  lua_pop(L, 1);
}

/* --- hooks called by th_lua_util.c ----------------------------------------- */

void th_lua_scope_register(lua_State *L, int idx) {
  int st;
  lua_Integer n;
  idx = lua_absindex(L, idx);
  st = push_state(L);
  if (!push_stack(L, st, 0) || (n = (lua_Integer)lua_rawlen(L, -1)) == 0) {
    lua_settop(L, st - 1);
    return;
  }
  lua_rawgeti(L, -1, n);
  add_member(L, st, lua_gettop(L), idx);
  /* its storage usually appears before the binding returns: see sync */
  lua_rawgeti(L, st, ST_NPENDING);
  n = lua_tointeger(L, -1) + 1;
  lua_pop(L, 1);
  lua_rawgeti(L, st, ST_PENDING);
  lua_pushvalue(L, idx);
  lua_rawseti(L, -2, n);
  lua_pushinteger(L, n);
  lua_rawseti(L, st, ST_NPENDING);
  th_lua_scope_npending++;
  lua_settop(L, st - 1);
}

/* settles the category of tensors born since the last call */
void th_lua_scope_sync(lua_State *L) {
  int st = push_state(L), pending;
  lua_Integer i, n;
  th_lua_scope_npending = 0;
  lua_rawgeti(L, st, ST_NPENDING);
  n = lua_tointeger(L, -1);
  lua_pop(L, 1);
  if (n > 0) {
    lua_rawgeti(L, st, ST_PENDING);
    pending = lua_gettop(L);
    for (i = 1; i <= n; i++) {
      if (lua_rawgeti(L, pending, i) == LUA_TUSERDATA) {
        if (push_owner(L, st, pending + 1)) mark_scoped(lua_touserdata(L, pending + 1));
        lua_pop(L, 1);
        lua_pushnil(L);
        lua_rawseti(L, pending, i);
      }
      lua_pop(L, 1);
    }
    lua_pushinteger(L, 0);
    lua_rawseti(L, st, ST_NPENDING);
  }
  lua_settop(L, st - 1);
}

/* C.scopeSync(): every member of every open scope of this state, for
   torch.memoryStats (a tensor may have got its storage long after birth) */
static int sc_syncall(lua_State *L) {
  int st;
  th_lua_scope_sync(L);
  st = push_state(L);
  lua_rawgeti(L, st, ST_STACKS);
  lua_pushnil(L);
  while (lua_next(L, st + 1)) {  /* thread -> stack */
    lua_Integer i, n = (lua_Integer)lua_rawlen(L, -1);
    for (i = 1; i <= n; i++) {
      lua_rawgeti(L, -1, i);
      lua_getiuservalue(L, -1, 1);
      lua_pushnil(L);
      while (lua_next(L, -2)) {
        mark_scoped(lua_touserdata(L, -1));
        lua_pop(L, 1);
      }
      lua_pop(L, 2);
    }
    lua_pop(L, 1);
  }
  return 0;
}

/* --- the scope object ------------------------------------------------------ */

/* C.newDisposeScope() -> a scope, now the innermost of the running coroutine */
static int sc_new(lua_State *L) {
  int st = push_state(L), stack, ud;
  scope *s;
  push_stack(L, st, 1);
  stack = lua_gettop(L);
  s = lua_newuserdatauv(L, sizeof *s, 2);
  s->open = 0;  /* consistent before anything can raise */
  ud = lua_gettop(L);
  luaL_setmetatable(L, SCOPE_MT);
  lua_newtable(L);
  lua_rawgeti(L, st, ST_WEAKV);
  lua_setmetatable(L, -2);
  lua_setiuservalue(L, ud, 1);
  lua_pushthread(L);
  lua_setiuservalue(L, ud, 2);
  lua_pushvalue(L, ud);
  lua_rawseti(L, stack, (lua_Integer)lua_rawlen(L, stack) + 1);
  s->open = 1;
  th_lua_scope_nopen++;
  return 1;
}

/* s:dispose(), and __close: frees the members; idempotent */
static int sc_dispose(lua_State *L) {
  checkscope(L, 1, "dispose");
  close_scope(L, 1, 1);
  return 0;
}

/* __gc: a scope never closed (its coroutine died, or the state is closing):
   its members are let go, not freed, as code may still hold them */
static int sc_gc(lua_State *L) {
  scope *s = toscope(L, 1);
  if (s != NULL && s->open) close_scope(L, 1, 0);
  return 0;
}

/* each argument from 'first' on must be a live tensor */
static void check_tensors(lua_State *L, int first, const char *fname) {
  int i, top = lua_gettop(L);
  for (i = first; i <= top; i++) th_lua_checktensor(L, i, fname);
}

/* s:moveToOuter(t...) -> t...: members of s go to the next outer scope
   (out of all scopes if none); other tensors are left as they are */
static int sc_movetoouter(lua_State *L) {
  int i, top, st;
  checkscope(L, 1, "moveToOuter");
  check_tensors(L, 2, "moveToOuter");
  top = lua_gettop(L);
  st = push_state(L);
  for (i = 2; i <= top; i++)
    if (is_member(L, 1, i)) move_out(L, st, 1, i, 1);
  lua_settop(L, top);
  return top - 1;
}

/* s:detach(t...) -> t...: members of s leave all scopes */
static int sc_detach(lua_State *L) {
  int i, top, st;
  checkscope(L, 1, "detach");
  check_tensors(L, 2, "detach");
  top = lua_gettop(L);
  st = push_state(L);
  for (i = 2; i <= top; i++)
    if (is_member(L, 1, i)) move_out(L, st, 1, i, 0);
  lua_settop(L, top);
  return top - 1;
}

/* s:attach(t...) -> t...: the tensors become members of s, leaving any other scope */
static int sc_attach(lua_State *L) {
  int i, top, st;
  scope *s = checkscope(L, 1, "attach");
  check_tensors(L, 2, "attach");
  if (!s->open) return luaL_error(L, "attach: the dispose scope is already disposed");
  top = lua_gettop(L);
  st = push_state(L);
  for (i = 2; i <= top; i++) {
    if (push_owner(L, st, i)) remove_member(L, st, lua_gettop(L), i);
    lua_pop(L, 1);
    add_member(L, st, 1, i);
    mark_scoped(lua_touserdata(L, i));
  }
  lua_settop(L, top);
  return top - 1;
}

/* s:disposeEverything(): frees the members now; the scope stays open */
static int sc_disposeall(lua_State *L) {
  int st;
  checkscope(L, 1, "disposeEverything");
  st = push_state(L);
  release_members(L, st, 1, 0, 1);
  return 0;
}

/* s:disposeEverythingBut(t...) -> t...: frees the other members now; the
   given ones stay members */
static int sc_disposebut(lua_State *L) {
  int i, top, st, keep;
  checkscope(L, 1, "disposeEverythingBut");
  check_tensors(L, 2, "disposeEverythingBut");
  top = lua_gettop(L);
  st = push_state(L);
  lua_createtable(L, 0, top);
  keep = lua_gettop(L);
  for (i = 2; i <= top; i++) {
    lua_pushvalue(L, i);
    lua_pushboolean(L, 1);
    lua_rawset(L, keep);
  }
  release_members(L, st, 1, keep, 1);
  lua_settop(L, top);
  return top - 1;
}

static int sc_contains(lua_State *L) {
  checkscope(L, 1, "contains");
  lua_pushboolean(L, th_lua_totensor(L, 2) != NULL && is_member(L, 1, 2));
  return 1;
}

/* s:count() -> number of live tensors the scope would free now */
static int sc_count(lua_State *L) {
  lua_Integer n = 0;
  checkscope(L, 1, "count");
  lua_getiuservalue(L, 1, 1);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    th_tensor *t = lua_touserdata(L, -1);
    if (!(t->flags & TH_TENSOR_FREED)) n++;
    lua_pop(L, 1);
  }
  lua_pushinteger(L, n);
  return 1;
}

static int sc_isdisposed(lua_State *L) {
  lua_pushboolean(L, !checkscope(L, 1, "isDisposed")->open);
  return 1;
}

/* s:outerScope() -> the next outer open scope of its coroutine, or nil */
static int sc_outer(lua_State *L) {
  int st;
  checkscope(L, 1, "outerScope");
  st = push_state(L);
  push_outer(L, st, 1);
  return 1;
}

static int sc_tostring(lua_State *L) {
  scope *s = checkscope(L, 1, "__tostring");
  lua_pushcfunction(L, sc_count);
  lua_pushvalue(L, 1);
  lua_call(L, 1, 1);
  if (s->open)
    lua_pushfstring(L, "torch.DisposeScope (open, %I tensors): %p", lua_tointeger(L, -1), (void *)s);
  else
    lua_pushfstring(L, "torch.DisposeScope (disposed): %p", (void *)s);
  return 1;
}

/* --- functions on tensors and the running coroutine -------------------------- */

/* C.currentDisposeScope() -> innermost open scope of the running coroutine, or nil */
static int sc_current(lua_State *L) {
  int st = push_state(L);
  lua_Integer n;
  if (push_stack(L, st, 0) && (n = (lua_Integer)lua_rawlen(L, -1)) > 0) lua_rawgeti(L, -1, n);
  else lua_pushnil(L);
  return 1;
}

/* t:disposeScope() -> the scope t is registered with, or nil */
static int t_scope(lua_State *L) {
  int st;
  th_lua_checktensor(L, 1, "disposeScope");
  st = push_state(L);
  push_owner(L, st, 1);
  return 1;
}

/* t:moveToOuterDisposeScope() -> t */
static int t_movetoouter(lua_State *L) {
  int st;
  th_lua_checktensor(L, 1, "moveToOuterDisposeScope");
  lua_settop(L, 1);
  st = push_state(L);
  if (push_owner(L, st, 1)) move_out(L, st, lua_gettop(L), 1, 1);
  lua_settop(L, 1);
  return 1;
}

/* t:detachFromDisposeScope() -> t */
static int t_detach(lua_State *L) {
  int st;
  th_lua_checktensor(L, 1, "detachFromDisposeScope");
  lua_settop(L, 1);
  st = push_state(L);
  if (push_owner(L, st, 1)) move_out(L, st, lua_gettop(L), 1, 0);
  lua_settop(L, 1);
  return 1;
}

static const char *const catnames[] = {"free", "module", "scoped", NULL};

/* the storage behind a tensor or storage argument; a tensor without one
   gets an empty one, so that the category survives its first resize
   (the core grows a storage in place, keeping its category) */
static th_storage *category_storage(lua_State *L, int idx, const char *fname) {
  th_lua_storage *b = th_lua_tostoragebox(L, idx);
  th_tensor *t;
  if (b != NULL) return th_lua_checkstorage(L, idx, fname);
  if (th_lua_totensor(L, idx) == NULL)
    th_lua_argerror(L, idx, fname, "tensor or storage expected, got %s", th_lua_typename(L, idx));
  t = th_lua_checktensor(L, idx, fname);
  if (t->storage == NULL) {
    th_storage *s = th_storage_new(t->dtype, 0);
    if (s == NULL) th_lua_error(L, fname);
    th_tensor_set(t, s, 0, 0, NULL, NULL);  /* cannot fail: no sizes */
    th_storage_release(s);
  }
  return t->storage;
}

static th_memcat check_category(lua_State *L, int idx, const char *fname) {
  const char *name = lua_tostring(L, idx);
  int c;
  for (c = 0; name != NULL && lua_type(L, idx) == LUA_TSTRING && catnames[c]; c++)
    if (strcmp(name, catnames[c]) == 0) return (th_memcat)c;
  th_lua_argerror(L, idx, fname, "memory category 'free', 'module' or 'scoped' expected, got %s",
                  lua_type(L, idx) == LUA_TSTRING ? lua_pushfstring(L, "'%s'", name) : th_lua_typename(L, idx));
  return TH_MEM_FREE;
}

/* x:_setMemoryCategory(name) / C.setMemoryCategory(x, name) -> x, for a tensor or a storage */
static int sc_setcategory(lua_State *L) {
  th_memcat c = check_category(L, 2, "_setMemoryCategory");
  th_storage_set_category(category_storage(L, 1, "_setMemoryCategory"), c);
  lua_settop(L, 1);
  return 1;
}

/* x:_memoryCategory() -> 'free' | 'module' | 'scoped', or nil for a tensor without storage */
static int sc_getcategory(lua_State *L) {
  th_lua_storage *b = th_lua_tostoragebox(L, 1);
  th_storage *s = b != NULL ? th_lua_checkstorage(L, 1, "_memoryCategory")
                            : th_lua_checktensor(L, 1, "_memoryCategory")->storage;
  if (s == NULL) lua_pushnil(L);
  else lua_pushstring(L, th_memcat_name[s->cat]);
  return 1;
}

/* torch.detachModuleTensor(x) -> x: for nn and optnet. A tensor leaves any
   scope (a module's output, gradInput, parameters and buffers live as long
   as the module) and its storage counts as 'module'; a storage is only
   labelled. */
static int sc_detachmodule(lua_State *L) {
  const char *fname = "torch.detachModuleTensor";
  lua_settop(L, 1);
  if (th_lua_totensor(L, 1) != NULL) {
    int st;
    th_lua_checktensor(L, 1, fname);
    st = push_state(L);
    if (push_owner(L, st, 1)) move_out(L, st, lua_gettop(L), 1, 0);
    lua_settop(L, 1);
  }
  th_storage_set_category(category_storage(L, 1, fname), TH_MEM_MODULE);
  return 1;
}

static const luaL_Reg scope_methods[] = {
    {"dispose", sc_dispose}, {"moveToOuter", sc_movetoouter}, {"detach", sc_detach},
    {"attach", sc_attach}, {"include", sc_attach}, {"disposeEverything", sc_disposeall},
    {"disposeEverythingBut", sc_disposebut}, {"contains", sc_contains}, {"count", sc_count},
    {"isDisposed", sc_isdisposed}, {"outerScope", sc_outer}, {NULL, NULL}};

static const luaL_Reg scope_funcs[] = {
    {"newDisposeScope", sc_new}, {"currentDisposeScope", sc_current}, {"scopeSync", sc_syncall},
    {"tensorDisposeScope", t_scope}, {"moveToOuterDisposeScope", t_movetoouter},
    {"detachFromDisposeScope", t_detach}, {"setMemoryCategory", sc_setcategory},
    {"getMemoryCategory", sc_getcategory}, {"detachModuleTensor", sc_detachmodule},
    {NULL, NULL}};

void th_lua_open_scope(lua_State *L, int C) {
  int dt;
  C = lua_absindex(L, C);
  push_state(L);
  lua_pop(L, 1);
  luaL_newmetatable(L, SCOPE_MT);
  lua_pushliteral(L, SCOPE_MT);
  lua_setfield(L, -2, "__typename");
  lua_pushliteral(L, SCOPE_MT);
  lua_setfield(L, -2, "__name");
  lua_newtable(L);
  luaL_setfuncs(L, scope_methods, 0);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, sc_dispose);
  lua_setfield(L, -2, "__close");
  lua_pushcfunction(L, sc_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, sc_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
  lua_pushvalue(L, C);
  luaL_setfuncs(L, scope_funcs, 0);
  lua_pop(L, 1);
  /* storages take a category too (optnet's arenas are module-owned) */
  for (dt = 0; dt < TH_NDTYPES; dt++) {
    luaL_getmetatable(L, th_lua_storage_mt[dt]);
    lua_pushcfunction(L, sc_setcategory);
    lua_setfield(L, -2, "_setMemoryCategory");
    lua_pushcfunction(L, sc_getcategory);
    lua_setfield(L, -2, "_memoryCategory");
    lua_pop(L, 1);
  }
}
