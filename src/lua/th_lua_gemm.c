/*
** th_lua_gemm.c: torch._C.gemm_backend (which float GEMM the engine uses)
** and torch._C.sgemm, th_sgemm on the raw elements of contiguous float
** tensors with cblas_sgemm's full argument list, so specs and benchmarks
** can reach every layout, leading dimension and beta = 0 on a NaN-filled C.
** Every extent is checked against the tensors' sizes before the call.
*/
#include <string.h>
#include "th_lua.h"
#include "../tensor/th_cpuinfo.h"
#include "../tensor/th_gemm.h"

static const char *const backends[] = {"ours", "openblas"};

/* torch._C.gemm_backend(['ours' | 'openblas']) -> the previous backend,
   and whether ours runs on this CPU (AVX-512 F, BW, DQ, VL; without them th_sgemm falls
   back to OpenBLAS whatever is chosen). No argument only queries. */
static int gemm_backend(lua_State *L) {
  int b = -1;
  if (!lua_isnoneornil(L, 1)) {
    const char *s = lua_type(L, 1) == LUA_TSTRING ? lua_tostring(L, 1) : NULL;
    if (s == NULL || (strcmp(s, backends[0]) != 0 && strcmp(s, backends[1]) != 0))
      return th_lua_argerror(L, 1, "torch._C.gemm_backend", "'ours' or 'openblas' expected, got %s%s%s",
                             s ? "'" : "", s ? s : luaL_typename(L, 1), s ? "'" : "");
    b = strcmp(s, backends[0]) == 0 ? TH_GEMM_OURS : TH_GEMM_OPENBLAS;
  }
  lua_pushstring(L, backends[th_gemm_backend(b)]);
  lua_pushboolean(L, th_gemm_supported());
  return 2;
}

static int flag(lua_State *L, int arg, const char *a, const char *b) {
  const char *s = luaL_checkstring(L, arg);
  if (strcmp(s, a) == 0) return 0;
  if (strcmp(s, b) == 0) return 1;
  return th_lua_argerror(L, arg, "torch._C.sgemm", "'%s' or '%s' expected, got '%s'", a, b, s);
}

static int dim(lua_State *L, int arg, const char *what) {
  const int64_t v = th_lua_checkint(L, arg, "torch._C.sgemm", what);
  if (v < 0 || v > 1 << 20)
    return th_lua_argerror(L, arg, "torch._C.sgemm", "%s must be 0..%d, got %lld", what, 1 << 20, (long long)v);
  return (int)v;
}

/* the elements of a contiguous float tensor holding a rows x cols matrix
   with leading dimension ld (rows of ld elements, cols of them used) */
static float *matrix(lua_State *L, int arg, int rows, int cols, int ld, const char *what) {
  th_tensor *t = th_lua_checktensortype(L, arg, TH_FLOAT, "torch._C.sgemm");
  const int64_t need = rows > 0 && cols > 0 ? (int64_t)(rows - 1) * ld + cols : 0;
  if (!th_tensor_is_contiguous(t))
    th_lua_argerror(L, arg, "torch._C.sgemm", "%s must be contiguous", what);
  if (ld < (cols > 1 ? cols : 1))
    th_lua_argerror(L, arg + 1, "torch._C.sgemm", "leading dimension of %s must be at least %d, got %d",
                    what, cols > 1 ? cols : 1, ld);
  if (th_tensor_numel(t) < need)
    th_lua_argerror(L, arg, "torch._C.sgemm", "%s needs %lld elements, got %lld", what,
                    (long long)need, (long long)th_tensor_numel(t));
  return th_tensor_numel(t) > 0 ? th_tensor_data(t) : NULL;
}

/* torch._C.sgemm(order 'R'|'C', transa 'N'|'T', transb 'N'|'T', m, n, k,
   alpha, A, lda, B, ldb, beta, C, ldc): C = alpha op(A) op(B) + beta C */
