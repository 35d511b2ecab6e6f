/*
** th_lua_plan.c: torch._C.plan, the memory planner (src/plan) for Lua.
**   torch._C.plan(intervals, opts) -> result
** intervals: an array of {first=, last=, bytes= [, pool=1] [, align=]}
** or, faster for big plans, parallel arrays {first={..}, last={..},
** bytes={..} [, pool={..} or a number] [, align={..}]}. Steps are
** inclusive; pools are any integers.
** opts: planner ('best' | 'greedy_size' | 'greedy_conflict' |
** 'greedy_lifetime' | 'peak' | 'sets'), budget_ms (50), alignment (64),
** fit ('best' | 'first'), seed, iterations (cap on search moves), debug.
** result: offsets[i] (bytes, 0-based, into the arena of the tensor's
** pool), sizes[i] (aligned), arena[pool], lower_bound[pool],
** heuristic[pool], iterations[pool]; with 'sets': sets[i] (1-based) and
** set_bytes[s]; with debug: log, one line per tensor.
** The C plan lives in a userdata box with __gc, made before anything can
** raise, so a bad entry found halfway leaks nothing.
*/
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "th_lua.h"
#include "../plan/th_plan.h"
#include "../tensor/th_error.h"

#define FNAME "torch._C.plan"
#define BOXMT "torch._C.planBox"

/* raises "torch._C.plan: <message>"; formats with snprintf, so %lld works */
static int fail(lua_State *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(lua_State *L, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return luaL_error(L, "%s: %s", FNAME, msg);
}

typedef struct planbox {
  th_plan *p;
} planbox;

static int box_gc(lua_State *L) {
  planbox *b = luaL_checkudata(L, 1, BOXMT);
  th_plan_free(b->p); /* idempotent: NULL after */
  b->p = NULL;
  return 0;
}

/* the integer at the top of the stack, or an error naming interval i's field */
static int64_t entry_int(lua_State *L, int i, const char *field) {
  int isnum = 0;
  lua_Integer v = 0;
  if (lua_type(L, -1) == LUA_TNUMBER) v = lua_tointegerx(L, -1, &isnum);
  if (!isnum) {
    if (lua_type(L, -1) == LUA_TNUMBER)
      fail(L, "interval %d: '%s' must be an integer, got %s", i, field,
                 lua_tostring(L, -1));
    fail(L, "interval %d: '%s' must be an integer, got %s", i, field,
               th_lua_typename(L, -1));
  }
  lua_pop(L, 1);
  return (int64_t)v;
}

static void add_entry(lua_State *L, th_plan *p, int i, int64_t first, int64_t last, int64_t bytes,
                      int64_t pool, int64_t align) {
  if (bytes < 0) fail(L, "interval %d: 'bytes' must be >= 0, got %lld", i, (long long)bytes);
  if (last < first)
    fail(L, "interval %d: 'last' (%lld) is before 'first' (%lld)", i, (long long)last,
               (long long)first);
  if (align < 0 || (align & (align - 1)) != 0)
    fail(L, "interval %d: 'align' must be a power of two, got %lld", i, (long long)align);
  if (th_plan_add_aligned(p, first, last, bytes, pool, align) < 0)
    fail(L, "interval %d: %s", i, th_error_msg());
}

/* array of {first=, last=, bytes=, pool=, align=} */
static void read_records(lua_State *L, th_plan *p, int n) {
  int i;
  for (i = 1; i <= n; i++) {
    int64_t first, last, bytes, pool = 1, align = 0;
    if (lua_rawgeti(L, 1, i) != LUA_TTABLE)
      fail(L, "interval %d must be a table {first=, last=, bytes=[, pool=, align=]}, got %s", i,
                 th_lua_typename(L, -1));
    lua_getfield(L, -1, "first");
    first = entry_int(L, i, "first");
    lua_getfield(L, -1, "last");
    last = entry_int(L, i, "last");
    lua_getfield(L, -1, "bytes");
    bytes = entry_int(L, i, "bytes");
    if (lua_getfield(L, -1, "pool") != LUA_TNIL)
      pool = entry_int(L, i, "pool");
    else
      lua_pop(L, 1);
    if (lua_getfield(L, -1, "align") != LUA_TNIL)
      align = entry_int(L, i, "align");
    else
      lua_pop(L, 1);
    lua_pop(L, 1);
    add_entry(L, p, i, first, last, bytes, pool, align);
  }
}

/* pushes intervals[name], checking it is an array of n entries (or, when
   'scalar', a number meaning the same value for all); returns its type */
static int column(lua_State *L, const char *name, int n, int required, int scalar) {
  int t = lua_getfield(L, 1, name);
  if (t == LUA_TNIL && !required) return t;
  if (t == LUA_TNUMBER && scalar) return t;
  if (t != LUA_TTABLE)
    fail(L, "intervals.%s must be an array%s, got %s", name, scalar ? " or an integer" : "",
               th_lua_typename(L, -1));
  if ((int)lua_rawlen(L, -1) != n)
    fail(L, "intervals.%s has %d entries, intervals.first has %d", name, (int)lua_rawlen(L, -1), n);
  return t;
}

/* parallel arrays first, last, bytes [, pool] [, align] */
static void read_columns(lua_State *L, th_plan *p) {
  int n = (int)lua_rawlen(L, -1), i, base, tpool, talign;
  int64_t pool1 = 1;
  lua_pop(L, 1);
  base = lua_gettop(L);
  column(L, "first", n, 1, 0);
  column(L, "last", n, 1, 0);
  column(L, "bytes", n, 1, 0);
  tpool = column(L, "pool", n, 0, 1);
  talign = column(L, "align", n, 0, 0);
  if (tpool == LUA_TNUMBER) {
    int isnum = 0;
    pool1 = (int64_t)lua_tointegerx(L, base + 4, &isnum);
    if (!isnum) fail(L, "intervals.pool must be an integer, got %s", lua_tostring(L, base + 4));
  }
  for (i = 1; i <= n; i++) {
    int64_t first, last, bytes, pool = pool1, align = 0;
    lua_rawgeti(L, base + 1, i);
    first = entry_int(L, i, "first");
    lua_rawgeti(L, base + 2, i);
    last = entry_int(L, i, "last");
    lua_rawgeti(L, base + 3, i);
    bytes = entry_int(L, i, "bytes");
    if (tpool == LUA_TTABLE) {
      lua_rawgeti(L, base + 4, i);
      pool = entry_int(L, i, "pool");
    }
    if (talign == LUA_TTABLE) {
      lua_rawgeti(L, base + 5, i);
      align = entry_int(L, i, "align");
    }
    add_entry(L, p, i, first, last, bytes, pool, align);
  }
  lua_settop(L, base);
}

static int64_t opt_int(lua_State *L, int opts, const char *name, int64_t dflt) {
  int isnum = 0;
  lua_Integer v;
  int t = lua_getfield(L, opts, name);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return dflt;
  }
  v = t == LUA_TNUMBER ? lua_tointegerx(L, -1, &isnum) : 0;
  if (!isnum)
    fail(L, "opts.%s must be an integer, got %s", name,
               t == LUA_TNUMBER ? lua_tostring(L, -1) : th_lua_typename(L, -1));
  lua_pop(L, 1);
  return (int64_t)v;
}

