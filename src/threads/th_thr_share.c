/*
** th_thr_share.c: tensors and storages in flight between Lua states
** (threads.sharedserialize), and threads._adopt, the receiving end of the
** shareable-userdata protocol for every object of this package.
** Sharing a tensor copies its view (sizes, strides, offset) into a
** registry entry holding one reference of its storage; the receiving
** state makes a tensor of its own over the same storage: both see the
** same elements, each has its own geometry (a resize in one thread does
** not resize the other's view). A storage is shared as itself: the
** receiving state's Lua object is that state's one object for it.
*/
#include <stdlib.h>
#include "../lua/th_lua.h"
#include "th_thr.h"

typedef struct thr_shared {
  thr_obj h;
  th_tensor t;      /* THR_TENSOR: the view, holding one storage reference */
  th_storage *s;    /* THR_STORAGE: one reference */
} thr_shared;

void thr_share_destroy(thr_obj *o) {
  thr_shared *d = (thr_shared *)o;
  if (o->kind == THR_TENSOR) th_tensor_clear(&d->t);
  else th_storage_release(d->s);
  free(d);
}

/* core.share(tensor | storage) -> pointer, 'threads._adopt' */
static int c_share(lua_State *L) {
  th_tensor *t = th_lua_totensor(L, 1);
  th_lua_storage *box = t == NULL ? th_lua_tostoragebox(L, 1) : NULL;
  thr_shared *d;
  int64_t id;
  if (t == NULL && box == NULL)
    return luaL_error(L, "threads: share: a tensor or storage expected, got %s", th_lua_typename(L, 1));
  if (t != NULL && (t->flags & TH_TENSOR_FREED))
    return luaL_error(L, "threads: share: the %s was freed (:free())", th_lua_typename(L, 1));
  if (box != NULL && box->s == NULL)
    return luaL_error(L, "threads: share: the %s was freed", th_lua_typename(L, 1));
  d = calloc(1, sizeof *d);
  if (d == NULL) return luaL_error(L, "threads: share: out of memory");
  if (t != NULL) {
    th_tensor_init(&d->t, t->dtype);
    th_tensor_set_tensor(&d->t, t);
    id = thr_register(&d->h, THR_TENSOR, 1);
  } else {
    th_storage_retain(box->s);
    d->s = box->s;
    id = thr_register(&d->h, THR_STORAGE, 1);
  }
  lua_pushlightuserdata(L, (void *)(intptr_t)id);
  lua_pushliteral(L, "threads._adopt");
  return 2;
}

static thr_obj *checkinflight(lua_State *L, const char *fname) {
  thr_obj *o;
  if (!lua_islightuserdata(L, 1))
    luaL_error(L, "%s: a shared reference (light userdata from __share) expected, got %s", fname,
               luaL_typename(L, 1));
  o = thr_adopt((int64_t)(intptr_t)lua_touserdata(L, 1));
  if (o == NULL)
    luaL_error(L, "%s: not a reference in flight (adopted already, or never shared)", fname);
  return o;
}

/* The storage came from another thread, whose collector was told about its
   bytes; this state's was not, and may now hold the last reference (a
   batch a loader thread made): paced as if allocated here, or the batches
   pile up until the Lua heap alone triggers a collection (40 jobs
   returning 8 MB each: 305 MB peak without this, 92 MB with it) */
static void pace(lua_State *L, th_storage *s) {
  if (s == NULL) return;
  th_alloc_add_pending((int64_t)th_storage_bytes(s));
  th_lua_gcstep(L);
}

/* threads._adopt(pointer) -> the object, taking over the reference */
static int c_adopt(lua_State *L) {
  thr_obj *o = checkinflight(L, "threads._adopt");
  thr_shared *d = (thr_shared *)o;
  if (o->kind == THR_TENSOR) {
    th_tensor *t = th_lua_newtensor(L, d->t.dtype);
    th_tensor_set_tensor(t, &d->t);
    thr_release(o);
    pace(L, t->storage);
  } else if (o->kind == THR_STORAGE) {
    th_storage *s = d->s;
    th_lua_pushstorage(L, s);
    thr_release(o);
    pace(L, s);
  } else {
    thr_pushhandle(L, o);  /* the handle owns the reference */
  }
  return 1;
}

/* core.drop(pointer): releases a reference in flight never adopted */
static int c_drop(lua_State *L) {
  thr_release(checkinflight(L, "threads.drop"));
  return 0;
}

/* core.ptrtoint / core.inttoptr: references written inside a storage
   (threads.serialize.save); adopting checks them, so a bad one is an error */
static int c_ptrtoint(lua_State *L) {
  luaL_checktype(L, 1, LUA_TLIGHTUSERDATA);
  lua_pushinteger(L, (lua_Integer)(intptr_t)lua_touserdata(L, 1));
  return 1;
}

static int c_inttoptr(lua_State *L) {
  lua_pushlightuserdata(L, (void *)(intptr_t)luaL_checkinteger(L, 1));
  return 1;
}

void thr_open_share(lua_State *L, int core) {
  lua_pushcfunction(L, c_ptrtoint);
  lua_setfield(L, core, "ptrtoint");
  lua_pushcfunction(L, c_inttoptr);
  lua_setfield(L, core, "inttoptr");
  lua_pushcfunction(L, c_share);
  lua_setfield(L, core, "share");
  lua_pushcfunction(L, c_adopt);
  lua_setfield(L, core, "adopt");
  lua_pushcfunction(L, c_drop);
  lua_setfield(L, core, "drop");
}
