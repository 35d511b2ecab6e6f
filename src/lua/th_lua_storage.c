/*
** th_lua_storage.c: the storage userdata.
** One Lua object per C storage: a weak table in the registry maps the C
** pointer to its box, so t:storage() == t:storage() and serialization and
** the optimizer can key on storages.
*/
#include <string.h>
#include "th_lua.h"
#include "../tensor/th_error.h"

static const char CACHE_KEY = 'S';

static void push_cache(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &CACHE_KEY) == LUA_TNIL) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_newtable(L);
    lua_pushliteral(L, "v");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &CACHE_KEY);
  }
}

void th_lua_pushstorage(lua_State *L, th_storage *s) {
  th_lua_storage *b;
  push_cache(L);
  if (lua_rawgetp(L, -1, s) != LUA_TNIL) {
    b = lua_touserdata(L, -1);
    if (b != NULL && b->s == s) {
      lua_remove(L, -2);
      return;
    }
  }
  lua_pop(L, 1);
  b = lua_newuserdatauv(L, sizeof *b, 0);
  b->s = NULL;
  luaL_setmetatable(L, th_lua_storage_mt[s->dtype]);
  th_storage_retain(s);
  b->s = s;
  lua_pushvalue(L, -1);
  lua_rawsetp(L, -3, s);
  lua_remove(L, -2);
}

static int s_gc(lua_State *L) {
  th_lua_storage *b = lua_touserdata(L, 1);
  if (b != NULL && b->s != NULL) {
    /* drop the cache entry only if it is still ours */
    push_cache(L);
    if (lua_rawgetp(L, -1, b->s) == LUA_TUSERDATA && lua_touserdata(L, -1) == (void *)b) {
      lua_pushnil(L);
      lua_rawsetp(L, -3, b->s);
    }
    lua_pop(L, 2);
    th_storage_release(b->s);
    b->s = NULL;
  }
  return 0;
}

static int push_new(lua_State *L, th_storage *s, const char *fname) {
  if (s == NULL) return th_lua_error(L, fname);
  th_lua_pushstorage(L, s);
  th_storage_release(s);
  th_lua_gcstep(L);
  return 1;
}

/* Storage(filename [, shared = false [, size = whole file]]) */
static int s_newmapped(lua_State *L, th_dtype dt, const char *fname) {
  size_t len;
  const char *filename = lua_tolstring(L, 2, &len);
  th_storage *s;
  int64_t n = 0;
  /* the C name would stop at a zero byte: 'a.bin\0x' mapped a.bin */
  if (strlen(filename) != len)
    return th_lua_argerror(L, 2, fname, "file name without zero bytes expected, got one with a zero at byte %d",
                           (int)strlen(filename) + 1);
  if (!lua_isnoneornil(L, 3) && !lua_isboolean(L, 3))
    return th_lua_argerror(L, 3, fname, "shared flag (boolean) expected, got %s", th_lua_typename(L, 3));
  if (!lua_isnoneornil(L, 4)) n = th_lua_checkint(L, 4, fname, "size");
  s = th_storage_new_mapped(dt, filename, lua_toboolean(L, 3), n);
  if (s != NULL && s->mapped > 0) th_lua_mapguard_own(L, s);
  return push_new(L, s, fname);
}

/* Storage(s, offset [, size = to the end]): a view of s (1-based offset) */
static int s_newview(lua_State *L, th_dtype dt, const char *fname) {
  th_storage *base = th_lua_checkstorage(L, 2, fname);
  int64_t offset = 1, n;
  if (base->dtype != dt)
    return th_lua_argerror(L, 2, fname, "%s expected, got %s", th_lua_storage_mt[dt], th_lua_typename(L, 2));
  if (!lua_isnoneornil(L, 3)) offset = th_lua_checkint(L, 3, fname, "offset");
  if (offset < 1 || offset > base->size + 1)
    return th_lua_argerror(L, 3, fname, "offset in 1..%lld expected, got %lld", (long long)base->size + 1,
                           (long long)offset);
  n = base->size - (offset - 1);
  if (!lua_isnoneornil(L, 4)) n = th_lua_checkint(L, 4, fname, "size");
  return push_new(L, th_storage_new_view(base, offset - 1, n), fname);
}

