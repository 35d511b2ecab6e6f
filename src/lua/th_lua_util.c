/*
** th_lua_util.c: argument checking, index conversion, errors and GC
** pressure for all bindings.
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "th_lua.h"
#include "../tensor/th_error.h"
#include "../tensor/th_generic.h"   /* TH_CAT */

#define STR_(x) #x
#define STR(x) STR_(x)
#define TENSOR_MT_(c, D) "torch." STR(D(TH_DTF_NAME)) "Tensor",
#define STORAGE_MT_(c, D) "torch." STR(D(TH_DTF_NAME)) "Storage",
const char *const th_lua_tensor_mt[TH_NDTYPES] = {TH_DTYPES(TENSOR_MT_, ~)};
const char *const th_lua_storage_mt[TH_NDTYPES] = {TH_DTYPES(STORAGE_MT_, ~)};

const char *th_lua_typename(lua_State *L, int idx) {
  const char *name;
  if (lua_getmetatable(L, idx)) {
    lua_getfield(L, -1, "__typename");
    name = lua_tostring(L, -1);
    lua_pop(L, 2);
    if (name) return name;  /* interned in the metatable: stays valid */
  }
  return luaL_typename(L, idx);
}

int th_lua_error(lua_State *L, const char *fname) {
  return luaL_error(L, "%s: %s", fname, th_error_msg());
}

int th_lua_argerror(lua_State *L, int arg, const char *fname, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return luaL_error(L, "bad argument #%d to '%s' (%s)", arg, fname, msg);
}

/* Storage bytes allocated since the collector last finished a cycle, and
   the storage bytes live at that moment (process-wide, as the allocator's
   counters are). Per thread: each thread runs its own Lua state and
   collector (threads.Threads), fed the bytes its own thread allocated. */
static _Thread_local int64_t since_cycle, live_after_cycle;
#define MIN_MAJOR_BYTES ((int64_t)64 << 20)

/* A step sized by the bytes just allocated: the GC then runs as if the
   storage lived in the Lua heap, which in incremental mode finishes cycles
   (and runs the finalizers that free storages) at the pace of tensor
   allocation. That is not enough in generational mode, which the lua5.4
   interpreter selects at start-up: there a step is a minor collection,
   an object that survived two of them is old and dies only in a major
   collection, and majors start on Lua-heap growth, which this debt does
   not count; a tensor kept across two allocations then piled up for ever.
   So when the storage allocated since the last finished cycle exceeds what
   was live then (and 64 MiB), this does the collection Lua's own
   generational rule (a major at 100% growth) would have done: in
   incremental mode cycles finish long before, so this never fires there
   unless the Lua heap is huge. Runs only here, after a kernel returned,
   and never while the collector is stopped (by the user, or inside a
   finalizer, where lua_gc answers -1). */
void th_lua_gcstep(lua_State *L) {
  int64_t bytes = th_alloc_take_pending();
  th_memstats m;
  /* tensors born in a dispose scope got their storage by now: label it 'scoped' */
  if (th_lua_scope_npending > 0) th_lua_scope_sync(L);
  if (bytes < 1024 || lua_gc(L, LUA_GCISRUNNING) != 1) return;
  since_cycle += bytes;
  if (lua_gc(L, LUA_GCSTEP, (int)(bytes / 1024 > 1 << 30 ? 1 << 30 : bytes / 1024)) != 1) {
    /* no cycle ended (generational mode never reports one) */
    if (since_cycle <= (live_after_cycle > MIN_MAJOR_BYTES ? live_after_cycle : MIN_MAJOR_BYTES)) return;
    lua_gc(L, LUA_GCCOLLECT);
  }
  th_alloc_stats(&m);
  live_after_cycle = m.live_bytes;
  since_cycle = 0;
}

void th_lua_check(lua_State *L, int rc, const char *fname) {
  if (rc != TH_OK) th_lua_error(L, fname);
  th_lua_gcstep(L);
}

