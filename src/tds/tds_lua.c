/*
** tds_lua.c: the Lua binding of tds (luaopen_tds_core, loaded by
** lua/tds/init.lua from torch/core.so). A Lua object is a small box
** userdata holding one reference to a tds_obj; each Lua state keeps one
** box per object (a weak cache), so 'h.a == h.a' and an object can be a
** Lua table key. Values cross over by tds_elem: a Lua value becomes a
** borrowed element (to_elem), a container keeps an owned copy of it, and
** push_elem makes a Lua value from a stored element.
** Everything that can raise (argument checks, conversions) runs before a
** container is touched, and an owned element is handed to the container
** or freed before any error is raised.
*/
#include <math.h>
#include <string.h>
#include "tds.h"
#include "../lua/th_lua.h"

int luaopen_tds_core(lua_State *L);

#define HASH_MT "tds.Hash"
#define VEC_MT "tds.Vec"
#define ATOMIC_MT "tds.AtomicCounter"
#define CACHE_KEY "tds.boxes"
#define GC_MIN_BYTES ((int64_t)256 << 10)
#define GC_MAJOR_BYTES ((int64_t)64 << 20)

typedef struct box {
  tds_obj *o;  /* NULL once collected */
} box;

static const char *const kind_mt[] = {NULL, HASH_MT, VEC_MT, ATOMIC_MT};

/* Tells the collector about memory outside the Lua heap, so that boxes
   holding megabytes are collected as if they were that large: the bytes
   tds allocated become GC debt, paid as incremental steps. Lua's
   generational mode (the default of this build) neither ends a cycle on
   a step nor counts debt as heap growth, so its minor collections never
   free boxes that aged while in use: there, as in th_lua_gcstep for
   storages, once tds allocated more than it holds (64 MB at least) since
   the last finished cycle, one collection runs. Amortised: at most one
   per that many bytes allocated. */
static atomic_llong since_cycle, live_after_cycle;

static void gc_hint(lua_State *L) {
  int64_t bytes = tds_mem_take_pending(GC_MIN_BYTES), total, limit;
  if (bytes <= 0 || !lua_gc(L, LUA_GCISRUNNING)) return;
  total = atomic_fetch_add(&since_cycle, bytes) + bytes;
  if (lua_gc(L, LUA_GCSTEP, (int)(bytes / 1024 > 1 << 30 ? 1 << 30 : bytes / 1024)) == 1) {
    atomic_store(&since_cycle, 0);  /* a cycle ended: the garbage boxes were freed */
    atomic_store(&live_after_cycle, tds_mem_live_bytes());
    return;
  }
  limit = atomic_load(&live_after_cycle);
  if (limit < GC_MAJOR_BYTES) limit = GC_MAJOR_BYTES;
  if (total < limit) return;
  atomic_store(&since_cycle, 0);
  lua_gc(L, LUA_GCCOLLECT);
  /* generational mode calls the finalizers of a full collection at its
     next step: a minor step now frees the dead boxes' memory */
  lua_gc(L, LUA_GCSTEP, 0);
  atomic_store(&live_after_cycle, tds_mem_live_bytes());
}

static int oom(lua_State *L, const char *fname) {
  return luaL_error(L, "%s: out of memory", fname);
}

/* --- boxes --- */

/* pushes the box of o; 'adopt': the caller's reference passes to the box
   (dropped when the state has a box already), else the box takes its own */
static void push_obj(lua_State *L, tds_obj *o, int adopt) {
  box *b;
  lua_getfield(L, LUA_REGISTRYINDEX, CACHE_KEY);
  if (lua_rawgetp(L, -1, o) == LUA_TUSERDATA) {
    lua_remove(L, -2);
    if (adopt) tds_obj_release(o);
    return;
  }
  lua_pop(L, 1);
  b = lua_newuserdatauv(L, sizeof *b, 0);
  b->o = NULL;  /* consistent before anything can raise */
  luaL_setmetatable(L, kind_mt[o->kind]);
  if (!adopt) tds_obj_retain(o);
  b->o = o;
  lua_pushvalue(L, -1);
  lua_rawsetp(L, -3, o);
  lua_remove(L, -2);
}