static void read_opts(lua_State *L, th_plan_opts *o) {
  int t;
  th_plan_opts_init(o);
  if (lua_isnoneornil(L, 2)) return;
  if (!lua_istable(L, 2)) th_lua_argerror(L, 2, FNAME, "table of options expected, got %s", th_lua_typename(L, 2));
  t = lua_getfield(L, 2, "planner");
  if (t != LUA_TNIL) {
    const char *s = t == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    int m = s ? th_plan_method_parse(s) : -1;
    if (m < 0)
      fail(L, "opts.planner must be 'best', 'greedy_size', 'greedy_conflict', 'greedy_lifetime', "
                 "'peak' or 'sets', got %s%s%s", s ? "'" : "", s ? s : th_lua_typename(L, -1), s ? "'" : "");
    o->method = (th_plan_method)m;
  }
  lua_pop(L, 1);
  t = lua_getfield(L, 2, "fit");
  if (t != LUA_TNIL) {
    const char *s = t == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (s && strcmp(s, "best") == 0)
      o->fit = TH_PLAN_FIT_BEST;
    else if (s && strcmp(s, "first") == 0)
      o->fit = TH_PLAN_FIT_FIRST;
    else
      fail(L, "opts.fit must be 'best' or 'first', got %s%s%s", s ? "'" : "",
                 s ? s : th_lua_typename(L, -1), s ? "'" : "");
  }
  lua_pop(L, 1);
  t = lua_getfield(L, 2, "budget_ms");
  if (t != LUA_TNIL) {
    if (t != LUA_TNUMBER || !(lua_tonumber(L, -1) >= 0))
      fail(L, "opts.budget_ms must be a number >= 0, got %s",
                 t == LUA_TNUMBER ? lua_tostring(L, -1) : th_lua_typename(L, -1));
    o->budget_ms = lua_tonumber(L, -1);
  }
  lua_pop(L, 1);
  o->alignment = opt_int(L, 2, "alignment", o->alignment);
  if (o->alignment < 1 || (o->alignment & (o->alignment - 1)) != 0)
    fail(L, "opts.alignment must be a power of two, got %lld", (long long)o->alignment);
  o->seed = (uint64_t)opt_int(L, 2, "seed", (int64_t)o->seed);
  o->max_iters = opt_int(L, 2, "iterations", -1);
  if (o->max_iters < -1 || (o->max_iters == -1 && lua_getfield(L, 2, "iterations") != LUA_TNIL))
    fail(L, "opts.iterations must be >= 0, got %lld", (long long)o->max_iters);
  lua_settop(L, 2);
  lua_getfield(L, 2, "debug");
  o->debug = lua_toboolean(L, -1);
  lua_pop(L, 1);
}