th_tensor *th_lua_totensor(lua_State *L, int idx) {
  int dt;
  void *p = lua_touserdata(L, idx);
  if (p == NULL || !lua_getmetatable(L, idx)) return NULL;
  for (dt = 0; dt < TH_NDTYPES; dt++) {
    luaL_getmetatable(L, th_lua_tensor_mt[dt]);
    if (lua_rawequal(L, -1, -2)) {
      lua_pop(L, 2);
      return (th_tensor *)p;
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return NULL;
}

const char *th_lua_freed(const th_tensor *t) {
  if (!(t->flags & TH_TENSOR_FREED)) return NULL;
  if (t->flags & TH_LUA_TENSOR_DISPOSED)  /* th_lua_scope.c */
    return "freed by its dispose scope (keep it with :moveToOuterDisposeScope() or "
           ":detachFromDisposeScope())";
  return "freed (used after :free()/:dispose())";
}

th_tensor *th_lua_checkview(lua_State *L, int idx, const char *fname) {
  th_tensor *t = th_lua_totensor(L, idx);
  const char *freed;
  if (t == NULL)
    th_lua_argerror(L, idx, fname, "tensor expected, got %s", th_lua_typename(L, idx));
  if ((freed = th_lua_freed(t)) != NULL) th_lua_argerror(L, idx, fname, "tensor was %s", freed);
  return t;
}

th_tensor *th_lua_checkdata(lua_State *L, int idx, const char *fname, const char *what) {
  th_tensor *t = th_lua_checkview(L, idx, fname);
  if (th_tensor_check_extent(t, what) != TH_OK) th_lua_error(L, fname);
  return t;
}

th_tensor *th_lua_checktensor(lua_State *L, int idx, const char *fname) {
  th_tensor *t = th_lua_checkview(L, idx, fname);
  if (th_tensor_check_extent(t, "tensor") != TH_OK) {
    char what[40];  /* formatted on failure only: a snprintf costs more than the check */
    snprintf(what, sizeof what, "tensor argument #%d", idx);
    th_tensor_check_extent(t, what);
    th_lua_error(L, fname);
  }
  return t;
}

th_tensor *th_lua_checktensortype(lua_State *L, int idx, th_dtype dt, const char *fname) {
  th_tensor *t = th_lua_checktensor(L, idx, fname);
  if (t->dtype != dt)
    th_lua_argerror(L, idx, fname, "%s expected, got %s", th_lua_tensor_mt[dt],
                    th_lua_tensor_mt[t->dtype]);
  return t;
}

th_tensor *th_lua_checkfloating(lua_State *L, int idx, const char *fname) {
  th_tensor *t = th_lua_checktensor(L, idx, fname);
  if (!TH_IS_FLOATING(t->dtype))
    th_lua_argerror(L, idx, fname, "torch.FloatTensor or torch.DoubleTensor expected, got %s",
                    th_lua_tensor_mt[t->dtype]);
  return t;
}

th_tensor *th_lua_checkresult(lua_State *L, int idx, th_dtype dt, const char *fname) {
  th_tensor *t = th_lua_checkview(L, idx, fname);
  if (t->dtype != dt)
    th_lua_argerror(L, idx, fname, "%s expected, got %s", th_lua_tensor_mt[dt],
                    th_lua_tensor_mt[t->dtype]);
  return t;
}

th_tensor *th_lua_newtensor(lua_State *L, th_dtype dt) {
  /* 2 user values: the dispose scope the tensor belongs to and its slot there */
  th_tensor *t = lua_newuserdatauv(L, sizeof(th_tensor), 2);
  th_tensor_init(t, dt);  /* consistent before anything can raise */
  luaL_setmetatable(L, th_lua_tensor_mt[dt]);
  /* dispose scopes (th_lua_scope.c): every tensor is born here, so here it
     joins the running coroutine's innermost scope; one test when none is open */
  if (th_lua_scope_nopen > 0) th_lua_scope_register(L, -1);
  return t;
}

th_tensor *th_lua_optresult(lua_State *L, int idx, th_dtype dt, const char *fname, int *pushed) {
  th_tensor *t = th_lua_totensor(L, idx);
  *pushed = 0;
  if (t != NULL) {
    if (t->flags & TH_TENSOR_FREED)
      th_lua_argerror(L, idx, fname, "tensor was freed (used after :free()/:dispose())");
    if (t->dtype != dt)
      th_lua_argerror(L, idx, fname, "result must be a %s, got %s", th_lua_tensor_mt[dt],
                      th_lua_tensor_mt[t->dtype]);
    return t;
  }
  *pushed = 1;
  return th_lua_newtensor(L, dt);
}

th_lua_storage *th_lua_tostoragebox(lua_State *L, int idx) {
  int dt;
  void *p = lua_touserdata(L, idx);
  if (p == NULL || !lua_getmetatable(L, idx)) return NULL;
  for (dt = 0; dt < TH_NDTYPES; dt++) {
    luaL_getmetatable(L, th_lua_storage_mt[dt]);
    if (lua_rawequal(L, -1, -2)) {
      lua_pop(L, 2);
      return (th_lua_storage *)p;
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return NULL;
}

th_storage *th_lua_checkstorage(lua_State *L, int idx, const char *fname) {
  th_lua_storage *b = th_lua_tostoragebox(L, idx);
  if (b == NULL)
    th_lua_argerror(L, idx, fname, "storage expected, got %s", th_lua_typename(L, idx));
  if (b->s == NULL) th_lua_argerror(L, idx, fname, "storage was freed");
  return b->s;
}

int64_t th_lua_checkint(lua_State *L, int arg, const char *fname, const char *what) {
  int isnum;
  lua_Number d;
  lua_Integer i = lua_tointegerx(L, arg, &isnum);
  if (isnum) return (int64_t)i;
  d = lua_tonumberx(L, arg, &isnum);
  if (!isnum)
    th_lua_argerror(L, arg, fname, "%s must be a number, got %s", what, th_lua_typename(L, arg));
  th_lua_argerror(L, arg, fname, "%s must be an integer, got %g", what, (double)d);
  return 0;
}

/* a size: Torch7 read sizes with luaL_checklong, which truncated a fraction
   toward zero, and Lua 5.1 scripts rely on it (torch.rand(3, n, n / 2) with
   n odd); NaN, infinities and magnitudes past 2^63 are refused */
int64_t th_lua_checksize(lua_State *L, int arg, const char *fname, const char *what) {
  int isnum;
  lua_Integer i = lua_tointegerx(L, arg, &isnum);
  lua_Number d;
  if (isnum) return (int64_t)i;
  d = lua_tonumberx(L, arg, &isnum);
  if (!isnum)
    th_lua_argerror(L, arg, fname, "%s must be a number, got %s", what, th_lua_typename(L, arg));
  if (!(d > -9.2e18 && d < 9.2e18))
    th_lua_argerror(L, arg, fname, "%s must be an integer, got %g", what, (double)d);
  return (int64_t)d;
}

double th_lua_checknumber(lua_State *L, int arg, const char *fname, const char *what) {
  int isnum;
  lua_Number v = lua_tonumberx(L, arg, &isnum);
  if (!isnum) th_lua_argerror(L, arg, fname, "%s must be a number, got %s", what, th_lua_typename(L, arg));
  return (double)v;
}

int64_t th_lua_checkindex(lua_State *L, int arg, int64_t n, const char *fname, const char *what) {
  int64_t i = th_lua_checkint(L, arg, fname, what);
  int64_t z = i < 0 ? n + i : i - 1;
  if (n == 0)
    th_lua_argerror(L, arg, fname, "%s %lld out of range: nothing to index (size 0)", what,
                    (long long)i);
  if (i == 0 || z < 0 || z >= n)
    th_lua_argerror(L, arg, fname, "%s %lld out of range (expected 1..%lld or -%lld..-1)", what,
                    (long long)i, (long long)n, (long long)n);
  return z;
}

int th_lua_checkdim(lua_State *L, int arg, int ndim, int extra, const char *fname) {
  int64_t n = ndim + extra;
  int64_t d = th_lua_checkint(L, arg, fname, "dimension");
  int64_t z = d < 0 ? n + d : d - 1;
  if (d == 0 || z < 0 || z >= n) {
    if (n == 0) th_lua_argerror(L, arg, fname, "dimension %lld out of range: tensor is empty", (long long)d);
    th_lua_argerror(L, arg, fname, "dimension %lld out of range for a %dD tensor (expected 1..%lld)",
                    (long long)d, ndim, (long long)n);
  }
  return (int)z;
}

static int sizes_from_table(lua_State *L, int arg, int64_t *size, const char *fname) {
  lua_Integer len = luaL_len(L, arg);
  int n, i;
  if (len < 0 || len > TH_MAXDIM)
    th_lua_argerror(L, arg, fname, "0 to %d sizes expected, got %lld", TH_MAXDIM, (long long)len);
  n = (int)len;
  for (i = 0; i < n; i++) {
    lua_geti(L, arg, i + 1);
    int isint;
    lua_Integer v = lua_tointegerx(L, -1, &isint);
    if (!lua_isnumber(L, -1))
      th_lua_argerror(L, arg, fname, "sizes must be numbers, got %s at position %d",
                      luaL_typename(L, -1), i + 1);
    if (!isint) {
      /* truncated as th_lua_checksize does; a double cast to int64_t is
         undefined beyond 2^63 (and for NaN) */
      lua_Number d = lua_tonumber(L, -1);
      if (!(d > -9.2e18 && d < 9.2e18))
        th_lua_argerror(L, arg, fname, "sizes must be integers, got %g at position %d", (double)d,
                        i + 1);
      v = (lua_Integer)d;
    }
    size[i] = (int64_t)v;
    lua_pop(L, 1);
  }
  return n;
}

int th_lua_checksizes(lua_State *L, int arg, int64_t *size, const char *fname) {
  th_lua_storage *b = th_lua_tostoragebox(L, arg);
  int n = 0;
  if (b != NULL) {
    int64_t i;
    if (b->s == NULL || b->s->dtype != TH_LONG)
      th_lua_argerror(L, arg, fname, "sizes must be a torch.LongStorage, got %s", th_lua_typename(L, arg));
    if (b->s->size > TH_MAXDIM)
      th_lua_argerror(L, arg, fname, "at most %d sizes, got %lld", TH_MAXDIM, (long long)b->s->size);
    for (i = 0; i < b->s->size; i++) size[i] = ((int64_t *)b->s->data)[i];
    return (int)b->s->size;
  }
  if (lua_istable(L, arg) && !lua_getmetatable(L, arg)) return sizes_from_table(L, arg, size, fname);
  if (lua_istable(L, arg)) {
    lua_pop(L, 1);
    return sizes_from_table(L, arg, size, fname);
  }
  while (lua_type(L, arg + n) == LUA_TNUMBER) {
    if (n >= TH_MAXDIM) th_lua_argerror(L, arg + n, fname, "at most %d sizes", TH_MAXDIM);
    size[n] = th_lua_checksize(L, arg + n, fname, "size");
    n++;
  }
  return n;
}

/* sizes at arg (numbers, a LongStorage or a table) with nothing after them:
   x:resize(2, 'a') and torch.zeros(2, 'x') are errors, not a size of 2 */
int th_lua_checksizes_only(lua_State *L, int arg, int64_t *size, const char *fname) {
  int n = th_lua_checksizes(L, arg, size, fname);
  int next = (th_lua_tostoragebox(L, arg) != NULL || lua_istable(L, arg)) ? arg + 1 : arg + n;
  if (!lua_isnoneornil(L, next))
    th_lua_argerror(L, next, fname, "size must be a number, got %s", th_lua_typename(L, next));
  return n;
}

void th_lua_pushsizes(lua_State *L, int n, const int64_t *v) {
  th_storage *s = th_storage_new(TH_LONG, n);
  if (s == NULL) th_lua_error(L, "size");
  memcpy(s->data, v, sizeof(int64_t) * (size_t)n);
  th_lua_pushstorage(L, s);
  th_storage_release(s);
}

/* integer types give Lua integers, floating types Lua floats (as Torch7 on
   Lua 5.3), Half its value as a float */
#define PUSHV_0(v) lua_pushinteger(L, (lua_Integer)(v))
#define PUSHV_1(v) lua_pushnumber(L, (lua_Number)(v))
#define PUSHV_2(v) lua_pushnumber(L, (lua_Number)th_half_to_float(v))
#define PUSH_(c, D)                                                             \
  case D(TH_DTF_ENUM):                                                          \
    TH_CAT(PUSHV, D(TH_DTF_FLOATING))(((const D(TH_DTF_CTYPE) *)data)[i]);      \
    break;

void th_lua_pushelement(lua_State *L, th_dtype dt, const void *data, int64_t i) {
  switch (dt) {
    TH_DTYPES(PUSH_, ~)
    default: lua_pushnil(L); break;
  }
}

/* a number (or boolean) into element i. Integer types take a Lua integer
   as it is and a float truncated toward zero, then keep the low bits (300
   is 44 in a CharTensor), as Torch7's (real) cast of the integer did */
#define SETV_0(T) (T)iv
#define SETV_1(T) (T)v
#define SETV_2(T) th_float_to_half((float)v)
#define SET_(c, D)                                                              \
  case D(TH_DTF_ENUM):                                                          \
    ((D(TH_DTF_CTYPE) *)data)[i] = TH_CAT(SETV, D(TH_DTF_FLOATING))(D(TH_DTF_CTYPE)); \
    break;

void th_lua_setelement(lua_State *L, int idx, th_dtype dt, void *data, int64_t i, const char *fname) {
  int isnum;
  int64_t iv;
  lua_Number v = lua_tonumberx(L, idx, &isnum);
  if (!isnum) {
    if (lua_isboolean(L, idx)) v = lua_toboolean(L, idx);
    else th_lua_argerror(L, idx, fname, "number expected, got %s", th_lua_typename(L, idx));
  }
  if (TH_IS_INTEGER(dt) && !lua_isinteger(L, idx) && !isfinite(v))
    th_lua_argerror(L, idx, fname, "cannot convert %s to an integer (%s element)",
                    isnan(v) ? "nan" : v > 0 ? "inf" : "-inf", th_dtype_name[dt]);
  iv = lua_isinteger(L, idx) ? (int64_t)lua_tointeger(L, idx) : th_dtype_to_int64(v);
  switch (dt) {
    TH_DTYPES(SET_, ~)
    default: break;
  }
}

void th_lua_register(lua_State *L, int methods, const luaL_Reg *l) {
  for (; l->name != NULL; l++) {
    lua_pushcfunction(L, l->func);
    lua_setfield(L, methods, l->name);
  }
}
