/*
** th_lua_cpuinfo.c: torch.cpuInfo, the CPU description of
** src/tensor/th_cpuinfo.h as a Lua table (read once per process; the
** table is new on every call, so a caller may keep or change it).
*/
#include "th_lua.h"
#include "../tensor/th_cpuinfo.h"

static void setint(lua_State *L, const char *k, int64_t v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

static void setbool(lua_State *L, const char *k, int v) {
  lua_pushboolean(L, v);
  lua_setfield(L, -2, k);
}

static void setstr(lua_State *L, const char *k, const char *v) {
  lua_pushstring(L, v);
  lua_setfield(L, -2, k);
}

/* torch.cpuInfo() -> {vendor, model, family, modelNumber, stepping, l1d,
   l2, l3, l1dShared, l2Shared, l3Shared, l3Share, cacheSource, avx512,
   avx512bw, avx512vl, avx2, fma, amx, amxBf16, vectorBits, fmaUnits,
   flopsPerCycle, logicalCpus} */
static int cpu_info(lua_State *L) {
  const th_cpuinfo *ci = th_cpuinfo_get();
  lua_createtable(L, 0, 24);
  setstr(L, "vendor", ci->vendor);
  setstr(L, "model", ci->brand);
  setint(L, "family", ci->family);
  setint(L, "modelNumber", ci->model);
  setint(L, "stepping", ci->stepping);
  setint(L, "l1d", ci->l1d), setint(L, "l2", ci->l2), setint(L, "l3", ci->l3);
  setint(L, "l1dShared", ci->l1d_shared), setint(L, "l2Shared", ci->l2_shared);
  setint(L, "l3Shared", ci->l3_shared), setint(L, "l3Share", th_cpuinfo_l3_share(ci));
  setstr(L, "cacheSource", ci->source);
  setbool(L, "avx512", ci->avx512f), setbool(L, "avx512bw", ci->avx512bw);
  setbool(L, "avx512vl", ci->avx512vl), setbool(L, "avx2", ci->avx2), setbool(L, "fma", ci->fma);
  setbool(L, "amx", ci->amx_tile), setbool(L, "amxBf16", ci->amx_bf16);
  setint(L, "vectorBits", ci->vector_bits);
  setint(L, "fmaUnits", ci->fma_units);
  /* single-precision flops a core can start per cycle: units x lanes x 2 */
  setint(L, "flopsPerCycle", (int64_t)ci->fma_units * (ci->vector_bits / 32) * 2);
  setint(L, "logicalCpus", ci->logical);
  return 1;
}

static const luaL_Reg cpuinfo_funcs[] = {{"cpuInfo", cpu_info}, {NULL, NULL}};

void th_lua_open_cpuinfo(lua_State *L, int C) {
  C = lua_absindex(L, C);
  lua_pushvalue(L, C);
  luaL_setfuncs(L, cpuinfo_funcs, 0);
  lua_pop(L, 1);
}
