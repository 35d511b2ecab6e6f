/*
** th_lua_nnarg.c: argument handling shared by the nn binding files (see
** th_lua_nnarg.h).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "th_lua_nnarg.h"
#include "../tensor/th_error.h"

const char *th_lua_nn_fn(lua_State *L, th_lua_nn_fname *f, const char *method) {
  const char *cls = lua_istable(L, 1) ? th_lua_typename(L, 1) : "nn.?";
  snprintf(f->s, sizeof f->s, "%s:%s", cls, method);
  return f->s;
}

/* whether 'what' is the call's own result, which its kernel sizes before
   writing (THNN's convention, kept by every src/nn kernel): the output of
   updateOutput, the gradInput of updateGradInput */
static int own_result(const char *fn, const char *what) {
  size_t n = strlen(fn);
  if (strcmp(what, "output") == 0) return n >= 13 && strcmp(fn + n - 13, ":updateOutput") == 0;
  if (strcmp(what, "gradInput") == 0) return n >= 16 && strcmp(fn + n - 16, ":updateGradInput") == 0;
  return 0;
}

th_tensor *th_lua_nn_checkextent(lua_State *L, th_tensor *t, const char *fn, const char *what) {
  /* an own result is checked by its resize instead, which grows the storage */
  if (th_tensor_check_extent(t, what) != TH_OK && !own_result(fn, what)) th_lua_error(L, fn);
  return t;
}

th_tensor *th_lua_nn_tensor(lua_State *L, int idx, const char *fn, const char *what) {
  if (th_lua_totensor(L, idx) == NULL)
    luaL_error(L, "%s: %s must be a tensor, got %s", fn, what, th_lua_typename(L, idx));
  return th_lua_nn_checkextent(L, th_lua_checkview(L, idx, fn), fn, what);  /* refuses freed tensors */
}

th_tensor *th_lua_nn_opttensor(lua_State *L, int idx, const char *fn, const char *what) {
  return lua_isnoneornil(L, idx) ? NULL : th_lua_nn_tensor(L, idx, fn, what);
}

double th_lua_nn_num(lua_State *L, int idx, double def, const char *fn, const char *what) {
  int isnum;
  lua_Number v;
  if (lua_isnoneornil(L, idx)) return def;
  v = lua_tonumberx(L, idx, &isnum);
  if (!isnum) luaL_error(L, "%s: %s must be a number, got %s", fn, what, th_lua_typename(L, idx));
  return (double)v;
}

/* |v| < 2^62 keeps every later size product of two such values checkable */
int64_t th_lua_nn_int(lua_State *L, int idx, int64_t def, const char *fn, const char *what) {
  double v;
  if (lua_isinteger(L, idx)) {  /* exact, also in the message */
    lua_Integer i = lua_tointeger(L, idx);
    if (i <= -((lua_Integer)1 << 62) || i >= ((lua_Integer)1 << 62))
      luaL_error(L, "%s: %s must be below 2^62 in magnitude, got %I", fn, what, i);
    return (int64_t)i;
  }
  v = th_lua_nn_num(L, idx, (double)def, fn, what);
  if (v != floor(v) || !isfinite(v)) {
    char got[64];   /* lua_pushfstring knows no %g */
    snprintf(got, sizeof got, "%g", v);
    luaL_error(L, "%s: %s must be an integer, got %s", fn, what, got);
  }
  if (!(fabs(v) < 4611686018427387904.0)) {
    char got[64];
    snprintf(got, sizeof got, "%.0f", v);
    luaL_error(L, "%s: %s must be below 2^62 in magnitude, got %s", fn, what, got);
  }
  return (int64_t)v;
}

static void field(lua_State *L, const char *k) {
  if (!lua_istable(L, 1)) luaL_error(L, "nn: module expected as argument 1, got %s", th_lua_typename(L, 1));
  lua_getfield(L, 1, k);
}

int64_t th_lua_nn_intfield(lua_State *L, const char *k, int64_t def, const char *fn) {
  int64_t v;
  char what[80];
  field(L, k);
  snprintf(what, sizeof what, "field '%s'", k);
  v = th_lua_nn_int(L, lua_gettop(L), def, fn, what);
  lua_pop(L, 1);
  return v;
}

double th_lua_nn_numfield(lua_State *L, const char *k, double def, const char *fn) {
  double v;
  char what[80];
  field(L, k);
  snprintf(what, sizeof what, "field '%s'", k);
  v = th_lua_nn_num(L, lua_gettop(L), def, fn, what);
  lua_pop(L, 1);
  return v;
}

int th_lua_nn_boolfield(lua_State *L, const char *k, int def) {
  int v;
  field(L, k);
  v = lua_isnil(L, -1) ? def : lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

void th_lua_nn_push(lua_State *L, int C) {
  lua_getfield(L, C, "nn");
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, C, "nn");
  }
}