static void push_log(lua_State *L, const char *s) {
  int k = 0;
  lua_newtable(L);
  while (*s) {
    const char *e = strchr(s, '\n');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    lua_pushlstring(L, s, len);
    lua_rawseti(L, -2, ++k);
    s += len + (e ? 1 : 0);
  }
}

static int plan_solve(lua_State *L) {
  planbox *b;
  th_plan *p;
  th_plan_opts o;
  int n, i, k, top;
  if (!lua_istable(L, 1))
    th_lua_argerror(L, 1, FNAME, "table of intervals expected, got %s", th_lua_typename(L, 1));
  read_opts(L, &o);
  lua_settop(L, 2);
  b = lua_newuserdatauv(L, sizeof *b, 0); /* index 3 */
  b->p = NULL;
  luaL_setmetatable(L, BOXMT);
  b->p = p = th_plan_new();
  if (p == NULL) th_lua_error(L, FNAME);
  switch (lua_getfield(L, 1, "first")) {
    case LUA_TTABLE:
      read_columns(L, p);
      break;
    case LUA_TNIL:
      lua_pop(L, 1);
      read_records(L, p, (int)lua_rawlen(L, 1));
      break;
    default:
      fail(L, "intervals must be an array of {first=, last=, bytes=} or parallel arrays "
                 "{first={..}, last={..}, bytes={..}}, got a table whose 'first' is a %s (one interval? wrap it in {})", th_lua_typename(L, -1));
  }
  lua_settop(L, 3);
  th_lua_check(L, th_plan_solve(p, &o), FNAME);
  n = th_plan_count(p);

  lua_createtable(L, 0, 10);
  top = lua_gettop(L);
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++) {
    lua_pushinteger(L, (lua_Integer)th_plan_offset(p, i));
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, top, "offsets");
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++) {
    lua_pushinteger(L, (lua_Integer)th_plan_size(p, i));
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, top, "sizes");
  lua_newtable(L); /* arena */
  lua_newtable(L); /* lower_bound */
  lua_newtable(L); /* heuristic */
  lua_newtable(L); /* iterations */
  for (k = 0; k < th_plan_npools(p); k++) {
    int64_t pool = th_plan_pool_id(p, k);
    th_plan_stats st;
    th_plan_stats_get(p, pool, &st);
    lua_pushinteger(L, (lua_Integer)st.arena);
    lua_rawseti(L, top + 1, (lua_Integer)pool);
    lua_pushinteger(L, (lua_Integer)st.lower_bound);
    lua_rawseti(L, top + 2, (lua_Integer)pool);
    lua_pushstring(L, th_plan_method_name[st.heuristic]);
    lua_rawseti(L, top + 3, (lua_Integer)pool);
    lua_pushinteger(L, (lua_Integer)st.iterations);
    lua_rawseti(L, top + 4, (lua_Integer)pool);
  }
  lua_setfield(L, top, "iterations");
  lua_setfield(L, top, "heuristic");
  lua_setfield(L, top, "lower_bound");
  lua_setfield(L, top, "arena");
  if (o.method == TH_PLAN_SETS) {
    lua_createtable(L, n, 0);
    for (i = 0; i < n; i++) {
      lua_pushinteger(L, th_plan_set(p, i) + 1);
      lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, top, "sets");
    lua_createtable(L, th_plan_nsets(p), 0);
    for (k = 0; k < th_plan_nsets(p); k++) {
      lua_pushinteger(L, (lua_Integer)th_plan_set_bytes(p, k));
      lua_rawseti(L, -2, k + 1);
    }
    lua_setfield(L, top, "set_bytes");
  }
  lua_pushstring(L, th_plan_method_name[o.method]);
  lua_setfield(L, top, "planner");
  if (o.debug) {
    push_log(L, th_plan_log(p));
    lua_setfield(L, top, "log");
  }
  th_plan_free(p);
  b->p = NULL;
  return 1;
}

void th_lua_open_plan(lua_State *L, int C) {
  C = lua_absindex(L, C);
  if (luaL_newmetatable(L, BOXMT)) {
    lua_pushcfunction(L, box_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, box_gc);
    lua_setfield(L, -2, "__close");
  }
  lua_pop(L, 1);
  lua_pushcfunction(L, plan_solve);
  lua_setfield(L, C, "plan");
}
