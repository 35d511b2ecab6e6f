/*
** th_lua_scope.c: dispose scopes (torch.DisposeScope) and memory categories.
** A scope frees, when it closes, every tensor born while it was the
** innermost open scope of the running coroutine, except those moved out
** or detached (TorchSharp's third technique, after GC and explicit free).
**
** Data: the registry holds at &STATE_KEY a table of thread -> array of the
** thread's open scopes, innermost last (weak keys: a collected coroutine
** takes its stack with it). A scope is a userdata whose user value 1 is its
** member array (weak values) and user value 2 its thread. A tensor's user
** value 1 is its scope (or nil) and user value 2 its slot in the member
** array, so lookups and moves are O(1) and no ephemeron table is needed.
** Invariants: members[slot(t)] == t iff scope(t) is that scope; a closed
** scope has no members and is on no stack. A scope holds its tensors
** weakly: it never keeps garbage alive, and never hands back a collected
** tensor (weak values are cleared before finalizers run).
**
** Memory categories (th_alloc.h): a scope's tensors count as 'scoped' when
** their storage is theirs alone (refcount 1, so a view of an outside
** tensor never re-labels the outside memory). Storages are made by the
** core, which knows no scopes, so the label comes after the fact:
** th_lua_gcstep calls th_lua_scope_sync after each allocating binding
** (settling the members born since), and torch.memoryStats walks all open
** scopes first (catching tensors resized long after birth). A storage
** leaves 'scoped' when its tensor is detached, moved out of all scopes or
** freed while still shared. 'module' is only set explicitly (nn, optnet:
** torch.detachModuleTensor) and never undone by scopes; such tensors are
** remembered in a weak set so that torch.memoryStats re-labels a storage
** they got later (t:set(), a resize after t:set()).
*/
#include <string.h>
#include "th_lua.h"

int th_lua_scope_nopen;     /* open scopes, all states: 0 keeps tensor birth cheap */
int th_lua_scope_npending;  /* registrations since the last sync, all states: a hint */

static const char STATE_KEY = 'D';  /* registry: thread -> stack of open scopes */
static const char WEAKV_KEY = 'W';  /* registry: the metatable of member arrays */
static const char CUR_KEY = 'C';    /* registry: see th_lua_scope_register */
static const char MODULE_KEY = 'M'; /* registry: weak set of module-owned tensors */

enum { TV_SCOPE = 1, TV_SLOT = 2 };  /* a tensor's user values */
enum { SV_MEMBERS = 1, SV_THREAD = 2 };  /* a scope's user values */

#define SCOPE_MT "torch.DisposeScope"
#define MIN_CAP 64

typedef struct scope {
  int open;
  lua_Integer n;       /* slots used in the member array, holes included */
  lua_Integer cap;     /* at n == cap the array is compacted (and maybe grown) */
  lua_Integer synced;  /* slots 1..synced had their storage category settled */
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

/* --- scopes, stacks and members -------------------------------------------- */

/* A one-entry cache for the hot path: registry[&CUR_KEY] is the innermost
   scope of the thread that last registered a tensor. Every open and close
   empties it; a hit is checked against the scope's own thread, so a
   stale entry (another state's, or a collected thread's address reused)
   is never trusted. */
static void drop_cache(lua_State *L) {
  lua_pushnil(L);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &CUR_KEY);
}

/* pushes the table thread -> stack */
static void push_stacks(lua_State *L) {
  luaL_checkstack(L, 12, "dispose scope");
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &STATE_KEY) == LUA_TTABLE) return;
  lua_pop(L, 1);
  lua_newtable(L);
  lua_newtable(L);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_pushvalue(L, -1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &STATE_KEY);
}

