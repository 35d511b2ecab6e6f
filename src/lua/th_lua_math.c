/*
** th_lua_math.c: bindings for tensor math (src/tensor/th_math.h).
** Every binding is registered twice from one C function: as a tensor
** method, and as a function in the "__math" table of the methods (which
** lua/torch/math.lua installs as torch.add, torch.sum...). Upvalue 1 says
** which (true: function), upvalue 2 is the op, upvalue 3 the name used in
** messages. Torch7's argument conventions, decided in one place ('resolve'):
**   x:add(1)  x:add(y)           in-place ops write into self
**   x:gt(1)   x:sum(2)           the others return a new tensor
**   r:add(a, 1)  r:sum(a, 2)     a method whose arguments after self form
**                                a complete call writes into self
**   torch.add(a, b)              a function returns a new tensor...
**   torch.add(r, a, b)           ...unless it starts with a result tensor.
** A binding states its complete argument lists as a signature string
** ("tn|tt|tnt": t tensor, n number, b boolean); 'resolve' finds the
** result and the alternative that matched, or raises one message listing
** what was expected. Type checks and the kernels' errors come from the
** core and are prefixed with the name ("exp: not available for ...").
*/
#include <string.h>
#include "th_lua.h"
#include "../tensor/th_error.h"
#include "../tensor/th_math.h"
#include "../tensor/th_conv.h"

/* --- argument conventions -------------------------------------------------- */

static const char *fname_of(lua_State *L) { return lua_tostring(L, lua_upvalueindex(3)); }
static int op_of(lua_State *L) { return (int)lua_tointeger(L, lua_upvalueindex(2)); }
static int functional(lua_State *L) { return lua_toboolean(L, lua_upvalueindex(1)); }

/* index of the alternative of 'sig' matching the arguments arg..top, or -1 */
static int match(lua_State *L, int arg, const char *sig) {
  const int top = lua_gettop(L);
  const char *p = sig;
  int alt = 0;
  for (;;) {
    int a = arg, ok = 1;
    for (; *p && *p != '|'; p++, a++) {
      if (!ok) continue;
      if (a > top) ok = 0;
      else if (*p == 't') ok = th_lua_totensor(L, a) != NULL;
      else if (*p == 'n') ok = lua_type(L, a) == LUA_TNUMBER;
      else ok = lua_type(L, a) == LUA_TBOOLEAN;
    }
    if (ok && a == top + 1) return alt;
    if (*p == '\0') return -1;
    p++;
    alt++;
  }
}

/* raises "add: invalid arguments (torch.DoubleTensor, string); expected
   [result,] tensor, number | tensor, tensor" */
static int bad_args(lua_State *L, const char *fname, const char *prefix, const char *sig) {
  luaL_Buffer b;
  const char *p;
  int i, top = lua_gettop(L);
  luaL_buffinit(L, &b);
  for (i = 1; i <= top; i++) {
    if (i > 1) luaL_addstring(&b, ", ");
    luaL_addstring(&b, th_lua_typename(L, i));
  }
  luaL_addstring(&b, "); expected ");
  luaL_addstring(&b, prefix);
  for (p = sig; *p; p++) {
    if (*p == '|') {
      luaL_addstring(&b, " | ");
      continue;
    }
    if (p != sig && p[-1] != '|') luaL_addstring(&b, ", ");
    luaL_addstring(&b, *p == 't' ? "tensor" : *p == 'n' ? "number" : "boolean");
  }
  if (*sig == '\0') luaL_addstring(&b, "no arguments");
  luaL_pushresult(&b);
  return luaL_error(L, "%s: invalid arguments (%s", fname, lua_tostring(L, -1));
}

static void strip_nils(lua_State *L) {
  int top = lua_gettop(L);
  while (top > 0 && lua_isnil(L, top)) top--;
  lua_settop(L, top);
}