/* the object in the box at idx when it is of 'kind', else NULL */
static tds_obj *to_obj(lua_State *L, int idx, tds_kind kind) {
  box *b = luaL_testudata(L, idx, kind_mt[kind]);
  return b ? b->o : NULL;
}

static tds_obj *check_obj(lua_State *L, int idx, tds_kind kind, const char *fname) {
  box *b = luaL_testudata(L, idx, kind_mt[kind]);
  if (b == NULL)
    th_lua_argerror(L, idx, fname, "%s expected, got %s", kind_mt[kind], th_lua_typename(L, idx));
  if (b->o == NULL) luaL_error(L, "%s: the %s was already collected", fname, kind_mt[kind]);
  return b->o;
}

#define check_hash(L, i, f) ((tds_hash *)check_obj(L, i, TDS_HASH, f))
#define check_vec(L, i, f) ((tds_vec *)check_obj(L, i, TDS_VEC, f))
#define check_atomic(L, i, f) ((tds_atomic *)check_obj(L, i, TDS_ATOMIC, f))

static int box_gc(lua_State *L) {
  box *b = lua_touserdata(L, 1);
  if (b != NULL && b->o != NULL) {
    tds_obj *o = b->o;
    b->o = NULL;
    tds_obj_release(o);
  }
  return 0;
}

/* mt.__share(obj) -> pointer carrying one new reference, 'tds._adopt':
   the threads package hands the pointer to another Lua state, which calls
   tds._adopt(pointer) to get its own box on the same object */
static int box_share(lua_State *L) {
  box *b = lua_touserdata(L, 1);
  if (b == NULL || b->o == NULL || !lua_getmetatable(L, 1))
    return luaL_error(L, "tds: __share: a live tds object expected, got %s", th_lua_typename(L, 1));
  lua_pop(L, 1);
  tds_obj_retain(b->o);
  lua_pushlightuserdata(L, b->o);
  lua_pushliteral(L, "tds._adopt");
  return 2;
}

static int tds_adopt(lua_State *L) {
  tds_obj *o;
  if (lua_type(L, 1) != LUA_TLIGHTUSERDATA)
    return th_lua_argerror(L, 1, "tds._adopt", "pointer (light userdata) from __share expected, got %s",
                           th_lua_typename(L, 1));
  o = tds_obj_check(lua_touserdata(L, 1));
  if (o == NULL) return th_lua_argerror(L, 1, "tds._adopt", "the pointer is not a live tds object");
  push_obj(L, o, 1);
  return 1;
}

/* --- values --- */

static const char *const supported =
    "a number, string, boolean, tds.Hash, tds.Vec, tds.AtomicCounter, torch tensor or storage";

/* the Lua value at idx as a borrowed element; 'iskey': an integral float
   becomes an integer (1.0 and 1 are one key, as in Lua tables) and NaN is
   refused. 'what' names the value in messages ("key", "value"). */