/* pushes the stack of the running thread, or nil when it has none and !create */
static int push_stack(lua_State *L, int create) {
  push_stacks(L);
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

/* pushes the scope of the tensor at t_idx (or nil); true if it has one */
static int push_owner(lua_State *L, int t_idx) {
  if (lua_getiuservalue(L, t_idx, TV_SCOPE) == LUA_TUSERDATA) return 1;
  lua_pop(L, 1);
  lua_pushnil(L);
  return 0;
}

static int is_member(lua_State *L, int s_idx, int t_idx) {
  int yes = push_owner(L, t_idx) && lua_rawequal(L, -1, s_idx);
  lua_pop(L, 1);
  return yes;
}

static lua_Integer slot_of(lua_State *L, int t_idx) {
  lua_Integer i;
  lua_getiuservalue(L, t_idx, TV_SLOT);
  i = lua_tointeger(L, -1);
  lua_pop(L, 1);
  return i;
}

static void set_slot(lua_State *L, int t_idx, lua_Integer i) {
  lua_pushinteger(L, i);
  lua_setiuservalue(L, t_idx, TV_SLOT);
}

/* packs the live members of the scope at s_idx into slots 1..k */
static void compact(lua_State *L, int s_idx) {
  scope *s = lua_touserdata(L, s_idx);
  lua_Integer i, j = 0, synced = 0;
  lua_getiuservalue(L, s_idx, SV_MEMBERS);
  for (i = 1; i <= s->n; i++) {
    if (lua_rawgeti(L, -1, i) == LUA_TUSERDATA) {
      j++;
      if (i <= s->synced) synced = j;
      if (j != i) {
        set_slot(L, lua_gettop(L), j);
        lua_pushvalue(L, -1);
        lua_rawseti(L, -3, j);
        lua_pushnil(L);
        lua_rawseti(L, -3, i);
      }
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  s->n = j;
  s->synced = synced;
  if (s->n > s->cap / 2) s->cap *= 2;  /* amortised O(1) per member */
}

/* registers the tensor at t_idx with the open scope at s_idx */
static void add_member(lua_State *L, int s_idx, int t_idx) {
  scope *s = lua_touserdata(L, s_idx);
  if (s->n >= s->cap) compact(L, s_idx);
  lua_pushvalue(L, s_idx);
  if (!lua_setiuservalue(L, t_idx, TV_SCOPE)) return;  /* not a tensor userdata of ours */
  set_slot(L, t_idx, ++s->n);
  lua_getiuservalue(L, s_idx, SV_MEMBERS);
  lua_pushvalue(L, t_idx);
  lua_rawseti(L, -2, s->n);
  lua_pop(L, 1);
}

/* unregisters the tensor at t_idx from the scope at s_idx (its owner) */
static void remove_member(lua_State *L, int s_idx, int t_idx) {
  lua_getiuservalue(L, s_idx, SV_MEMBERS);
  lua_pushnil(L);
  lua_rawseti(L, -2, slot_of(L, t_idx));
  lua_pop(L, 1);
  lua_pushnil(L);
  lua_setiuservalue(L, t_idx, TV_SCOPE);
}

/* pushes the scope's stack and returns the scope's position in it (0 if absent) */
static lua_Integer find_in_stack(lua_State *L, int s_idx) {
  lua_Integer i;
  push_stacks(L);
  lua_getiuservalue(L, s_idx, SV_THREAD);
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
static void push_outer(lua_State *L, int s_idx) {
  lua_Integer i = find_in_stack(L, s_idx);
  if (i > 1) lua_rawgeti(L, -1, i - 1);
  else lua_pushnil(L);
  lua_remove(L, -2);
}

/* moves the tensor at t_idx out of the scope at s_idx: into the next outer
   scope when 'outer' and there is one, else out of all scopes */
static void move_out(lua_State *L, int s_idx, int t_idx, int outer) {
  remove_member(L, s_idx, t_idx);
  if (outer) {
    push_outer(L, s_idx);
    if (!lua_isnil(L, -1)) {
      add_member(L, lua_gettop(L), t_idx);
      lua_pop(L, 1);
      return;  /* still scoped: the category stays */
    }
    lua_pop(L, 1);
  }
  unmark_scoped(lua_touserdata(L, t_idx));
}

/* frees (or, when !dispose, lets go of) every member of the scope at s_idx
   except the keys of the table at keep_idx (0: none), which are packed
   into the first slots */
static void release_members(lua_State *L, int s_idx, int keep_idx, int dispose) {
  scope *s = lua_touserdata(L, s_idx);
  lua_Integer i, j = 0, n = s->n;
  int members, t_idx;
  lua_getiuservalue(L, s_idx, SV_MEMBERS);
  members = lua_gettop(L);
  t_idx = members + 1;
  for (i = 1; i <= n; i++) {
    if (lua_rawgeti(L, members, i) == LUA_TUSERDATA) {
      int kept = 0;
      if (keep_idx) {
        lua_pushvalue(L, t_idx);
        kept = lua_rawget(L, keep_idx) != LUA_TNIL;
        lua_pop(L, 1);
      }
      lua_pushnil(L);
      lua_rawseti(L, members, i);
      if (kept) {
        set_slot(L, t_idx, ++j);
        lua_pushvalue(L, t_idx);
        lua_rawseti(L, members, j);
      } else {
        lua_pushnil(L);
        lua_setiuservalue(L, t_idx, TV_SCOPE);
        if (dispose) dispose_tensor(lua_touserdata(L, t_idx));
        else unmark_scoped(lua_touserdata(L, t_idx));
      }
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  s->n = j;
  s->synced = 0;
}

/* the end of a scope: off its thread's stack first, so nothing born from
   here on registers with it, then its members go */
static void close_scope(lua_State *L, int s_idx, int dispose) {
  scope *s = lua_touserdata(L, s_idx);
  lua_Integer i, n;
  if (!s->open) return;
  s->open = 0;
  th_lua_scope_nopen--;
  drop_cache(L);
  i = find_in_stack(L, s_idx);
  if (i > 0) {  /* usually the top; an out-of-order close keeps the rest in order */
    n = (lua_Integer)lua_rawlen(L, -1);
    for (; i < n; i++) {
      lua_rawgeti(L, -1, i + 1);
      lua_rawseti(L, -2, i);
    }
    lua_pushnil(L);
    lua_rawseti(L, -2, n);
  }
  lua_pop(L, 1);
  release_members(L, s_idx, 0, dispose);
}

/* labels members synced+1..n of the scope at s_idx */
static void settle(lua_State *L, int s_idx) {
  scope *s = lua_touserdata(L, s_idx);
  lua_Integer i;
  lua_getiuservalue(L, s_idx, SV_MEMBERS);
  for (i = s->synced + 1; i <= s->n; i++) {
    if (lua_rawgeti(L, -1, i) == LUA_TUSERDATA) mark_scoped(lua_touserdata(L, -1));
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  s->synced = s->n;
}

/* --- hooks called by th_lua_util.c ----------------------------------------- */

void th_lua_scope_register(lua_State *L, int idx) {
  int top = lua_gettop(L), s_idx;
  lua_Integer n;
  idx = lua_absindex(L, idx);
  luaL_checkstack(L, 12, "dispose scope");
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &CUR_KEY) == LUA_TUSERDATA) {
    lua_getiuservalue(L, -1, SV_THREAD);
    if (lua_tothread(L, -1) == L) {
      lua_pop(L, 1);
      add_member(L, top + 1, idx);
      th_lua_scope_npending++;
      lua_settop(L, top);
      return;
    }
  }
  lua_settop(L, top);
  if (push_stack(L, 0) && (n = (lua_Integer)lua_rawlen(L, -1)) > 0) {
    lua_rawgeti(L, -1, n);
    s_idx = lua_gettop(L);
    add_member(L, s_idx, idx);
    th_lua_scope_npending++;  /* its storage usually comes before the binding returns */
    lua_pushvalue(L, s_idx);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &CUR_KEY);
  }
  lua_settop(L, top);
}

/* settles the category of tensors born in the running coroutine's
   innermost scope since the last call (th_lua_gcstep, after allocations) */
void th_lua_scope_sync(lua_State *L) {
  int top = lua_gettop(L);
  lua_Integer n;
  th_lua_scope_npending = 0;
  if (push_stack(L, 0) && (n = (lua_Integer)lua_rawlen(L, -1)) > 0) {
    lua_rawgeti(L, -1, n);
    settle(L, lua_gettop(L));
  }
  lua_settop(L, top);
}

/* C.scopeSync(): for torch.memoryStats, settles every open scope of every
   coroutine (a tensor may have got its storage long after birth) and the
   module-owned tensors (see set_module_owned) */
static int sc_syncall(lua_State *L) {
  th_lua_scope_npending = 0;
  push_stacks(L);
  lua_pushnil(L);
  while (lua_next(L, -2)) {  /* thread -> stack */
    lua_Integer i, n = (lua_Integer)lua_rawlen(L, -1);
    for (i = 1; i <= n; i++) {
      scope *s;
      lua_rawgeti(L, -1, i);
      s = lua_touserdata(L, -1);
      s->synced = 0;
      settle(L, lua_gettop(L));
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_rawgetp(L, LUA_REGISTRYINDEX, &MODULE_KEY);
  lua_pushnil(L);
  while (lua_next(L, -2)) {  /* tensor -> true */
    th_tensor *t = lua_touserdata(L, -2);
    if (t->storage != NULL && t->storage->cat == TH_MEM_FREE)
      th_storage_set_category(t->storage, TH_MEM_MODULE);
    lua_pop(L, 1);
  }
  return 0;
}

/* --- the scope object ------------------------------------------------------ */

/* C.newDisposeScope() -> a scope, now the innermost of the running coroutine */
static int sc_new(lua_State *L) {
  int stack, ud;
  scope *s;
  push_stack(L, 1);
  stack = lua_gettop(L);
  s = lua_newuserdatauv(L, sizeof *s, 2);
  memset(s, 0, sizeof *s);  /* consistent (closed) before anything can raise */
  s->cap = MIN_CAP;
  ud = lua_gettop(L);
  luaL_setmetatable(L, SCOPE_MT);
  lua_newtable(L);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &WEAKV_KEY);
  lua_setmetatable(L, -2);
  lua_setiuservalue(L, ud, SV_MEMBERS);
  lua_pushthread(L);
  lua_setiuservalue(L, ud, SV_THREAD);
  lua_pushvalue(L, ud);
  lua_rawseti(L, stack, (lua_Integer)lua_rawlen(L, stack) + 1);
  s->open = 1;
  th_lua_scope_nopen++;
  drop_cache(L);
  return 1;
}

/* s:dispose(), and __close: frees the members; idempotent */
static int sc_dispose(lua_State *L) {
  checkscope(L, 1, "dispose");
  lua_settop(L, 1);
  close_scope(L, 1, 1);
  return 0;
}

/* __gc: a scope never closed (its coroutine died, or the state is closing):
   its members are let go, not freed, as code may still hold them */
static int sc_gc(lua_State *L) {
  scope *s = toscope(L, 1);
  lua_settop(L, 1);
  if (s != NULL && s->open) close_scope(L, 1, 0);
  return 0;
}

/* each argument from 'first' on must be a live tensor */
static void check_tensors(lua_State *L, int first, const char *fname) {
  int i, top = lua_gettop(L);
  luaL_checkstack(L, 12, "dispose scope");
  for (i = first; i <= top; i++) th_lua_checkview(L, i, fname);
}

/* s:moveToOuter(t...) -> t...: members of s go to the next outer scope
   (out of all scopes if none); other tensors are left as they are */
static int sc_movetoouter(lua_State *L) {
  int i, top;
  checkscope(L, 1, "moveToOuter");
  check_tensors(L, 2, "moveToOuter");
  top = lua_gettop(L);
  for (i = 2; i <= top; i++)
    if (is_member(L, 1, i)) move_out(L, 1, i, 1);
  return top - 1;
}

/* s:detach(t...) -> t...: members of s leave all scopes */
static int sc_detach(lua_State *L) {
  int i, top;
  checkscope(L, 1, "detach");
  check_tensors(L, 2, "detach");
  top = lua_gettop(L);
  for (i = 2; i <= top; i++)
    if (is_member(L, 1, i)) move_out(L, 1, i, 0);
  return top - 1;
}

/* s:attach(t...) -> t...: the tensors become members of s, leaving any other scope */
static int sc_attach(lua_State *L) {
  int i, top;
  scope *s = checkscope(L, 1, "attach");
  check_tensors(L, 2, "attach");
  if (!s->open) return luaL_error(L, "attach: the dispose scope is already disposed");
  top = lua_gettop(L);
  for (i = 2; i <= top; i++) {
    if (is_member(L, 1, i)) continue;
    if (push_owner(L, i)) remove_member(L, lua_gettop(L), i);
    lua_pop(L, 1);
    add_member(L, 1, i);
    mark_scoped(lua_touserdata(L, i));
  }
  return top - 1;
}

/* s:disposeEverything(): frees the members now; the scope stays open */
static int sc_disposeall(lua_State *L) {
  checkscope(L, 1, "disposeEverything");
  lua_settop(L, 1);
  release_members(L, 1, 0, 1);
  return 0;
}

/* s:disposeEverythingBut(t...) -> t...: frees the other members now; the
   given ones stay members */
static int sc_disposebut(lua_State *L) {
  int i, top, keep;
  checkscope(L, 1, "disposeEverythingBut");
  check_tensors(L, 2, "disposeEverythingBut");
  top = lua_gettop(L);
  lua_createtable(L, 0, top);
  keep = lua_gettop(L);
  for (i = 2; i <= top; i++) {
    lua_pushvalue(L, i);
    lua_pushboolean(L, 1);
    lua_rawset(L, keep);
  }
  release_members(L, 1, keep, 1);
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
  scope *s = checkscope(L, 1, "count");
  lua_Integer i, n = 0;
  lua_getiuservalue(L, 1, SV_MEMBERS);
  for (i = 1; i <= s->n; i++) {
    if (lua_rawgeti(L, -1, i) == LUA_TUSERDATA &&
        !(((th_tensor *)lua_touserdata(L, -1))->flags & TH_TENSOR_FREED))
      n++;
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
  checkscope(L, 1, "outerScope");
  lua_settop(L, 1);
  push_outer(L, 1);
  return 1;
}

static int sc_tostring(lua_State *L) {
  scope *s = checkscope(L, 1, "__tostring");
  lua_settop(L, 1);
  if (!s->open) {
    lua_pushfstring(L, "torch.DisposeScope (disposed): %p", (void *)s);
    return 1;
  }
  sc_count(L);
  lua_pushfstring(L, "torch.DisposeScope (open, %I tensors): %p", lua_tointeger(L, -1), (void *)s);
  return 1;
}

/* --- functions on tensors and the running coroutine -------------------------- */

/* C.currentDisposeScope() -> innermost open scope of the running coroutine, or nil */
static int sc_current(lua_State *L) {
  lua_Integer n;
  if (push_stack(L, 0) && (n = (lua_Integer)lua_rawlen(L, -1)) > 0) lua_rawgeti(L, -1, n);
  else lua_pushnil(L);
  return 1;
}

/* t:disposeScope() -> the scope t is registered with, or nil */
static int t_scope(lua_State *L) {
  th_lua_checkview(L, 1, "disposeScope");
  push_owner(L, 1);
  return 1;
}

/* t:moveToOuterDisposeScope() -> t */
static int t_movetoouter(lua_State *L) {
  th_lua_checkview(L, 1, "moveToOuterDisposeScope");
  lua_settop(L, 1);
  if (push_owner(L, 1)) move_out(L, 2, 1, 1);
  lua_settop(L, 1);
  return 1;
}

/* t:detachFromDisposeScope() -> t */
static int t_detach(lua_State *L) {
  th_lua_checkview(L, 1, "detachFromDisposeScope");
  lua_settop(L, 1);
  if (push_owner(L, 1)) move_out(L, 2, 1, 0);
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
  t = th_lua_checkview(L, idx, fname);
  if (t->storage == NULL) {
    th_storage *s = th_storage_new(t->dtype, 0);
    if (s == NULL) th_lua_error(L, fname);
    th_tensor_set(t, s, 0, 0, NULL, NULL);  /* cannot fail: no sizes */
    th_storage_release(s);
  }
  return t->storage;
}

static th_memcat check_category(lua_State *L, int idx, const char *fname) {
  int c;
  if (lua_type(L, idx) == LUA_TSTRING) {
    const char *name = lua_tostring(L, idx);
    for (c = 0; catnames[c]; c++)
      if (strcmp(name, catnames[c]) == 0) return (th_memcat)c;
    th_lua_argerror(L, idx, fname, "memory category 'free', 'module' or 'scoped' expected, got '%s'", name);
  }
  th_lua_argerror(L, idx, fname, "memory category 'free', 'module' or 'scoped' expected, got %s",
                  th_lua_typename(L, idx));
  return TH_MEM_FREE;
}

/* remembers (or forgets) the tensor at idx as module-owned: the label is on
   its storage, which t:set() or a resize after t:set() replaces, so
   torch.memoryStats re-labels the storages of these tensors (sc_syncall) */
static void set_module_owned(lua_State *L, int idx, int yes) {
  if (th_lua_totensor(L, idx) == NULL) return;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &MODULE_KEY);
  lua_pushvalue(L, idx);
  if (yes) lua_pushboolean(L, 1);
  else lua_pushnil(L);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

int th_lua_is_module_owned(lua_State *L, int idx) {
  int yes;
  idx = lua_absindex(L, idx);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &MODULE_KEY);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  lua_pushvalue(L, idx);
  yes = lua_rawget(L, -2) != LUA_TNIL;
  lua_pop(L, 2);
  return yes;
}

/* the name errors give: the closure's upvalue (torch.setMemoryCategory,
   torch.getMemoryCategory), else the method's own */
static const char *category_fname(lua_State *L, const char *method) {
  const char *fname = lua_tostring(L, lua_upvalueindex(1));
  return fname != NULL ? fname : method;
}

/* x:_setMemoryCategory(name) / torch.setMemoryCategory(x, name) -> x, for a tensor or a storage */
static int sc_setcategory(lua_State *L) {
  const char *fname = category_fname(L, "_setMemoryCategory");
  th_memcat c = check_category(L, 2, fname);
  th_storage_set_category(category_storage(L, 1, fname), c);
  lua_settop(L, 1);
  set_module_owned(L, 1, c == TH_MEM_MODULE);
  return 1;
}

/* x:_memoryCategory() -> 'free' | 'module' | 'scoped', or nil for a tensor without storage */
static int sc_getcategory(lua_State *L) {
  const char *fname = category_fname(L, "_memoryCategory");
  th_storage *s;
  if (th_lua_tostoragebox(L, 1) != NULL) s = th_lua_checkstorage(L, 1, fname);
  else if (th_lua_totensor(L, 1) != NULL) s = th_lua_checkview(L, 1, fname)->storage;
  else return th_lua_argerror(L, 1, fname, "tensor or storage expected, got %s", th_lua_typename(L, 1));
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
  th_tensor *t;
  lua_settop(L, 1);
  t = th_lua_totensor(L, 1);
  if (t != NULL) {
    if (t->flags & TH_TENSOR_FREED) th_lua_checkview(L, 1, fname);  /* raises */
    if (push_owner(L, 1)) move_out(L, 2, 1, 0);
    lua_settop(L, 1);
    /* nn walks its modules after every forward/backward in a scope: a tensor
       already labelled and remembered costs one lookup */
    if (t->storage != NULL && t->storage->cat == TH_MEM_MODULE) {
      int known;
      lua_rawgetp(L, LUA_REGISTRYINDEX, &MODULE_KEY);
      lua_pushvalue(L, 1);
      known = lua_rawget(L, -2) != LUA_TNIL;
      lua_settop(L, 1);
      if (known) return 1;
    }
  }
  th_storage_set_category(category_storage(L, 1, fname), TH_MEM_MODULE);
  set_module_owned(L, 1, 1);
  return 1;
}

/* C.ownIfTensor(x): torch.detachModuleTensor(x) for a live tensor; anything
   else (a storage, a freed tensor, any other value) is left alone. The
   walker of torch.detachModuleTensors calls it on every userdata it meets. */
static int sc_ownquiet(lua_State *L) {
  th_tensor *t;
  lua_settop(L, 1);
  t = th_lua_totensor(L, 1);
  if (t == NULL || (t->flags & TH_TENSOR_FREED)) return 0;
  return sc_detachmodule(L);
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
    {"ownIfTensor", sc_ownquiet},
    {NULL, NULL}};

void th_lua_open_scope(lua_State *L, int C) {
  int dt;
  C = lua_absindex(L, C);
  push_stacks(L);
  lua_pop(L, 1);
  lua_newtable(L);  /* member arrays hold their tensors weakly */
  lua_pushliteral(L, "v");
  lua_setfield(L, -2, "__mode");
  lua_rawsetp(L, LUA_REGISTRYINDEX, &WEAKV_KEY);
  lua_newtable(L);
  lua_newtable(L);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &MODULE_KEY);
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
  /* the torch.* forms name themselves; the methods (_setMemoryCategory,
     _memoryCategory) are the plain functions */
  lua_pushcfunction(L, sc_setcategory);
  lua_setfield(L, -2, "_setMemoryCategory");
  lua_pushcfunction(L, sc_getcategory);
  lua_setfield(L, -2, "_memoryCategory");
  lua_pushliteral(L, "torch.setMemoryCategory");
  lua_pushcclosure(L, sc_setcategory, 1);
  lua_setfield(L, -2, "setMemoryCategory");
  lua_pushliteral(L, "torch.getMemoryCategory");
  lua_pushcclosure(L, sc_getcategory, 1);
  lua_setfield(L, -2, "getMemoryCategory");
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