typedef struct call {
  int res;   /* stack index of the result tensor, 0: a new one */
  int in;    /* stack index of the first input */
  int form;  /* the alternative of the signature that matched */
} call;

/* Torch7's optional leading result (see the banner); 'inplace' ops write a
   method's self when no result is given */
static call resolve(lua_State *L, const char *sig, int inplace) {
  call c;
  strip_nils(L);
  if (th_lua_totensor(L, 1) != NULL && (c.form = match(L, 2, sig)) >= 0) {
    c.res = 1;
    c.in = 2;
    return c;
  }
  if ((c.form = match(L, 1, sig)) >= 0) {
    c.in = 1;
    c.res = inplace && !functional(L) ? 1 : 0;
    return c;
  }
  bad_args(L, fname_of(L), "[result,] ", sig);
  return c;
}

/* the result: the tensor at c->res, which must be of type dt, or a new one
   (pushed). Its extent is not checked here: every kernel taking one resizes
   it first (th_math_out_begin), which grows the storage to fit; when it is
   also an input (x:add(y)), tensor() checks it as one */
static th_tensor *result(lua_State *L, const call *c, th_dtype dt) {
  if (c->res) return th_lua_checkresult(L, c->res, dt, fname_of(L));
  return th_lua_newtensor(L, dt);
}

/* returns the result: the given tensor, or the new one on top */
static int ret(lua_State *L, const call *c) {
  if (c->res) lua_pushvalue(L, c->res);
  return 1;
}

static th_tensor *tensor(lua_State *L, int idx) { return th_lua_checktensor(L, idx, fname_of(L)); }

/* a further input: of the first input's type */
static th_tensor *like(lua_State *L, int idx, const th_tensor *first) {
  return th_lua_checktensortype(L, idx, first->dtype, fname_of(L));
}

static double num(lua_State *L, int idx) { return (double)lua_tonumber(L, idx); }

static void check(lua_State *L, int rc) { th_lua_check(L, rc, fname_of(L)); }

static void push_number(lua_State *L, th_dtype dt, const th_number *v) {
  if (TH_IS_FLOATING(dt)) lua_pushnumber(L, v->f);
  else lua_pushinteger(L, (lua_Integer)v->i);
}

/* --- element-wise ------------------------------------------------------------ */

/* add / csub (upvalue op: +1 / -1): x:add(v), x:add(y), x:add(v, y), and
   with a result r:add(a, v), r:add(a, b), r:add(a, v, b) */
static int m_add(lua_State *L) {
  const double sign = op_of(L);
  const call c = resolve(L, "tn|tt|tnt", 1);
  th_tensor *a = tensor(L, c.in), *b, *r;
  if (c.form == 0) {
    r = result(L, &c, a->dtype);
    check(L, th_tensor_scalar(r, a, TH_SC_ADD, sign * num(L, c.in + 1)));
  } else if (c.form == 1) {
    b = like(L, c.in + 1, a);
    r = result(L, &c, a->dtype);
    check(L, th_tensor_binary(r, a, TH_BI_ADD, b, sign));
  } else {
    b = like(L, c.in + 2, a);
    r = result(L, &c, a->dtype);
    check(L, th_tensor_binary(r, a, TH_BI_ADD, b, sign * num(L, c.in + 1)));
  }
  return ret(L, &c);
}

/* mul, div, fmod, remainder: x:mul(v), r:mul(a, v) */
static int m_scalar(lua_State *L) {
  const call c = resolve(L, "tn", 1);
  th_tensor *a = tensor(L, c.in), *r = result(L, &c, a->dtype);
  check(L, th_tensor_scalar(r, a, (th_scalar_op)op_of(L), num(L, c.in + 1)));
  return ret(L, &c);
}