/* C.newStorage(dtype, size | table | storage [, offset, size] | filename [, shared, size]) */
static int s_new(lua_State *L) {
  th_dtype dt = (th_dtype)luaL_checkinteger(L, 1);
  const char *fname = th_lua_storage_mt[dt];
  th_storage *s;
  int64_t n = 0, i;
  if (lua_istable(L, 2)) {
    n = (int64_t)luaL_len(L, 2);
    s = th_storage_new(dt, n);
    if (s == NULL) return th_lua_error(L, fname);
    th_lua_pushstorage(L, s);
    th_storage_release(s);
    for (i = 0; i < n; i++) {
      if (lua_geti(L, 2, i + 1) != LUA_TNUMBER && !lua_isboolean(L, -1))
        return luaL_error(L, "%s: table holds a %s at position %I where a number was expected", fname,
                          luaL_typename(L, -1), (lua_Integer)i + 1);
      th_lua_setelement(L, lua_gettop(L), dt, s->data, i, fname);
      lua_pop(L, 1);
    }
    th_lua_gcstep(L);
    return 1;
  }
  if (lua_type(L, 2) == LUA_TSTRING) return s_newmapped(L, dt, fname);
  if (th_lua_tostoragebox(L, 2) != NULL) return s_newview(L, dt, fname);
  if (!lua_isnoneornil(L, 2)) n = th_lua_checkint(L, 2, fname, "size");
  s = th_storage_new(dt, n);
  if (s == NULL) return th_lua_error(L, fname);
  th_lua_pushstorage(L, s);
  th_storage_release(s);
  th_lua_gcstep(L);
  return 1;
}

static int s_size(lua_State *L) {
  lua_pushinteger(L, th_lua_checkstorage(L, 1, "size")->size);
  return 1;
}

static int s_index(lua_State *L) {
  th_lua_storage *b = lua_touserdata(L, 1);
  if (lua_type(L, 2) == LUA_TNUMBER) {
    th_storage *s = th_lua_checkstorage(L, 1, "__index");
    int64_t i = th_lua_checkindex(L, 2, s->size, "__index", "index");
    th_lua_pushelement(L, s->dtype, s->data, i);
    return 1;
  }
  (void)b;
  lua_getmetatable(L, 1);
  lua_pushvalue(L, 2);
  lua_rawget(L, -2);
  return 1;
}

static int s_newindex(lua_State *L) {
  th_storage *s = th_lua_checkstorage(L, 1, "__newindex");
  int64_t i;
  if (lua_type(L, 2) != LUA_TNUMBER)
    return luaL_error(L, "storage index: number expected, got %s (storages have no fields)", th_lua_typename(L, 2));
  i = th_lua_checkindex(L, 2, s->size, "__newindex", "index");
  th_lua_setelement(L, 3, s->dtype, s->data, i, "__newindex");
  return 0;
}

static int s_fill(lua_State *L) {
  th_storage *s = th_lua_checkstorage(L, 1, "fill");
  th_tensor t;
  int rc;
  lua_Number v = th_lua_checknumber(L, 2, "fill", "value");
  th_tensor_init(&t, s->dtype);
  if (s->size > 0) {
    th_tensor_set(&t, s, 0, 1, &s->size, NULL);
    rc = th_tensor_fill(&t, v);
    th_tensor_clear(&t);
    if (rc != TH_OK) return th_lua_error(L, "fill");
  }
  lua_settop(L, 1);
  return 1;
}

