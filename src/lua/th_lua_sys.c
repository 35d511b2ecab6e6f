/*
** th_lua_sys.c: process-level services: identity (torch.pointer),
** memory statistics, thread counts, clocks and CPU times, sleeping, the
** terminal test, and the th REPL's persistent history.
*/
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cblas.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "th_lua.h"
#include "../tensor/th_error.h"
#include "../tensor/th_scratch.h"
#include "../tensor/th_blockcache.h"

/* OpenBLAS's own thread control (declared by its cblas.h on Debian) */
static int nthreads = 0;

static int sys_pointer(lua_State *L) {
  th_tensor *t = th_lua_totensor(L, 1);
  th_lua_storage *b;
  if (t != NULL) {
    lua_pushinteger(L, (lua_Integer)(intptr_t)t);
    return 1;
  }
  if ((b = th_lua_tostoragebox(L, 1)) != NULL) {
    lua_pushinteger(L, (lua_Integer)(intptr_t)b->s);
    return 1;
  }
  /* x:data(), x:cdata(): the address itself (NULL: an empty tensor's is 0) */
  if (lua_type(L, 1) == LUA_TLIGHTUSERDATA) {
    lua_pushinteger(L, (lua_Integer)(intptr_t)lua_touserdata(L, 1));
    return 1;
  }
  if (lua_topointer(L, 1) != NULL) {
    lua_pushinteger(L, (lua_Integer)(intptr_t)lua_topointer(L, 1));
    return 1;
  }
  return th_lua_argerror(L, 1, "torch.pointer", "tensor, storage, table, function or userdata expected, got %s",
                         th_lua_typename(L, 1));
}

static void setint(lua_State *L, const char *k, int64_t v) {
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, -2, k);
}

static int sys_memstats(lua_State *L) {
  th_memstats m;
  th_scratch_stats sc;
  int64_t cbytes, ccount, lout, lhwm, lresized;
  int c;
  th_alloc_stats(&m);
  lua_newtable(L);
  setint(L, "live_bytes", m.live_bytes);
  setint(L, "peak_bytes", m.peak_bytes);
  setint(L, "live_count", m.live_count);
  setint(L, "total_count", m.total_count);
  lua_newtable(L);
  for (c = 0; c < TH_MEM_NCATS; c++) {
    lua_newtable(L);
    setint(L, "live_bytes", m.cat_live[c]);
    setint(L, "peak_bytes", m.cat_peak[c]);
    lua_setfield(L, -2, th_memcat_name[c]);
  }
  /* kernel workspace: not storage memory, so apart from the totals above */
  th_scratch_get_stats(&sc);
  lua_newtable(L);
  setint(L, "live_bytes", sc.live_bytes);
  setint(L, "peak_bytes", sc.peak_bytes);
  setint(L, "blocks", sc.blocks);
  lua_setfield(L, -2, "scratch");
  lua_setfield(L, -2, "categories");
  th_blockcache_stats(&cbytes, &ccount, &lout, &lhwm, &lresized);
  setint(L, "cached_bytes", cbytes);
  setint(L, "cached_count", ccount);
  setint(L, "large_bytes", lout);
  setint(L, "large_high_water_bytes", lhwm);
  setint(L, "resized_count", lresized);
  return 1;
}

/* torch.blockCacheLimit([bytes]) -> the previous cap of the cache of freed
   large blocks (th_blockcache.h); 0 turns caching off */
static int sys_blockcachelimit(lua_State *L) {
  size_t old = th_blockcache_limit();
  if (!lua_isnoneornil(L, 1)) {
    int64_t n = th_lua_checkint(L, 1, "torch.blockCacheLimit", "bytes");
    if (n < 0) return th_lua_argerror(L, 1, "torch.blockCacheLimit", "bytes must be non-negative, got %lld", (long long)n);
    th_blockcache_set_limit((size_t)n);
  }
  lua_pushinteger(L, (lua_Integer)old);
  return 1;
}

/* torch.freeBlockCache() -> the bytes given back to the system */
static int sys_freeblockcache(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)th_blockcache_flush());
  return 1;
}