/* cmul, cdiv, cpow, cfmod, cremainder: x:cmul(y), r:cmul(a, b) */
static int m_binary(lua_State *L) {
  const call c = resolve(L, "tt", 1);
  th_tensor *a = tensor(L, c.in), *b = like(L, c.in + 1, a), *r = result(L, &c, a->dtype);
  check(L, th_tensor_binary(r, a, (th_binary_op)op_of(L), b, 1));
  return ret(L, &c);
}

/* cmax, cmin (upvalue: 1 for max): with a tensor or a number */
static int m_cmaxmin(lua_State *L) {
  const int is_max = op_of(L);
  const call c = resolve(L, "tt|tn", 1);
  th_tensor *a = tensor(L, c.in), *b, *r;
  if (c.form == 0) {
    b = like(L, c.in + 1, a);
    r = result(L, &c, a->dtype);
    check(L, th_tensor_binary(r, a, is_max ? TH_BI_MAX : TH_BI_MIN, b, 1));
  } else {
    r = result(L, &c, a->dtype);
    check(L, th_tensor_scalar(r, a, is_max ? TH_SC_MAX : TH_SC_MIN, num(L, c.in + 1)));
  }
  return ret(L, &c);
}

/* pow: x:pow(n), r:pow(a, n), r:pow(n, a) (n ^ a) */
static int m_pow(lua_State *L) {
  const call c = resolve(L, "tn|nt", 1);
  th_tensor *a, *r;
  if (c.form == 0) {
    a = tensor(L, c.in);
    r = result(L, &c, a->dtype);
    check(L, th_tensor_scalar(r, a, TH_SC_POW, num(L, c.in + 1)));
  } else {
    a = tensor(L, c.in + 1);
    r = result(L, &c, a->dtype);
    check(L, th_tensor_scalar(r, a, TH_SC_TPOW, num(L, c.in)));
  }
  return ret(L, &c);
}

/* clamp: x:clamp(lo, hi), r:clamp(a, lo, hi) */
static int m_clamp(lua_State *L) {
  const call c = resolve(L, "tnn", 1);
  th_tensor *a = tensor(L, c.in), *r;
  const double lo = num(L, c.in + 1), hi = num(L, c.in + 2);
  if (lo > hi)
    return th_lua_argerror(L, c.in + 1, fname_of(L), "min %g is greater than max %g", lo, hi);
  r = result(L, &c, a->dtype);
  check(L, th_tensor_clamp(r, a, lo, hi));
  return ret(L, &c);
}

/* lerp: a:lerp(b, w) is a + w * (b - a); r:lerp(a, b, w) */
static int m_lerp(lua_State *L) {
  const call c = resolve(L, "ttn", 1);
  th_tensor *a = tensor(L, c.in), *b = like(L, c.in + 1, a), *r = result(L, &c, a->dtype);
  check(L, th_tensor_binary(r, a, TH_BI_LERP, b, num(L, c.in + 2)));
  return ret(L, &c);
}

/* addcmul, addcdiv (upvalue: 1 divides): x:addcmul([v,] t1, t2),
   r:addcmul(x, [v,] t1, t2) */
static int m_addc(lua_State *L) {
  const call c = resolve(L, "ttt|tntt", 1);
  const int k = c.form == 1;  /* the value's slot */
  th_tensor *a = tensor(L, c.in), *t1 = like(L, c.in + 1 + k, a), *t2 = like(L, c.in + 2 + k, a);
  th_tensor *r = result(L, &c, a->dtype);
  const double v = k ? num(L, c.in + 1) : 1;
  check(L, op_of(L) ? th_tensor_addcdiv(r, a, v, t1, t2) : th_tensor_addcmul(r, a, v, t1, t2));
  return ret(L, &c);
}

/* exp, log, abs, ...: x:exp() in place, r:exp(a) */
static int m_unary(lua_State *L) {
  const call c = resolve(L, "t", 1);
  th_tensor *a = tensor(L, c.in), *r = result(L, &c, a->dtype);
  check(L, th_tensor_unary(r, a, (th_unary_op)op_of(L)));
  return ret(L, &c);
}