static void to_elem(lua_State *L, int idx, tds_elem *e, int iskey, const char *fname, const char *what) {
  tds_obj *o;
  th_tensor *t;
  th_lua_storage *sb;
  switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
      if (lua_isinteger(L, idx)) {
        tds_elem_set_int(e, lua_tointeger(L, idx));
      } else {
        double n = lua_tonumber(L, idx);
        lua_Integer i;
        if (iskey && isnan(n)) luaL_error(L, "%s: %s is NaN", fname, what);
        if (iskey && lua_numbertointeger(floor(n), &i) && (double)i == n) tds_elem_set_int(e, i);
        else tds_elem_set_num(e, n);
      }
      return;
    case LUA_TSTRING: {
      size_t len;
      const char *s = lua_tolstring(L, idx, &len);
      tds_elem_borrow_string(e, s, len);
      return;
    }
    case LUA_TBOOLEAN:
      tds_elem_set_bool(e, lua_toboolean(L, idx));
      return;
    case LUA_TUSERDATA:
      if ((o = to_obj(L, idx, TDS_HASH)) || (o = to_obj(L, idx, TDS_VEC)) || (o = to_obj(L, idx, TDS_ATOMIC))) {
        tds_elem_borrow_obj(e, o);
        return;
      }
      if ((t = th_lua_totensor(L, idx)) != NULL) {
        if (t->flags & TH_TENSOR_FREED)
          luaL_error(L, "%s: %s is a freed tensor (used after :free()/:dispose())", fname, what);
        tds_elem_borrow_tensor(e, t);
        return;
      }
      if ((sb = th_lua_tostoragebox(L, idx)) != NULL && sb->s != NULL) {
        tds_elem_borrow_storage(e, sb->s);
        return;
      }
      break;
    case LUA_TNIL:
      luaL_error(L, "%s: %s is nil", fname, what);
      return;
    default:
      break;
  }
  if (lua_type(L, idx) == LUA_TTABLE && !lua_getmetatable(L, idx))
    luaL_error(L, "%s: %s must be %s, got a Lua table (convert it with tds.Hash(t) or tds.Vec(t))",
               fname, what, supported);
  luaL_error(L, "%s: %s must be %s, got %s", fname, what, supported, th_lua_typename(L, idx));
}

/* a container holding itself would never be freed: the one loop that
   costs nothing to see (deeper ones would need a walk over containers
   other threads may be writing) */
static void check_not_self(lua_State *L, const tds_elem *e, const tds_obj *self, const char *fname, const char *what) {
  if (e->type == TDS_OBJ && e->v.obj == self)
    luaL_error(L, "%s: %s is the container itself (a reference loop is never freed)", fname, what);
}

/* an owned copy of the value at idx (nil allowed when 'nilok') for the
   container 'self' */
static void own_elem(lua_State *L, int idx, tds_elem *e, int nilok, const tds_obj *self, const char *fname,
                     const char *what) {
  tds_elem b;
  if (nilok && lua_isnoneornil(L, idx)) { tds_elem_set_nil(e); return; }
  to_elem(L, idx, &b, 0, fname, what);
  check_not_self(L, &b, self, fname, what);
  if (tds_elem_copy(e, &b) != 0) oom(L, fname);
}

static void push_elem(lua_State *L, const tds_elem *e) {
  switch ((tds_type)e->type) {
    case TDS_INT: lua_pushinteger(L, e->v.i); break;
    case TDS_NUM: lua_pushnumber(L, e->v.n); break;
    case TDS_BOOL: lua_pushboolean(L, e->v.b); break;
    case TDS_STR: lua_pushlstring(L, e->v.s.data, e->v.s.len); break;
    case TDS_OBJ: push_obj(L, e->v.obj, 0); break;
    case TDS_TENSOR: {
      th_tensor *t = th_lua_newtensor(L, e->v.t->dtype);
      th_tensor_set_tensor(t, e->v.t);
      break;
    }
    case TDS_STORAGE: th_lua_pushstorage(L, e->v.st); break;
    default: lua_pushnil(L); break;
  }
}

/* --- tds.Hash --- */

static int hash_new(lua_State *L) {
  tds_hash *h = tds_hash_new();
  if (h == NULL) return oom(L, "tds.Hash");
  push_obj(L, &h->hdr, 1);
  return 1;
}