/* C.releaseScratch() -> bytes freed: the calling thread's kernel workspace */
static int sys_releasescratch(lua_State *L) {
  int64_t bytes = th_scratch_bytes();
  if (th_scratch_release() != TH_OK) return luaL_error(L, "torch.releaseScratch: %s", th_error_msg());
  lua_pushinteger(L, (lua_Integer)bytes);
  return 1;
}

static int sys_resetpeak(lua_State *L) {
  (void)L;
  th_alloc_reset_peak();
  th_scratch_reset_peak();
  return 0;
}

static int sys_setnumthreads(lua_State *L) {
  int64_t n = th_lua_checkint(L, 1, "torch.setnumthreads", "thread count");
  if (n < 1 || n > 1024)
    return th_lua_argerror(L, 1, "torch.setnumthreads", "thread count must be 1..1024, got %lld", (long long)n);
  nthreads = (int)n;
  openblas_set_num_threads((int)n);
#ifdef _OPENMP
  omp_set_num_threads((int)n);
#endif
  return 0;
}

static int sys_getnumthreads(lua_State *L) {
  if (nthreads == 0) {
#ifdef _OPENMP
    nthreads = omp_get_max_threads();
#else
    nthreads = openblas_get_num_threads();
#endif
  }
  lua_pushinteger(L, nthreads);
  return 1;
}

/* C.blasinfo() -> OpenBLAS core name, its thread count, its build config:
   shows that OPENBLAS_CORETYPE reached the library and setnumthreads took */
static int sys_blasinfo(lua_State *L) {
  lua_pushstring(L, openblas_get_corename());
  lua_pushinteger(L, openblas_get_num_threads());
  lua_pushstring(L, openblas_get_config());
  return 3;
}

/* C.clock() -> wall seconds, cpu seconds (user+sys of the process) */
static int sys_clock(lua_State *L) {
  struct timespec w, c;
  clock_gettime(CLOCK_MONOTONIC, &w);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
  lua_pushnumber(L, (double)w.tv_sec + 1e-9 * (double)w.tv_nsec);
  lua_pushnumber(L, (double)c.tv_sec + 1e-9 * (double)c.tv_nsec);
  return 2;
}

/* C.realtime() -> seconds since the epoch, to the microsecond or better
   (sys.clock: Torch7's gettimeofday clock) */
static int sys_realtime(lua_State *L) {
  struct timespec w;
  clock_gettime(CLOCK_REALTIME, &w);
  lua_pushnumber(L, (double)w.tv_sec + 1e-9 * (double)w.tv_nsec);
  return 1;
}

/* C.usleep(microseconds): sleeps that long; a signal that interrupts the
   sleep does not shorten it (the rest is slept) */
static int sys_usleep(lua_State *L) {
  double us = th_lua_checknumber(L, 1, "sys.usleep", "microseconds");
  struct timespec t, rest;
  if (!(us >= 0) || us > 1e15)
    return th_lua_argerror(L, 1, "sys.usleep", "microseconds must be 0..1e15, got %f", us);
  t.tv_sec = (time_t)(us / 1e6);
  t.tv_nsec = (long)((us - (double)t.tv_sec * 1e6) * 1e3);
  if (t.tv_nsec > 999999999) t.tv_nsec = 999999999;
  while (nanosleep(&t, &rest) != 0 && errno == EINTR) t = rest;
  return 0;
}

/* C.isatty(fd) -> whether the file descriptor is a terminal (xlua.progress
   draws its bar only on one) */
static int sys_isatty(lua_State *L) {
  int64_t fd = th_lua_checkint(L, 1, "isatty", "file descriptor");
  lua_pushboolean(L, fd >= 0 && fd <= 1 << 20 && isatty((int)fd));
  return 1;
}