/* eq ne lt le gt ge: a:gt(b) and a:gt(v) return a new ByteTensor;
   r:gt(a, b) writes r, a ByteTensor or a tensor of a's type */
static int m_compare(lua_State *L) {
  const call c = resolve(L, "tt|tn", 0);
  th_tensor *a = tensor(L, c.in), *b = c.form == 0 ? like(L, c.in + 1, a) : NULL, *r;
  if (c.res) {
    r = tensor(L, c.res);
    if (r->dtype != TH_BYTE && r->dtype != a->dtype)
      th_lua_argerror(L, c.res, fname_of(L), "result must be a torch.ByteTensor or a %s, got %s",
                      th_lua_tensor_mt[a->dtype], th_lua_tensor_mt[r->dtype]);
  } else {
    r = th_lua_newtensor(L, TH_BYTE);
  }
  check(L, th_tensor_compare(r, a, (th_cmp_op)op_of(L), b, b ? 0 : num(L, c.in + 1)));
  return ret(L, &c);
}

/* all, any (upvalue: 1 for all): a boolean */
static int m_logical(lua_State *L) {
  int v = 0;
  th_tensor *t;
  strip_nils(L);
  if (match(L, 1, "t") < 0) return bad_args(L, fname_of(L), "", "t");
  t = tensor(L, 1);
  check(L, op_of(L) ? th_tensor_all(t, &v) : th_tensor_any(t, &v));
  lua_pushboolean(L, v);
  return 1;
}

/* --- reductions ------------------------------------------------------------------ */

/* sum prod mean var std norm:
     x:sum()  -> number      x:sum(d)  -> tensor      r:sum(x, d)
     x:std([biased])         x:std(d [, biased])      r:std(x, d [, biased])
     x:norm([p])             x:norm(p, d)             r:norm(x, p, d)      */
static int m_reduce(lua_State *L) {
  const th_reduce_op op = (th_reduce_op)op_of(L);
  const int isvar = op == TH_RED_VAR || op == TH_RED_STD, isnorm = op == TH_RED_NORM;
  const char *sig = isnorm ? "t|tn|tnn" : isvar ? "t|tb|tn|tnb" : "t|tn";
  const call c = resolve(L, sig, 0);
  th_tensor *t = tensor(L, c.in), *r;
  double p = isnorm ? 2 : 0;
  int dimarg = 0;
  if (isnorm) {
    if (c.form >= 1) p = num(L, c.in + 1);
    if (c.form == 2) dimarg = c.in + 2;
  } else if (isvar) {
    if (c.form == 1) p = lua_toboolean(L, c.in + 1);
    if (c.form >= 2) dimarg = c.in + 1;
    if (c.form == 3) p = lua_toboolean(L, c.in + 2);
  } else if (c.form == 1) {
    dimarg = c.in + 1;
  }
  if (dimarg == 0) {
    th_number v;
    check(L, th_tensor_reduce_all(t, op, p, &v));
    push_number(L, t->dtype, &v);
    return 1;
  }
  {
    const int dim = th_lua_checkdim(L, dimarg, t->ndim, 0, fname_of(L));
    r = result(L, &c, t->dtype);
    check(L, th_tensor_reduce_dim(r, t, op, dim, p));
  }
  return ret(L, &c);
}

/* max, min (upvalue: 1 for max): x:max() -> number; x:max(d) -> values,
   indices; results first, each optional as in Torch7's cwrap:
   torch.max(vals, idx, x, d), torch.max(vals, x, d), torch.max(idx, x, d),
   and the same as methods (vals:max(x, d): optim's adamax). With two
   tensors, the first is the values result when it has x's type, else the
   indices (a LongTensor). */