static int gemm_sgemm(lua_State *L) {
  const int row = flag(L, 1, "C", "R"), ta = flag(L, 2, "N", "T"), tb = flag(L, 3, "N", "T");
  const int m = dim(L, 4, "m"), n = dim(L, 5, "n"), k = dim(L, 6, "k");
  const float alpha = (float)luaL_checknumber(L, 7), beta = (float)luaL_checknumber(L, 12);
  const int lda = dim(L, 9, "lda"), ldb = dim(L, 11, "ldb"), ldc = dim(L, 14, "ldc");
  /* the stored matrix: a row-major op(X) = X is rows x cols; column-major swaps */
  const int ar = row == !ta ? m : k, ac = row == !ta ? k : m;
  const int br = row == !tb ? k : n, bc = row == !tb ? n : k;
  const float *a = matrix(L, 8, ar, ac, lda, "A"), *b = matrix(L, 10, br, bc, ldb, "B");
  float *c = matrix(L, 13, row ? m : n, row ? n : m, ldc, "C");
  th_sgemm(row ? CblasRowMajor : CblasColMajor, ta ? CblasTrans : CblasNoTrans,
           tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  return 0;
}

static void setint(lua_State *L, const char *k, int64_t v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

/* a cache field of torch.gemmInfo's argument: a size in bytes (or a count) */
static int64_t cachefield(lua_State *L, const char *k, int64_t dflt, int64_t lo) {
  int64_t v = dflt;
  lua_getfield(L, 1, k);
  if (!lua_isnil(L, -1)) {
    if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < lo)
      return th_lua_argerror(L, 1, "torch.gemmInfo", "field '%s' must be an integer >= %lld, got %s", k,
                             (long long)lo, lua_isinteger(L, -1) ? lua_tostring(L, -1) : luaL_typename(L, -1));
    v = lua_tointeger(L, -1);
  }
  lua_pop(L, 1);
  return v;
}

/* torch.gemmInfo([caches]) -> the sgemm's blocking and variant: the one in
   use, or the one the model derives for caches {l1d=, l2=, l3=, l3Shared=}
   (bytes; missing fields are this CPU's, no TH_GEMM_* override applies) */
static int gemm_info(lua_State *L) {
  th_gemm_info g;
  int b;
  if (!lua_isnoneornil(L, 1)) {
    th_cpuinfo ci = *th_cpuinfo_get();
    luaL_checktype(L, 1, LUA_TTABLE);
    ci.l1d = cachefield(L, "l1d", ci.l1d, 1);
    ci.l2 = cachefield(L, "l2", ci.l2, 1);
    ci.l3 = cachefield(L, "l3", ci.l3, 0);
    /* a given l3 is one core's share unless l3Shared says otherwise */
    ci.l3_shared = lua_getfield(L, 1, "l3") != LUA_TNIL ? 1 : ci.l3_shared;
    lua_pop(L, 1);
    ci.l3_shared = (int)cachefield(L, "l3Shared", ci.l3_shared, 1);
    th_gemm_derive(&ci, &g);
  } else {
    th_gemm_info_get(&g);
  }
  b = th_gemm_backend(-1);
  lua_createtable(L, 0, 14);
  setint(L, "kc", g.kc), setint(L, "mc", g.mc), setint(L, "nc", g.nc);
  setint(L, "mr", g.mr), setint(L, "nr", g.nr);
  setint(L, "directM", g.direct_m), setint(L, "dotMN", g.dot_mn), setint(L, "dotBT", g.dot_bt);
  setint(L, "flipM", g.flip_m), setint(L, "parMflop", g.par_mflop), setint(L, "chunks", g.chunks);
  lua_pushstring(L, b == TH_GEMM_OURS && th_gemm_supported() ? "ours" : "openblas");
  lua_setfield(L, -2, "backend");
  lua_pushstring(L, th_gemm_supported() ? "avx512 8x48" : "openblas");
  lua_setfield(L, -2, "kernel");
  return 1;
}

/* torch._C.gemm_set_blocking(kc, mc, nc): tuning runs only (0 keeps one) */
static int gemm_set_blocking(lua_State *L) {
  th_gemm_set_blocking((int)luaL_checkinteger(L, 1), (int)luaL_checkinteger(L, 2), (int)luaL_checkinteger(L, 3));
  return 0;
}

static const luaL_Reg gemm_funcs[] = {{"gemm_backend", gemm_backend},
                                      {"sgemm", gemm_sgemm},
                                      {"gemmInfo", gemm_info},
                                      {"gemm_set_blocking", gemm_set_blocking},
                                      {NULL, NULL}};

void th_lua_open_gemm(lua_State *L, int C) {
  C = lua_absindex(L, C);
  lua_pushvalue(L, C);
  luaL_setfuncs(L, gemm_funcs, 0);
  lua_pop(L, 1);
}