/* C.rusage() -> user seconds, system seconds of the process (torch.Timer) */
static int sys_rusage(lua_State *L) {
  struct rusage u;
  if (getrusage(RUSAGE_SELF, &u) != 0)
    return luaL_error(L, "torch._C.rusage: getrusage failed: %s", strerror(errno));
  lua_pushnumber(L, (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec);
  lua_pushnumber(L, (double)u.ru_stime.tv_sec + 1e-6 * (double)u.ru_stime.tv_usec);
  return 2;
}

/* C.history('read'|'write', path [, maxlines]) -> true | false, reason.
   Persistent history for the th REPL. The stock lua5.4 REPL keeps its
   history in GNU readline, which Debian links into the interpreter, but
   never saves it. The functions are looked up in the running process
   with dlsym rather than linked, so core.so needs no readline and loads
   into hosts without it (then the answer is false, "no readline"). */
static int sys_history(lua_State *L) {
  static const char *const ops[] = {"read", "write", NULL};
  int op = luaL_checkoption(L, 1, NULL, ops);
  const char *path = luaL_checkstring(L, 2);
  lua_Integer maxlines = luaL_optinteger(L, 3, 0);
  void *self = dlopen(NULL, RTLD_LAZY);
  int (*fn)(const char *) = NULL;
  int (*trunc_fn)(const char *, int) = NULL;
  int rc;
  if (self != NULL) {
    /* POSIX's way to turn dlsym's object pointer into a function pointer */
    *(void **)(&fn) = dlsym(self, op == 0 ? "read_history" : "write_history");
    *(void **)(&trunc_fn) = dlsym(self, "history_truncate_file");
    dlclose(self);  /* the main program stays loaded: the pointers stay valid */
  }
  if (fn == NULL) {
    lua_pushboolean(L, 0);
    lua_pushliteral(L, "no readline in this process");
    return 2;
  }
  rc = fn(path);  /* readline returns 0 or an errno value */
  if (rc == 0 && op == 1 && maxlines > 0 && trunc_fn != NULL)
    rc = trunc_fn(path, maxlines > 1 << 30 ? 1 << 30 : (int)maxlines);
  if (rc != 0) {
    lua_pushboolean(L, 0);
    lua_pushfstring(L, "%s: %s", path, strerror(rc));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* torch._C.allocLimit([bytes]) -> the previous limit: the largest single
   storage allocation accepted (0 restores physical memory). For tests that
   replay fuzz inputs, where a valid but huge request must fail fast. */
static int sys_alloclimit(lua_State *L) {
  size_t old = th_alloc_limit();
  if (!lua_isnoneornil(L, 1)) {
    int64_t n = th_lua_checkint(L, 1, "allocLimit", "limit");
    if (n < 0) th_lua_argerror(L, 1, "allocLimit", "limit must be non-negative, got %lld", (long long)n);
    th_alloc_set_limit((size_t)n);
  }
  lua_pushinteger(L, (lua_Integer)old);
  return 1;
}

/* torch._C.mallocTrim() -> true when done: hands malloc's free heap memory
   back to the system (glibc), so that VmRSS afterwards counts live memory
   only; tools/soak.lua reads it that way. false where unsupported. */
static int sys_malloctrim(lua_State *L) {
#ifdef __GLIBC__
  malloc_trim(0);
  lua_pushboolean(L, 1);
#else
  lua_pushboolean(L, 0);
#endif
  return 1;
}

static const luaL_Reg sys_funcs[] = {
    {"allocLimit", sys_alloclimit}, {"mallocTrim", sys_malloctrim},
    {"pointer", sys_pointer}, {"memoryStats", sys_memstats}, {"releaseScratch", sys_releasescratch}, {"resetPeakMemory", sys_resetpeak},
    {"blockCacheLimit", sys_blockcachelimit}, {"freeBlockCache", sys_freeblockcache},
    {"setnumthreads", sys_setnumthreads}, {"getnumthreads", sys_getnumthreads},
    {"clock", sys_clock}, {"blasinfo", sys_blasinfo}, {"rusage", sys_rusage}, {"history", sys_history},
    {"realtime", sys_realtime}, {"usleep", sys_usleep}, {"isatty", sys_isatty}, {NULL, NULL}};

void th_lua_open_sys(lua_State *L, int C) {
  C = lua_absindex(L, C);
  lua_pushvalue(L, C);
  luaL_setfuncs(L, sys_funcs, 0);
  lua_pop(L, 1);
}