static int m_maxmin(lua_State *L) {
  const int is_max = op_of(L);
  const char *fname = fname_of(L);
  th_tensor *t, *vals = NULL, *idx = NULL;
  int form, dim, src;
  strip_nils(L);
  form = match(L, 1, "t|tn|ttn|tttn");
  if (form < 0) return bad_args(L, fname, "[values,] [indices,] ", "t|tn");
  if (form == 0) {
    th_number v;
    t = tensor(L, 1);
    check(L, th_tensor_maxmin_all(t, is_max, &v));
    push_number(L, t->dtype, &v);
    return 1;
  }
  src = form;  /* the input follows the results given */
  t = tensor(L, src);
  dim = th_lua_checkdim(L, src + 1, t->ndim, 0, fname);
  if (form == 3) {
    vals = th_lua_checktensortype(L, 1, t->dtype, fname);
    idx = th_lua_checktensortype(L, 2, TH_LONG, fname);
  } else if (form == 2) {
    if (th_lua_totensor(L, 1)->dtype == t->dtype) vals = th_lua_checkresult(L, 1, t->dtype, fname);
    else idx = th_lua_checktensortype(L, 1, TH_LONG, fname);
  }
  lua_settop(L, src + 1);
  if (vals != NULL) lua_pushvalue(L, 1);
  else vals = th_lua_newtensor(L, t->dtype);
  if (idx != NULL) lua_pushvalue(L, form == 3 ? 2 : 1);
  else idx = th_lua_newtensor(L, TH_LONG);
  check(L, th_tensor_maxmin_dim(vals, idx, t, dim, is_max));
  return 2;
}

/* cumsum, cumprod (upvalue: 1 for prod): x:cumsum([d]) -> new, r:cumsum(x [, d]) */
static int m_cumulate(lua_State *L) {
  const call c = resolve(L, "t|tn", 0);
  th_tensor *t = tensor(L, c.in), *r;
  const int dim = c.form == 1 ? th_lua_checkdim(L, c.in + 1, t->ndim, 0, fname_of(L)) : 0;
  r = result(L, &c, t->dtype);
  check(L, op_of(L) ? th_tensor_cumprod(r, t, dim) : th_tensor_cumsum(r, t, dim));
  return ret(L, &c);
}

/* dot: a number */
static int m_dot(lua_State *L) {
  th_tensor *a, *b;
  th_number v;
  strip_nils(L);
  if (match(L, 1, "tt") < 0) return bad_args(L, fname_of(L), "", "tt");
  a = tensor(L, 1);
  b = like(L, 2, a);
  check(L, th_tensor_dot(a, b, &v));
  push_number(L, a->dtype, &v);
  return 1;
}

/* dist: a:dist(b [, p]), the p-norm (default 2) of a - b */
static int m_dist(lua_State *L) {
  th_tensor *a, *b;
  double v;
  int form;
  strip_nils(L);
  if ((form = match(L, 1, "tt|ttn")) < 0) return bad_args(L, fname_of(L), "", "tt|ttn");
  a = tensor(L, 1);
  b = like(L, 2, a);
  check(L, th_tensor_dist(a, b, form == 1 ? num(L, 3) : 2, &v));
  lua_pushnumber(L, v);
  return 1;
}

/* --- matrix products ---------------------------------------------------------- */

enum { BL_ADDMM, BL_ADDMV, BL_ADDR, BL_BADDBMM, BL_ADDBMM };

static int blas(int op, th_tensor *r, double beta, const th_tensor *m, double alpha,
                const th_tensor *a, const th_tensor *b) {
  switch (op) {
    case BL_ADDMM: return th_tensor_addmm(r, beta, m, alpha, a, b);
    case BL_ADDMV: return th_tensor_addmv(r, beta, m, alpha, a, b);
    case BL_ADDR: return th_tensor_addr(r, beta, m, alpha, a, b);
    case BL_BADDBMM: return th_tensor_baddbmm(r, beta, m, alpha, a, b);
    default: return th_tensor_addbmm(r, beta, m, alpha, a, b);
  }
}

