/*
** th_lua_sys.c: process-level services: identity (torch.pointer),
** memory statistics, thread counts, clocks.
*/
#include <time.h>
#include <cblas.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "th_lua.h"

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
  lua_setfield(L, -2, "categories");
  return 1;
}

static int sys_resetpeak(lua_State *L) {
  (void)L;
  th_alloc_reset_peak();
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

/* C.clock() -> wall seconds, cpu seconds (user+sys of the process) */
static int sys_clock(lua_State *L) {
  struct timespec w, c;
  clock_gettime(CLOCK_MONOTONIC, &w);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
  lua_pushnumber(L, (double)w.tv_sec + 1e-9 * (double)w.tv_nsec);
  lua_pushnumber(L, (double)c.tv_sec + 1e-9 * (double)c.tv_nsec);
  return 2;
}

static const luaL_Reg sys_funcs[] = {
    {"pointer", sys_pointer}, {"memoryStats", sys_memstats}, {"resetPeakMemory", sys_resetpeak},
    {"setnumthreads", sys_setnumthreads}, {"getnumthreads", sys_getnumthreads},
    {"clock", sys_clock}, {NULL, NULL}};

void th_lua_open_sys(lua_State *L, int C) {
  C = lua_absindex(L, C);
  lua_pushvalue(L, C);
  luaL_setfuncs(L, sys_funcs, 0);
  lua_pop(L, 1);
}