static int hash_index(lua_State *L) {
  tds_hash *h = check_hash(L, 1, "tds.Hash");
  tds_elem key;
  const tds_elem *val;
  if (lua_isnil(L, 2) || (lua_type(L, 2) == LUA_TNUMBER && isnan(lua_tonumber(L, 2)))) return 0;
  to_elem(L, 2, &key, 1, "tds.Hash", "key");
  val = tds_hash_get(h, &key);
  if (val == NULL) return 0;
  push_elem(L, val);
  return 1;
}

static int hash_newindex(lua_State *L) {
  tds_hash *h = check_hash(L, 1, "tds.Hash");
  tds_elem key, val;
  to_elem(L, 2, &key, 1, "tds.Hash", "key");
  if (lua_isnil(L, 3)) {
    tds_hash_remove(h, &key);
    return 0;
  }
  check_not_self(L, &key, &h->hdr, "tds.Hash", "key");
  own_elem(L, 3, &val, 0, &h->hdr, "tds.Hash", "value");
  if (tds_hash_set(h, &key, &val) != 0) {
    tds_elem_clear(&val);
    return oom(L, "tds.Hash");
  }
  gc_hint(L);
  return 0;
}

static int hash_len(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)tds_hash_size(check_hash(L, 1, "tds.Hash.__len")));
  return 1;
}

/* the iterator: upvalue 1 the hash's box (keeps it alive), 2 the slot position */
static int hash_iter(lua_State *L) {
  tds_hash *h = check_hash(L, lua_upvalueindex(1), "tds.Hash.__pairs");
  size_t pos = (size_t)lua_tointeger(L, lua_upvalueindex(2));
  const tds_hash_slot *s = tds_hash_next(h, &pos);
  lua_pushinteger(L, (lua_Integer)pos);
  lua_replace(L, lua_upvalueindex(2));
  if (s == NULL) return 0;
  push_elem(L, &s->key);
  push_elem(L, &s->val);
  return 2;
}

static int hash_pairs(lua_State *L) {
  check_hash(L, 1, "tds.Hash.__pairs");
  lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, hash_iter, 2);
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

/* --- tds.Vec --- */

/* a 1-based index at arg as 0-based; 'fname' names the caller */
static size_t check_vindex(lua_State *L, int arg, const char *fname) {
  int isint;
  lua_Integer i;
  if (lua_type(L, arg) != LUA_TNUMBER)
    return (size_t)th_lua_argerror(L, arg, fname, "index (positive integer) expected, got %s",
                                   th_lua_typename(L, arg));
  i = lua_tointegerx(L, arg, &isint);
  if (!isint)
    return (size_t)th_lua_argerror(L, arg, fname, "index must be an integer, got %s",
                                   lua_tolstring(L, arg, NULL));
  if (i < 1) return (size_t)th_lua_argerror(L, arg, fname, "index must be positive, got %lld", (long long)i);
  return (size_t)(i - 1);
}

static int vec_new(lua_State *L) {
  tds_vec *v = tds_vec_new();
  if (v == NULL) return oom(L, "tds.Vec");
  push_obj(L, &v->hdr, 1);
  return 1;
}

/* v[i], or v.method (upvalue 1: the methods table) */
static int vec_index(lua_State *L) {
  tds_vec *v = check_vec(L, 1, "tds.Vec");
  size_t i;
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char *name = lua_tostring(L, 2);
    if (lua_getfield(L, lua_upvalueindex(1), name) != LUA_TNIL) return 1;
    /* libraries probe objects for hooks ('__postinit' after torch.load):
       a double-underscore name answers nil, any other unknown name raises */
    if (name[0] == '_' && name[1] == '_') return 1;
    return luaL_error(L, "tds.Vec: no method '%s' (a tds.Vec takes a number index or a method name)",
                      lua_tostring(L, 2));
  }
  i = check_vindex(L, 2, "tds.Vec");
  if (i >= v->size) return 0;
  push_elem(L, &v->data[i]);
  return 1;
}