/* mm, mv, ger, bmm (upvalue: the op): r:mm(a, b), torch.mm([r,] a, b) */
static int m_product(lua_State *L) {
  const call c = resolve(L, "tt", 0);
  th_tensor *a = tensor(L, c.in), *b = like(L, c.in + 1, a), *r = result(L, &c, a->dtype);
  check(L, blas(op_of(L), r, 0, NULL, 1, a, b));
  return ret(L, &c);
}

/* addmm, addmv, addr, baddbmm, addbmm: [res,] [beta,] [M,] [alpha,] A, B.
   Numbers before M are beta, after it alpha; without M, one number is
   alpha and two are beta, alpha. A method's self is the result and, when
   no M is given, also M (x:addmm(A, B) adds into x); a function's result
   is new unless two tensors precede A and B (the first is then the result). */
static int m_addmm(lua_State *L) {
  const char *fname = fname_of(L);
  const char *usage = "[result,] [beta,] [M,] [alpha,] tensor, tensor";
  int top, first, res, i, midx = 0, nbefore = 0, nafter = 0, ntensors = 0;
  double before[3], after[3], beta = 1, alpha = 1;
  th_tensor *a, *b, *r;
  strip_nils(L);
  top = lua_gettop(L);
  first = functional(L) ? 1 : 2;
  res = functional(L) ? 0 : 1;
  if (top < first + 1 || !th_lua_totensor(L, top) || !th_lua_totensor(L, top - 1))
    return bad_args(L, fname, usage, "");
  for (i = first; i <= top - 2; i++) {
    if (th_lua_totensor(L, i)) ntensors++;
    else if (lua_type(L, i) != LUA_TNUMBER) return bad_args(L, fname, usage, "");
  }
  if (functional(L) && ntensors == 2 && th_lua_totensor(L, first)) {
    res = first++;
    ntensors--;
  }
  if (ntensors > 1) return bad_args(L, fname, usage, "");
  for (i = first; i <= top - 2; i++) {
    if (th_lua_totensor(L, i)) midx = i;
    else if (midx == 0 && nbefore < 3) before[nbefore++] = num(L, i);
    else if (midx != 0 && nafter < 3) after[nafter++] = num(L, i);
    else return bad_args(L, fname, usage, "");
  }
  if (midx) {
    if (nbefore > 1 || nafter > 1) return bad_args(L, fname, usage, "");
    if (nbefore) beta = before[0];
    if (nafter) alpha = after[0];
  } else {
    if (nbefore > 2) return bad_args(L, fname, usage, "");
    if (nbefore == 1) alpha = before[0];
    if (nbefore == 2) beta = before[0], alpha = before[1];
    if (res == 0) return luaL_error(L, "%s: the tensor to add (M) is missing", fname);
  }
  a = tensor(L, top - 1);
  b = tensor(L, top);
  /* see result(); without M the result is also M, an input */
  r = !res ? th_lua_newtensor(L, a->dtype)
      : midx ? th_lua_checkresult(L, res, a->dtype, fname) : th_lua_checktensortype(L, res, a->dtype, fname);
  check(L, blas(op_of(L), r, beta, midx ? tensor(L, midx) : NULL, alpha, a, b));
  if (res) lua_pushvalue(L, res);
  return 1;
}

/* --- convolutions ------------------------------------------------------------ */

/* conv2, xcorr2, conv3, xcorr3 (upvalue: 2 * dims + flip): [res,] x, k [, 'V' | 'F'];
   the method is the function, as Torch7 (x:conv2(k) returns a new tensor) */
