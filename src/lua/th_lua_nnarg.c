/*
** th_lua_nnarg.c: argument handling shared by the nn binding files (see
** th_lua_nnarg.h).
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
  if (strcmp(what, "gradInput") == 0)
    return n >= 16 && strcmp(fn + n - 16, ":updateGradInput") == 0;
  return 0;
}

th_tensor *th_lua_nn_checkextent(lua_State *L, th_tensor *t, const char *fn, const char *what) {
  /* an own result is checked by its resize instead, which grows the storage */
  if (th_tensor_check_extent(t, what) != TH_OK && !own_result(fn, what)) th_lua_error(L, fn);
  return t;
}

th_tensor *th_lua_nn_tensor(lua_State *L, int idx, const char *fn, const char *what) {
  th_tensor *t = th_lua_totensor(L, idx);
  const char *freed;
  if (t == NULL)
    luaL_error(L, "%s: %s must be a tensor, got %s", fn, what, th_lua_typename(L, idx));
  if ((freed = th_lua_freed(t)) != NULL) luaL_error(L, "%s: %s was %s", fn, what, freed);
  return th_lua_nn_checkextent(L, t, fn, what);
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

double th_lua_nn_checknum(lua_State *L, int idx, const char *fn, const char *what) {
  if (lua_isnoneornil(L, idx))
    luaL_error(L, "%s: %s must be a number, got %s", fn, what, th_lua_typename(L, idx));
  return th_lua_nn_num(L, idx, 0, fn, what);
}

int64_t th_lua_nn_checkint(lua_State *L, int idx, const char *fn, const char *what) {
  if (lua_isnoneornil(L, idx))
    luaL_error(L, "%s: %s must be an integer, got %s", fn, what, th_lua_typename(L, idx));
  return th_lua_nn_int(L, idx, 0, fn, what);
}

static void field(lua_State *L, const char *k) {
  if (!lua_istable(L, 1))
    luaL_error(L, "nn: module expected as argument 1, got %s", th_lua_typename(L, 1));
  lua_getfield(L, 1, k);
}

/* one argument's kind, as a row's spec gives it (th_lua_nn_register) */
typedef struct argspec {
  char kind;  /* 't' tensor, 'n' number, 'i' integer, 'b' boolean */
  char opt;   /* tensor: nil allowed (NULL); number, integer: 'def' when nil */
  double def;
  char what[48];  /* its name in messages */
} argspec;

static void check_arg(lua_State *L, int idx, const argspec *a, th_lua_nn_val *v, const char *fn) {
  switch (a->kind) {
    case 't':
      v->t =
          a->opt ? th_lua_nn_opttensor(L, idx, fn, a->what) : th_lua_nn_tensor(L, idx, fn, a->what);
      break;
    case 'n':
      v->n = a->opt ? th_lua_nn_num(L, idx, a->def, fn, a->what)
                    : th_lua_nn_checknum(L, idx, fn, a->what);
      break;
    case 'i':
      v->i = a->opt ? th_lua_nn_int(L, idx, (int64_t)a->def, fn, a->what)
                    : th_lua_nn_checkint(L, idx, fn, a->what);
      break;
    default: v->b = lua_toboolean(L, idx); break;
  }
}

/* field k of the module, checked as a (whose 'what' names the field) */
static th_lua_nn_val field_val(lua_State *L, const char *k, argspec a, const char *fn) {
  th_lua_nn_val v;
  field(L, k);
  snprintf(a.what, sizeof a.what, "field '%s'", k);
  check_arg(L, lua_gettop(L), &a, &v, fn);
  lua_pop(L, 1);
  return v;
}

int64_t th_lua_nn_intfield(lua_State *L, const char *k, int64_t def, const char *fn) {
  return field_val(L, k, (argspec){'i', 1, (double)def, ""}, fn).i;
}

int64_t th_lua_nn_checkintfield(lua_State *L, const char *k, const char *fn) {
  return field_val(L, k, (argspec){'i', 0, 0, ""}, fn).i;
}

double th_lua_nn_numfield(lua_State *L, const char *k, double def, const char *fn) {
  return field_val(L, k, (argspec){'n', 1, def, ""}, fn).n;
}

double th_lua_nn_checknumfield(lua_State *L, const char *k, const char *fn) {
  return field_val(L, k, (argspec){'n', 0, 0, ""}, fn).n;
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

/* --- table-driven bindings ------------------------------------------------ */

typedef struct rowspec {
  const th_lua_nn_binding *b;
  int n;
  argspec a[TH_LUA_NN_MAXARGS];
} rowspec;

/* one spec item ("bias?", "scale:n=1") into a; returns the text after it */
static const char *parse_arg(lua_State *L, const char *s, argspec *a, const char *row) {
  size_t len = strcspn(s, " :=?");
  char *end;
  if (len == 0 || len >= sizeof a->what) luaL_error(L, "%s: bad argument name at '%s'", row, s);
  memcpy(a->what, s, len);
  a->what[len] = '\0';
  a->kind = 't', a->opt = 0, a->def = 0;
  s += len;
  if (*s == '?') return a->opt = 1, s + 1;
  if (*s != ':') return s;
  a->kind = s[1];
  if (a->kind == '\0' || strchr("nib", a->kind) == NULL)
    luaL_error(L, "%s: bad kind at '%s'", row, s);
  s += 2;
  if (*s != '=') return s;
  a->def = strtod(s + 1, &end);
  if (end == s + 1 || a->kind == 'b') luaL_error(L, "%s: bad default at '%s'", row, s);
  a->opt = 1;
  return end;
}

static void parse_row(lua_State *L, rowspec *r, const th_lua_nn_binding *b) {
  const char *s = b->args;
  r->b = b, r->n = 0;
  while (*(s += strspn(s, " ")) != '\0') {
    if (r->n == TH_LUA_NN_MAXARGS)
      luaL_error(L, "%s: more than %d arguments", b->name, TH_LUA_NN_MAXARGS);
    s = parse_arg(L, s, &r->a[r->n++], b->name);
    if (*s != ' ' && *s != '\0') luaL_error(L, "%s: bad spec at '%s'", b->name, s);
  }
}

/* the C function of every row; upvalue 1: its rowspec */
static int run_row(lua_State *L) {
  const rowspec *r = (const rowspec *)lua_touserdata(L, lua_upvalueindex(1));
  th_lua_nn_fname f;
  th_lua_nn_call c;
  th_lua_nn_val a[TH_LUA_NN_MAXARGS + 3];
  int k, first = r->b->method != NULL ? 2 : 3;  /* no method: argument 2 names it */
  c.L = L;
  c.fn = th_lua_nn_fn(L, &f, r->b->method != NULL ? r->b->method : luaL_checkstring(L, 2));
  for (k = 0; k < r->n; k++) check_arg(L, k + first, &r->a[k], &a[k + first], c.fn);
  th_lua_check(L, r->b->call(&c, a), c.fn);
  if (r->b->result > 0) {
    lua_settop(L, r->b->result);
    return 1;
  }
  for (k = 0; k < -r->b->result; k++) lua_pushnumber(L, c.ret[k]);
  return -r->b->result;
}

void th_lua_nn_register(lua_State *L, const th_lua_nn_binding *b) {
  for (; b->name != NULL; b++) {
    rowspec *r = (rowspec *)lua_newuserdatauv(L, sizeof *r, 0);
    parse_row(L, r, b);
    lua_pushcclosure(L, run_row, 1);
    lua_setfield(L, -2, b->name);
  }
}

void th_lua_nn_register_op(lua_State *L, const char *name, int op, lua_CFunction fwd,
                           lua_CFunction bwd) {
  char key[96];
  snprintf(key, sizeof key, "%s_updateOutput", name);
  lua_pushinteger(L, op);
  lua_pushcclosure(L, fwd, 1);
  lua_setfield(L, -2, key);
  snprintf(key, sizeof key, "%s_updateGradInput", name);
  lua_pushinteger(L, op);
  lua_pushcclosure(L, bwd, 1);
  lua_setfield(L, -2, key);
}

/* --- pointwise families --------------------------------------------------- */

/* upvalues of a family's closures: 1 the op (-1 for the check), 2 the family */
static const th_lua_nn_pwfamily *pw_family(lua_State *L) {
  return (const th_lua_nn_pwfamily *)lua_touserdata(L, lua_upvalueindex(2));
}

static void pw_params(lua_State *L, int idx, double *p, const char *fn) {
  p[0] = th_lua_nn_num(L, idx, 0.0, fn, "parameter 1");
  p[1] = th_lua_nn_num(L, idx + 1, 0.0, fn, "parameter 2");
}

static int pw_update_output(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateOutput");
  int op = (int)lua_tointeger(L, lua_upvalueindex(1));
  th_tensor *input = th_lua_nn_tensor(L, 2, fn, "input");
  th_tensor *output = th_lua_nn_tensor(L, 3, fn, "output");
  int inplace = lua_toboolean(L, 4);
  double p[2];
  pw_params(L, 5, p, fn);
  th_lua_check(L, pw_family(L)->forward(op, p, input, output, inplace), fn);
  lua_settop(L, 3);
  return 1;
}

static int pw_update_grad_input(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "updateGradInput");
  int op = (int)lua_tointeger(L, lua_upvalueindex(1));
  th_tensor *input = th_lua_nn_opttensor(L, 2, fn, "input");
  th_tensor *go = th_lua_nn_tensor(L, 3, fn, "gradOutput");
  th_tensor *gi = th_lua_nn_tensor(L, 4, fn, "gradInput");
  th_tensor *output = th_lua_nn_opttensor(L, 5, fn, "output");
  int inplace = lua_toboolean(L, 6);
  double p[2];
  pw_params(L, 7, p, fn);
  th_lua_check(L, pw_family(L)->backward(op, p, input, go, gi, output, inplace), fn);
  lua_settop(L, 4);
  return 1;
}

static int pw_check(lua_State *L) {
  th_lua_nn_fname f;
  const char *fn = th_lua_nn_fn(L, &f, "__init");
  const th_lua_nn_pwfamily *fam = pw_family(L);
  const char *name = luaL_checkstring(L, 2);
  int op;
  double p[2];
  for (op = 0; op < fam->n; op++)
    if (strcmp(name, fam->names[op]) == 0) break;
  if (op == fam->n) return luaL_error(L, "%s: unknown %s '%s'", fn, fam->kind, name);
  pw_params(L, 4, p, fn);
  th_lua_check(L, fam->check(op, p, lua_toboolean(L, 3)), fn);
  return 0;
}

/* one closure over op and f (a light userdata: f is static and only read) */
static void push_pw(lua_State *L, const th_lua_nn_pwfamily *f, int op, lua_CFunction fn) {
  lua_pushinteger(L, op);
  lua_pushlightuserdata(L, (void *)(uintptr_t)f);
  lua_pushcclosure(L, fn, 2);
}

void th_lua_nn_register_pw(lua_State *L, const th_lua_nn_pwfamily *f, const char *checkname) {
  char key[96];
  int op;
  for (op = 0; op < f->n; op++) {
    snprintf(key, sizeof key, "%s_updateOutput", f->names[op]);
    push_pw(L, f, op, pw_update_output);
    lua_setfield(L, -2, key);
    snprintf(key, sizeof key, "%s_updateGradInput", f->names[op]);
    push_pw(L, f, op, pw_update_grad_input);
    lua_setfield(L, -2, key);
  }
  push_pw(L, f, -1, pw_check);
  lua_setfield(L, -2, checkname);
}