static int vec_newindex(lua_State *L) {
  tds_vec *v = check_vec(L, 1, "tds.Vec");
  size_t i = check_vindex(L, 2, "tds.Vec");
  tds_elem val;
  own_elem(L, 3, &val, 1, &v->hdr, "tds.Vec", "value");
  if (tds_vec_set(v, i, &val) != 0) {
    tds_elem_clear(&val);
    return oom(L, "tds.Vec");
  }
  gc_hint(L);
  return 0;
}

static int vec_len(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)check_vec(L, 1, "tds.Vec.__len")->size);
  return 1;
}

static int vec_iter(lua_State *L) {
  tds_vec *v = check_vec(L, 1, "tds.Vec.__pairs");
  lua_Integer i = luaL_checkinteger(L, 2);
  if (i < 0 || (size_t)i >= v->size) return 0;
  lua_pushinteger(L, i + 1);
  push_elem(L, &v->data[i]);
  return 2;
}

static int vec_pairs(lua_State *L) {
  check_vec(L, 1, "tds.Vec.__pairs");
  lua_pushcfunction(L, vec_iter);
  lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  return 3;
}

/* v:insert([index,] value): value may be nil only with an index */
static int vec_insert(lua_State *L) {
  tds_vec *v = check_vec(L, 1, "tds.Vec.insert");
  int n = lua_gettop(L);
  size_t i;
  tds_elem val;
  if (n == 2) {
    i = v->size;
    own_elem(L, 2, &val, 0, &v->hdr, "tds.Vec.insert", "value");
  } else if (n == 3) {
    i = check_vindex(L, 2, "tds.Vec.insert");
    own_elem(L, 3, &val, 1, &v->hdr, "tds.Vec.insert", "value");
  } else {
    return luaL_error(L, "tds.Vec.insert: ([index,] value) expected, got %d arguments", n - 1);
  }
  if (tds_vec_insert(v, i, &val) != 0) {
    tds_elem_clear(&val);
    return oom(L, "tds.Vec.insert");
  }
  gc_hint(L);
  return 0;
}

/* v:remove([index]) -> the removed value (nil past the end) */
static int vec_remove(lua_State *L) {
  tds_vec *v = check_vec(L, 1, "tds.Vec.remove");
  size_t i;
  tds_elem out;
  if (lua_isnoneornil(L, 2)) {
    if (v->size == 0) return 0;
    i = v->size - 1;
  } else {
    i = check_vindex(L, 2, "tds.Vec.remove");
  }
  tds_vec_remove(v, i, &out);
  /* the vector's reference moves to the box or the Lua value (only a
     Lua memory error in the push could lose the element) */
  if (out.type == TDS_OBJ) {
    push_obj(L, out.v.obj, 1);
  } else {
    push_elem(L, &out);
    tds_elem_clear(&out);
  }
  return 1;
}

static int vec_resize(lua_State *L) {
  tds_vec *v = check_vec(L, 1, "tds.Vec.resize");
  lua_Integer n;
  int isint;
  if (lua_type(L, 2) != LUA_TNUMBER)
    return th_lua_argerror(L, 2, "tds.Vec.resize", "size (non-negative integer) expected, got %s",
                           th_lua_typename(L, 2));
  n = lua_tointegerx(L, 2, &isint);
  if (!isint || n < 0)
    return th_lua_argerror(L, 2, "tds.Vec.resize", "size must be a non-negative integer, got %s",
                           lua_tolstring(L, 2, NULL));
  if (tds_vec_resize(v, (size_t)n) != 0) return oom(L, "tds.Vec.resize");
  gc_hint(L);
  return 0;
}

/* 'less' of the sort: the comparator (or '<' when there is none) on the
   values at positions a and b of the values table at 'vals' */