static int m_conv(lua_State *L) {
  const int nd = op_of(L) / 2, flip = op_of(L) % 2;
  int a = 1, full = 0, top;
  th_tensor *x, *k, *r;
  strip_nils(L);
  top = lua_gettop(L);
  if (top >= 3 && th_lua_totensor(L, 3) != NULL) a = 2;
  x = tensor(L, a);
  k = tensor(L, a + 1);
  if (top >= a + 2) {
    const char *mode = lua_type(L, a + 2) == LUA_TSTRING ? lua_tostring(L, a + 2) : NULL;
    if (mode == NULL || (strcmp(mode, "V") != 0 && strcmp(mode, "F") != 0))
      return th_lua_argerror(L, a + 2, fname_of(L), "'V' or 'F' expected, got %s",
                             mode != NULL ? mode : th_lua_typename(L, a + 2));
    full = mode[0] == 'F';
  }
  if (top > a + 2) return th_lua_argerror(L, a + 3, fname_of(L), "no more arguments expected, got %s",
                                          th_lua_typename(L, a + 3));
  if (a == 2) {
    r = th_lua_checktensortype(L, 1, x->dtype, fname_of(L));
    lua_pushvalue(L, 1);
  } else {
    r = th_lua_newtensor(L, x->dtype);
  }
  check(L, th_tensor_conv(r, x, k, nd, full, flip));
  return 1;
}

/* --- fills (methods; lua/torch/math.lua makes torch.zeros etc.) --------------- */

/* x:zeros(sizes), x:ones(sizes) (upvalue: the fill value) */
static int m_fillsized(lua_State *L) {
  int64_t size[TH_MAXDIM];
  th_tensor *t = tensor(L, 1);
  const int n = th_lua_checksizes_only(L, 2, size, fname_of(L));
  check(L, th_tensor_resize(t, n, size));
  check(L, th_tensor_fill(t, op_of(L)));
  lua_settop(L, 1);
  return 1;
}

static double checknum(lua_State *L, int idx, const char *what) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    th_lua_argerror(L, idx, fname_of(L), "%s must be a number, got %s", what, th_lua_typename(L, idx));
  return num(L, idx);
}

/* x:range(a, b [, step]): a, a + step, ... up to b */
static int m_range(lua_State *L) {
  th_tensor *t = tensor(L, 1);
  const double a = checknum(L, 2, "lower bound"), b = checknum(L, 3, "upper bound");
  const double step = lua_isnoneornil(L, 4) ? 1 : checknum(L, 4, "step");
  check(L, th_tensor_range(t, a, b, step));
  lua_settop(L, 1);
  return 1;
}

/* x:linspace(a, b [, n = 100]) */
static int m_linspace(lua_State *L) {
  th_tensor *t = tensor(L, 1);
  const double a = checknum(L, 2, "start"), b = checknum(L, 3, "end");
  const int64_t n = lua_isnoneornil(L, 4) ? 100 : th_lua_checkint(L, 4, fname_of(L), "number of points");
  check(L, th_tensor_linspace(t, a, b, n));
  lua_settop(L, 1);
  return 1;
}

/* x:eye(n [, m = n]) */
static int m_eye(lua_State *L) {
  th_tensor *t = tensor(L, 1);
  const int64_t n = th_lua_checkint(L, 2, fname_of(L), "size");
  const int64_t m = lua_isnoneornil(L, 3) ? n : th_lua_checkint(L, 3, fname_of(L), "size");
  check(L, th_tensor_eye(t, n, m));
  lua_settop(L, 1);
  return 1;
}

/* --- registration ---------------------------------------------------------------- */

/* one C function as method (into 'methods') and, unless functions == 0, as function */
static void reg(lua_State *L, int methods, int functions, const char *name, lua_CFunction f,
                int op) {
  int fn;
  for (fn = 0; fn <= 1; fn++) {
    if (fn && functions == 0) break;
    lua_pushboolean(L, fn);
    lua_pushinteger(L, op);
    lua_pushstring(L, name);
    lua_pushcclosure(L, f, 3);
    lua_setfield(L, fn ? functions : methods, name);
  }
}

typedef struct mathreg {
  const char *name;
  lua_CFunction f;
  int op;
} mathreg;