static int s_copy(lua_State *L) {
  th_storage *s = th_lua_checkstorage(L, 1, "copy");
  th_storage *o = th_lua_checkstorage(L, 2, "copy");
  th_tensor a, b;
  int rc = TH_OK;
  if (s->size != o->size)
    return th_lua_argerror(L, 2, "copy", "storage of %lld elements expected, got %lld",
                           (long long)s->size, (long long)o->size);
  if (s->size > 0) {
    th_tensor_init(&a, s->dtype);
    th_tensor_init(&b, o->dtype);
    th_tensor_set(&a, s, 0, 1, &s->size, NULL);
    th_tensor_set(&b, o, 0, 1, &o->size, NULL);
    rc = th_tensor_copy(&a, &b);
    th_tensor_clear(&a);
    th_tensor_clear(&b);
  }
  if (rc != TH_OK) return th_lua_error(L, "copy");
  lua_settop(L, 1);
  return 1;
}

static int s_resize(lua_State *L) {
  th_storage *s = th_lua_checkstorage(L, 1, "resize");
  int64_t n = th_lua_checkint(L, 2, "resize", "size");
  th_lua_check(L, th_storage_resize(s, n), "resize");
  lua_settop(L, 1);
  return 1;
}

static int s_pointer(lua_State *L) {
  lua_pushlightuserdata(L, th_lua_checkstorage(L, 1, "cdata"));
  return 1;
}

/* s:data(): the address of the first element as an opaque light userdata
   (Torch7: an FFI pointer); torch.pointer(s:data()) is that address, the
   same for every storage object of one memory block */
static int s_data(lua_State *L) {
  lua_pushlightuserdata(L, th_lua_checkstorage(L, 1, "data")->data);
  return 1;
}

/* raw bytes in and out, for serialization: s:_bytes() -> string;
   s:_setbytes(str [, pos]) fills the whole storage from str at byte pos (1-based) */
static int s_bytes(lua_State *L) {
  th_storage *s = th_lua_checkstorage(L, 1, "_bytes");
  lua_pushlstring(L, s->data, th_storage_bytes(s));
  return 1;
}

static int s_setbytes(lua_State *L) {
  th_storage *s = th_lua_checkstorage(L, 1, "_setbytes");
  size_t len;
  const char *str = luaL_checklstring(L, 2, &len);
  lua_Integer pos = luaL_optinteger(L, 3, 1);
  size_t need = th_storage_bytes(s);
  if (pos < 1 || (size_t)(pos - 1) > len || len - (size_t)(pos - 1) < need)
    return luaL_error(L, "_setbytes: %I bytes needed at position %I, string has %I",
                      (lua_Integer)need, (lua_Integer)pos, (lua_Integer)len);
  memcpy(s->data, str + pos - 1, need);
  lua_settop(L, 1);
  return 1;
}

static int s_len(lua_State *L) { return s_size(L); }

/* s:_refcount(): the references held on the storage (each tensor viewing
   it, and this Lua object): optnet tells a storage only its own tensors
   view from one a user's tensor views too */
static int s_refcount(lua_State *L) {
  lua_pushinteger(L, th_lua_checkstorage(L, 1, "_refcount")->refcount);
  return 1;
}

static const luaL_Reg storage_methods[] = {
    {"size", s_size}, {"fill", s_fill}, {"copy", s_copy}, {"resize", s_resize},
    {"cdata", s_pointer}, {"data", s_data}, {"_bytes", s_bytes}, {"_setbytes", s_setbytes}, {"_refcount", s_refcount},
    {"__gc", s_gc}, {"__close", s_gc}, {"__index", s_index}, {"__newindex", s_newindex},
    {"__len", s_len}, {NULL, NULL}};

void th_lua_open_storage(lua_State *L, int C) {
  int dt;
  C = lua_absindex(L, C);
  for (dt = 0; dt < TH_NDTYPES; dt++) {
    luaL_newmetatable(L, th_lua_storage_mt[dt]);
    lua_pushstring(L, th_lua_storage_mt[dt]);
    lua_setfield(L, -2, "__typename");
    luaL_setfuncs(L, storage_methods, 0);
    lua_pop(L, 1);
  }
  lua_pushcfunction(L, s_new);
  lua_setfield(L, C, "newStorage");
}