static int sort_less(lua_State *L, int cmp, int vals, size_t a, size_t b) {
  int r;
  if (cmp) {
    lua_pushvalue(L, cmp);
    lua_rawgeti(L, vals, (lua_Integer)a + 1);
    lua_rawgeti(L, vals, (lua_Integer)b + 1);
    lua_call(L, 2, 1);
    r = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return r;
  }
  lua_rawgeti(L, vals, (lua_Integer)a + 1);
  lua_rawgeti(L, vals, (lua_Integer)b + 1);
  r = lua_compare(L, -2, -1, LUA_OPLT);
  lua_pop(L, 2);
  return r;
}

/* v:sort([compare]): a stable bottom-up merge sort of positions; the
   elements are pushed to Lua once and move only when the sort is done, so
   a comparator that raises leaves the vector as it was. Scratch memory is
   a Lua userdata: nothing leaks when the comparator raises. */
static int vec_sort(lua_State *L) {
  tds_vec *v = check_vec(L, 1, "tds.Vec.sort");
  size_t n = v->size, i, width, *src, *dst, *tmp;
  int cmp = 0, vals;
  if (lua_isfunction(L, 2)) {
    cmp = 2;
  } else if (!lua_isnoneornil(L, 2)) {
    if (!luaL_getmetafield(L, 2, "__call"))
      return th_lua_argerror(L, 2, "tds.Vec.sort", "comparison function expected, got %s", th_lua_typename(L, 2));
    lua_pop(L, 1);
    cmp = 2;
  }
  lua_settop(L, 2);
  if (n < 2) return 0;
  if (n > SIZE_MAX / (2 * sizeof(size_t))) return oom(L, "tds.Vec.sort");
  lua_createtable(L, n > INT32_MAX ? INT32_MAX : (int)n, 0);
  vals = lua_gettop(L);
  for (i = 0; i < n; i++) {
    push_elem(L, &v->data[i]);
    lua_rawseti(L, vals, (lua_Integer)i + 1);
  }
  src = lua_newuserdatauv(L, 2 * n * sizeof(size_t), 0);
  dst = src + n;
  for (i = 0; i < n; i++) src[i] = i;
  for (width = 1; width < n; width *= 2) {
    size_t lo;
    for (lo = 0; lo < n; lo += 2 * width) {
      size_t mid = lo + width < n ? lo + width : n;
      size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
      size_t a = lo, b = mid, k = lo;
      while (a < mid && b < hi) {
        /* take from the right only when strictly less: stable */
        if (sort_less(L, cmp, vals, src[b], src[a])) dst[k++] = src[b++];
        else dst[k++] = src[a++];
      }
      while (a < mid) dst[k++] = src[a++];
      while (b < hi) dst[k++] = src[b++];
    }
    tmp = src; src = dst; dst = tmp;
  }
  if (v->size != n)
    return luaL_error(L, "tds.Vec.sort: the comparator resized the vector (from %I to %I elements)",
                      (lua_Integer)n, (lua_Integer)v->size);
  if (tds_vec_permute(v, src) != 0) return oom(L, "tds.Vec.sort");
  return 0;
}

/* --- tds.AtomicCounter --- */

static int atomic_new(lua_State *L) {
  tds_atomic *a = tds_atomic_new();
  if (a == NULL) return oom(L, "tds.AtomicCounter");
  push_obj(L, &a->hdr, 1);
  return 1;
}

static int atomic_inc(lua_State *L) {
  lua_pushinteger(L, tds_atomic_inc(check_atomic(L, 1, "tds.AtomicCounter.inc")));
  return 1;
}

static int atomic_get(lua_State *L) {
  lua_pushinteger(L, tds_atomic_get(check_atomic(L, 1, "tds.AtomicCounter.get")));
  return 1;
}

static int atomic_set(lua_State *L) {
  tds_atomic *a = check_atomic(L, 1, "tds.AtomicCounter.set");
  int isint;
  lua_Integer n = lua_tointegerx(L, 2, &isint);
  if (lua_type(L, 2) != LUA_TNUMBER || !isint)
    return th_lua_argerror(L, 2, "tds.AtomicCounter.set", "integer expected, got %s",
                           lua_type(L, 2) == LUA_TNUMBER ? lua_tolstring(L, 2, NULL) : th_lua_typename(L, 2));
  tds_atomic_set(a, n);
  return 0;
}