static const mathreg math_functions[] = {
    {"add", m_add, 1}, {"csub", m_add, -1},
    {"mul", m_scalar, TH_SC_MUL}, {"div", m_scalar, TH_SC_DIV},
    {"fmod", m_scalar, TH_SC_FMOD}, {"remainder", m_scalar, TH_SC_REMAINDER},
    {"cmul", m_binary, TH_BI_MUL}, {"cdiv", m_binary, TH_BI_DIV}, {"cpow", m_binary, TH_BI_POW},
    {"cfmod", m_binary, TH_BI_FMOD}, {"cremainder", m_binary, TH_BI_REMAINDER},
    {"cmax", m_cmaxmin, 1}, {"cmin", m_cmaxmin, 0},
    {"bitand", m_scalar, TH_SC_BITAND}, {"bitor", m_scalar, TH_SC_BITOR},
    {"bitxor", m_scalar, TH_SC_BITXOR}, {"lshift", m_scalar, TH_SC_LSHIFT},
    {"rshift", m_scalar, TH_SC_RSHIFT}, {"cbitand", m_binary, TH_BI_BITAND},
    {"cbitor", m_binary, TH_BI_BITOR}, {"cbitxor", m_binary, TH_BI_BITXOR},
    {"clshift", m_binary, TH_BI_LSHIFT}, {"crshift", m_binary, TH_BI_RSHIFT},
    {"pow", m_pow, 0}, {"clamp", m_clamp, 0}, {"lerp", m_lerp, 0},
    {"addcmul", m_addc, 0}, {"addcdiv", m_addc, 1},
    {"all", m_logical, 1}, {"any", m_logical, 0},
    {"sum", m_reduce, TH_RED_SUM}, {"prod", m_reduce, TH_RED_PROD},
    {"mean", m_reduce, TH_RED_MEAN}, {"var", m_reduce, TH_RED_VAR},
    {"std", m_reduce, TH_RED_STD}, {"norm", m_reduce, TH_RED_NORM},
    {"max", m_maxmin, 1}, {"min", m_maxmin, 0},
    {"cumsum", m_cumulate, 0}, {"cumprod", m_cumulate, 1},
    {"dot", m_dot, 0}, {"dist", m_dist, 0},
    {"mm", m_product, BL_ADDMM}, {"mv", m_product, BL_ADDMV}, {"ger", m_product, BL_ADDR},
    {"bmm", m_product, BL_BADDBMM},
    {"addmm", m_addmm, BL_ADDMM}, {"addmv", m_addmm, BL_ADDMV}, {"addr", m_addmm, BL_ADDR},
    {"baddbmm", m_addmm, BL_BADDBMM}, {"addbmm", m_addmm, BL_ADDBMM},
    {"conv2", m_conv, 2 * 2 + 1}, {"xcorr2", m_conv, 2 * 2}, {"conv3", m_conv, 2 * 3 + 1},
    {"xcorr3", m_conv, 2 * 3},
    {NULL, NULL, 0}};

static const mathreg math_fills[] = {
    {"zeros", m_fillsized, 0}, {"ones", m_fillsized, 1}, {"range", m_range, 0},
    {"linspace", m_linspace, 0}, {"eye", m_eye, 0}, {NULL, NULL, 0}};

void th_lua_open_math(lua_State *L, int methods) {
  const mathreg *r;
  int functions, i;
  lua_newtable(L);
  functions = lua_gettop(L);
  for (r = math_functions; r->name != NULL; r++) reg(L, methods, functions, r->name, r->f, r->op);
  for (i = 0; i < TH_NUNARY; i++) reg(L, methods, functions, th_unary_name[i], m_unary, i);
  for (i = 0; i < TH_NCMP; i++) reg(L, methods, functions, th_cmp_name[i], m_compare, i);
  for (r = math_fills; r->name != NULL; r++) reg(L, methods, 0, r->name, r->f, r->op);
  lua_setfield(L, methods, "__math");
}
