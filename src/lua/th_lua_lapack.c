/*
** th_lua_lapack.c: bindings for linear algebra (src/tensor/th_lapack.h).
** One table states each function's Torch7 signature: its results, its
** tensor inputs, its character options (allowed letters, the first is the
** default) and, for pstrf, a trailing number. One C function reads any of
** them (upvalue: the table entry), Torch7's way:
**   torch.gesv(B, A)               new results
**   torch.gesv(resb, resa, B, A)   results given (all of them, before the inputs)
**   B:gesv(A)                      a method is the function with self first
** An option may be left out while a later one is given when the letter
** tells which it is (torch.trtrs(b, A, 'T') is trans), as Torch7's
** generated wrappers accept. The results are returned in signature order.
*/
#include <string.h>
#include "th_lua.h"
#include "../tensor/th_error.h"
#include "../tensor/th_lapack.h"

#define MAXRES 3
#define MAXIN 3
#define MAXOPT 3

typedef int (*lapack_call)(th_tensor **r, th_tensor **in, const char *opt, double tol);

typedef struct lapack_fn {
  const char *name;
  int nres, nin;
  int ref;                   /* the input that fixes the type (A) */
  const char *opts[MAXOPT];  /* allowed letters, the first the default; NULL ends */
  int has_tol;               /* a trailing number (pstrf's tolerance, default -1) */
  int piv;                   /* result index (1-based) that is an IntTensor, or 0 */
  const char *usage;
  lapack_call call;
} lapack_fn;

static int c_gesv(th_tensor **r, th_tensor **in, const char *o, double tol) {
  return th_lapack_gesv(r[0], r[1], in[0], in[1]);
}
static int c_trtrs(th_tensor **r, th_tensor **in, const char *o, double tol) {
  return th_lapack_trtrs(r[0], r[1], in[0], in[1], o[0], o[1], o[2]);
}
static int c_gels(th_tensor **r, th_tensor **in, const char *o, double tol) {
  return th_lapack_gels(r[0], r[1], in[0], in[1]);
}
static int c_symeig(th_tensor **r, th_tensor **in, const char *o, double tol) {
  return th_lapack_syev(r[0], r[1], in[0], o[0], o[1]);
}
static int c_eig(th_tensor **r, th_tensor **in, const char *o, double tol) {
  return th_lapack_geev(r[0], r[1], in[0], o[0]);
}
static int c_svd(th_tensor **r, th_tensor **in, const char *o, double tol) {
  return th_lapack_gesvd(r[0], r[1], r[2], in[0], o[0]);
}
static int c_inverse(th_tensor **r, th_tensor **in, const char *o, double tol) {
  return th_lapack_getri(r[0], in[0]);
}
static int c_potrf(th_tensor **r, th_tensor **in, const char *o, double tol) {
  return th_lapack_potrf(r[0], in[0], o[0]);
}
static int c_potrs(th_tensor **r, th_tensor **in, const char *o, double tol) {
  return th_lapack_potrs(r[0], in[0], in[1], o[0]);
}
static int c_potri(th_tensor **r, th_tensor **in, const char *o, double tol) {
  return th_lapack_potri(r[0], in[0], o[0]);
}
static int c_pstrf(th_tensor **r, th_tensor **in, const char *o, double tol) {
  return th_lapack_pstrf(r[0], r[1], in[0], o[0], tol);
}
static int c_qr(th_tensor **r, th_tensor **in, const char *o, double tol) {
  return th_lapack_qr(r[0], r[1], in[0]);
}
static int c_geqrf(th_tensor **r, th_tensor **in, const char *o, double tol) {
  return th_lapack_geqrf(r[0], r[1], in[0]);
}
static int c_orgqr(th_tensor **r, th_tensor **in, const char *o, double tol) {
  return th_lapack_orgqr(r[0], in[0], in[1]);
}
static int c_ormqr(th_tensor **r, th_tensor **in, const char *o, double tol) {
  return th_lapack_ormqr(r[0], in[0], in[1], in[2], o[0], o[1]);
}