static int atomic_tostring(lua_State *L) {
  lua_pushfstring(L, "tds.AtomicCounter=%I", (lua_Integer)tds_atomic_get(check_atomic(L, 1, "tds.AtomicCounter")));
  return 1;
}

/* tds._testThreads(counter, nthreads, n): see tds_atomic_selftest */
static int atomic_selftest(lua_State *L) {
  tds_atomic *a = check_atomic(L, 1, "tds._testThreads");
  lua_Integer nt = luaL_checkinteger(L, 2), n = luaL_checkinteger(L, 3);
  if (nt < 1 || nt > 64) return th_lua_argerror(L, 2, "tds._testThreads", "1 to 64 threads expected, got %lld", (long long)nt);
  if (tds_atomic_selftest(a, (int)nt, n) != 0) return luaL_error(L, "tds._testThreads: a thread could not start");
  return 0;
}

/* --- module --- */

/* tds._memory() -> bytes held by tds outside the Lua heap, live containers */
static int tds_memory(lua_State *L) {
  lua_pushinteger(L, tds_mem_live_bytes());
  lua_pushinteger(L, tds_mem_live_objects());
  return 2;
}

/* a metatable with the members every box shares */
static void new_meta(lua_State *L, const char *name) {
  luaL_newmetatable(L, name);
  lua_pushstring(L, name);
  lua_setfield(L, -2, "__typename");
  lua_pushcfunction(L, box_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, box_share);
  lua_setfield(L, -2, "__share");
}

int luaopen_tds_core(lua_State *L) {
  static const luaL_Reg hash_meta[] = {
      {"__index", hash_index}, {"__newindex", hash_newindex}, {"__len", hash_len}, {"__pairs", hash_pairs},
      {NULL, NULL}};
  static const luaL_Reg vec_meta[] = {
      {"__newindex", vec_newindex}, {"__len", vec_len}, {"__pairs", vec_pairs}, {NULL, NULL}};
  static const luaL_Reg vec_methods[] = {
      {"insert", vec_insert}, {"remove", vec_remove}, {"resize", vec_resize}, {"sort", vec_sort}, {NULL, NULL}};
  static const luaL_Reg atomic_methods[] = {
      {"inc", atomic_inc}, {"get", atomic_get}, {"set", atomic_set}, {NULL, NULL}};
  static const luaL_Reg funcs[] = {
      {"Hash", hash_new}, {"Vec", vec_new}, {"AtomicCounter", atomic_new}, {"_adopt", tds_adopt},
      {"_memory", tds_memory}, {"_testThreads", atomic_selftest}, {NULL, NULL}};

  /* the per-state box cache: weak values, keyed by object address */
  lua_newtable(L);
  lua_newtable(L);
  lua_pushliteral(L, "v");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_setfield(L, LUA_REGISTRYINDEX, CACHE_KEY);

  luaL_newlib(L, funcs);

  new_meta(L, HASH_MT);
  luaL_setfuncs(L, hash_meta, 0);
  lua_setfield(L, -2, "hashMeta");

  new_meta(L, VEC_MT);
  luaL_setfuncs(L, vec_meta, 0);
  luaL_newlib(L, vec_methods);
  lua_pushvalue(L, -1);
  lua_setfield(L, -4, "vecMethods");
  lua_pushcclosure(L, vec_index, 1);
  lua_setfield(L, -2, "__index");
  lua_setfield(L, -2, "vecMeta");

  new_meta(L, ATOMIC_MT);
  luaL_newlib(L, atomic_methods);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, atomic_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_setfield(L, -2, "atomicMeta");
  return 1;
}