static const lapack_fn lapack_fns[] = {
    {"gesv", 2, 2, 1, {NULL}, 0, 0, "[resb, resa,] B, A", c_gesv},
    {"trtrs", 2, 2, 1, {"UL", "NT", "NU"}, 0, 0,
     "[resb, resa,] B, A [, 'U' | 'L'] [, 'N' | 'T'] [, 'N' | 'U']", c_trtrs},
    {"gels", 2, 2, 1, {NULL}, 0, 0, "[resb, resa,] B, A", c_gels},
    {"symeig", 2, 1, 0, {"NV", "UL"}, 0, 0, "[rese, resv,] A [, 'N' | 'V'] [, 'U' | 'L']", c_symeig},
    {"eig", 2, 1, 0, {"NV"}, 0, 0, "[rese, resv,] A [, 'N' | 'V']", c_eig},
    {"svd", 3, 1, 0, {"SA"}, 0, 0, "[resu, ress, resv,] A [, 'S' | 'A']", c_svd},
    {"gesvd", 3, 1, 0, {"SA"}, 0, 0, "[resu, ress, resv,] A [, 'S' | 'A']", c_svd},
    {"inverse", 1, 1, 0, {NULL}, 0, 0, "[res,] A", c_inverse},
    {"potrf", 1, 1, 0, {"UL"}, 0, 0, "[res,] A [, 'U' | 'L']", c_potrf},
    {"potrs", 1, 2, 1, {"UL"}, 0, 0, "[res,] B, chol [, 'U' | 'L']", c_potrs},
    {"potri", 1, 1, 0, {"UL"}, 0, 0, "[res,] chol [, 'U' | 'L']", c_potri},
    {"pstrf", 2, 1, 0, {"UL"}, 1, 2, "[res, piv,] A [, 'U' | 'L'] [, tol]", c_pstrf},
    {"qr", 2, 1, 0, {NULL}, 0, 0, "[q, r,] A", c_qr},
    {"geqrf", 2, 1, 0, {NULL}, 0, 0, "[m, tau,] A", c_geqrf},
    {"orgqr", 1, 2, 0, {NULL}, 0, 0, "[q,] m, tau", c_orgqr},
    {"ormqr", 1, 3, 0, {"LR", "NT"}, 0, 0, "[res,] m, tau, mat [, 'L' | 'R'] [, 'N' | 'T']", c_ormqr},
    {NULL, 0, 0, 0, {NULL}, 0, 0, NULL, NULL}};

/* raises "gesv: invalid arguments (torch.DoubleTensor, string); expected [resb, resa,] B, A" */
static int bad_args(lua_State *L, const lapack_fn *f) {
  luaL_Buffer b;
  int i, top = lua_gettop(L);
  luaL_buffinit(L, &b);
  for (i = 1; i <= top; i++) {
    if (i > 1) luaL_addstring(&b, ", ");
    luaL_addstring(&b, th_lua_typename(L, i));
    if (lua_type(L, i) == LUA_TSTRING) {
      luaL_addstring(&b, " '");
      luaL_addstring(&b, lua_tostring(L, i));
      luaL_addstring(&b, "'");
    }
  }
  luaL_pushresult(&b);
  return luaL_error(L, "%s: invalid arguments (%s); expected %s", f->name, lua_tostring(L, -1),
                    f->usage);
}

/* is the argument at idx one letter of 'allowed'? */
static int is_option(lua_State *L, int idx, const char *allowed) {
  size_t len;
  const char *s;
  if (lua_type(L, idx) != LUA_TSTRING) return 0;
  s = lua_tolstring(L, idx, &len);
  return len == 1 && strchr(allowed, s[0]) != NULL;
}

static int l_lapack(lua_State *L) {
  const lapack_fn *f = (const lapack_fn *)lua_touserdata(L, lua_upvalueindex(1));
  th_tensor *res[MAXRES], *in[MAXIN];
  int resi[MAXRES];
  char opt[MAXOPT + 1];
  double tol = -1;
  int top, ntensors = 0, given, arg, i;
  th_dtype dt;
  top = lua_gettop(L);
  while (top > 0 && lua_isnil(L, top)) top--;
  lua_settop(L, top);
  while (ntensors < top && th_lua_totensor(L, ntensors + 1) != NULL) ntensors++;
  if (ntensors == f->nres + f->nin) given = 1;
  else if (ntensors == f->nin) given = 0;
  else return bad_args(L, f);
  arg = ntensors + 1;
  memset(opt, 0, sizeof opt);
  for (i = 0; i < MAXOPT && f->opts[i] != NULL; i++) {
    opt[i] = f->opts[i][0];
    if (arg <= top && is_option(L, arg, f->opts[i])) opt[i] = lua_tostring(L, arg++)[0];
  }
  if (f->has_tol && arg <= top && lua_type(L, arg) == LUA_TNUMBER) tol = lua_tonumber(L, arg++);
  if (arg <= top) return bad_args(L, f);

  for (i = 0; i < f->nin; i++) in[i] = th_lua_checktensor(L, (given ? f->nres : 0) + i + 1, f->name);
  dt = in[f->ref]->dtype;
  for (i = 0; i < f->nres; i++) {
    const th_dtype rdt = f->piv == i + 1 ? TH_INT : dt;
    if (given) {
      res[i] = th_lua_checktensortype(L, i + 1, rdt, f->name);
      resi[i] = i + 1;
    } else {
      res[i] = th_lua_newtensor(L, rdt);
      resi[i] = lua_gettop(L);
    }
  }
  th_lua_check(L, f->call(res, in, opt, tol), f->name);
  for (i = 0; i < f->nres; i++) lua_pushvalue(L, resi[i]);
  return f->nres;
}

void th_lua_open_lapack(lua_State *L, int methods) {
  const lapack_fn *f;
  lua_getfield(L, methods, "__math");  /* lua/torch/math.lua copies these into torch */
  for (f = lapack_fns; f->name != NULL; f++) {
    lua_pushlightuserdata(L, (void *)f);
    lua_pushcclosure(L, l_lapack, 1);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, f->name);
    lua_setfield(L, methods, f->name);
  }
  lua_pop(L, 1);
}
