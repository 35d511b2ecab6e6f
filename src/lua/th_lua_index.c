/*
** th_lua_index.c: bindings for index/indexCopy/indexAdd/indexFill,
** gather/scatter, the masked operations, nonzero, cat, sort, topk,
** kthvalue and median (the C side is src/tensor/th_index.h).
** Each function serves both Torch7 forms: the method (t:index(dim, idx))
** and the one with a leading result (res:index(src, dim, idx)), told apart
** by whether the argument after self is a tensor. lua/torch/index.lua
** exposes the same functions as torch.cat, torch.sort, ...
** Index tensors stay 1-based: the core checks and converts their entries.
*/
#include "th_lua.h"
#include "../tensor/th_error.h"
#include "../tensor/th_index.h"

static th_tensor *checklong(lua_State *L, int arg, const char *fname) {
  return th_lua_checktensortype(L, arg, TH_LONG, fname);
}

static th_tensor *checkmask(lua_State *L, int arg, const char *fname) {
  return th_lua_checktensortype(L, arg, TH_BYTE, fname);
}

/* a tensor argument of the same type as 't' */
static th_tensor *checksame(lua_State *L, int arg, const th_tensor *t, const char *fname) {
  return th_lua_checktensortype(L, arg, t->dtype, fname);
}

static double checkvalue(lua_State *L, int arg, const char *fname) {
  int isnum;
  lua_Number v = lua_tonumberx(L, arg, &isnum);
  if (!isnum) th_lua_argerror(L, arg, fname, "number expected, got %s", th_lua_typename(L, arg));
  return (double)v;
}

/* self's result for 'res:f(src, ...)' (pushed), or a new tensor of src's type */
static th_tensor *result_for(lua_State *L, int res_form, th_dtype dt, const char *fname) {
  th_tensor *r;
  if (!res_form) return th_lua_newtensor(L, dt);
  r = th_lua_checktensor(L, 1, fname);
  if (r->dtype != dt)
    th_lua_argerror(L, 1, fname, "result must be a %s, got %s", th_lua_tensor_mt[dt],
                    th_lua_tensor_mt[r->dtype]);
  lua_pushvalue(L, 1);
  return r;
}

/* --- index, indexCopy, indexAdd, indexFill ------------------------------ */

/* [res] t:index(dim, idx) | res:index(src, dim, idx) */
static int l_index(lua_State *L) {
  th_tensor *self = th_lua_checktensor(L, 1, "index");
  int res_form = th_lua_totensor(L, 2) != NULL, a = res_form ? 3 : 2;
  th_tensor *src = res_form ? th_lua_checktensor(L, 2, "index") : self;
  int dim = th_lua_checkdim(L, a, src->ndim, 0, "index");
  th_tensor *idx = checklong(L, a + 1, "index");
  th_tensor *r = result_for(L, res_form, src->dtype, "index");
  th_lua_check(L, th_tensor_index(r, src, dim, idx), "index");
  return 1;
}

static int index_update(lua_State *L, const char *fname, int op) {
  th_tensor *t = th_lua_checktensor(L, 1, fname);
  int dim = th_lua_checkdim(L, 2, t->ndim, 0, fname);
  th_tensor *idx = checklong(L, 3, fname);
  int rc;
  if (op == 'f') {
    rc = th_tensor_index_fill(t, dim, idx, checkvalue(L, 4, fname));
  } else {
    th_tensor *src = checksame(L, 4, t, fname);
    rc = op == 'c' ? th_tensor_index_copy(t, dim, idx, src) : th_tensor_index_add(t, dim, idx, src);
  }
  th_lua_check(L, rc, fname);
  lua_settop(L, 1);
  return 1;
}

static int l_indexcopy(lua_State *L) { return index_update(L, "indexCopy", 'c'); }
static int l_indexadd(lua_State *L) { return index_update(L, "indexAdd", 'a'); }
static int l_indexfill(lua_State *L) { return index_update(L, "indexFill", 'f'); }

/* --- gather, scatter ---------------------------------------------------- */

/* [res] t:gather(dim, idx) | res:gather(src, dim, idx) */
static int l_gather(lua_State *L) {
  th_tensor *self = th_lua_checktensor(L, 1, "gather");
  int res_form = th_lua_totensor(L, 2) != NULL, a = res_form ? 3 : 2;
  th_tensor *src = res_form ? th_lua_checktensor(L, 2, "gather") : self;
  int dim = th_lua_checkdim(L, a, src->ndim, 0, "gather");
  th_tensor *idx = checklong(L, a + 1, "gather");
  th_tensor *r = result_for(L, res_form, src->dtype, "gather");
  th_lua_check(L, th_tensor_gather(r, src, dim, idx), "gather");
  return 1;
}

/* t:scatter(dim, idx, src | value) */
static int l_scatter(lua_State *L) {
  th_tensor *t = th_lua_checktensor(L, 1, "scatter");
  int dim = th_lua_checkdim(L, 2, t->ndim, 0, "scatter");
  th_tensor *idx = checklong(L, 3, "scatter");
  int rc;
  if (th_lua_totensor(L, 4) != NULL)
    rc = th_tensor_scatter(t, dim, idx, checksame(L, 4, t, "scatter"), 0.0);
  else if (lua_type(L, 4) == LUA_TNUMBER)
    rc = th_tensor_scatter(t, dim, idx, NULL, lua_tonumber(L, 4));
  else
    return th_lua_argerror(L, 4, "scatter", "tensor or number expected, got %s", th_lua_typename(L, 4));
  th_lua_check(L, rc, "scatter");
  lua_settop(L, 1);
  return 1;
}

/* --- masks, nonzero ----------------------------------------------------- */

static int l_maskedfill(lua_State *L) {
  th_tensor *t = th_lua_checktensor(L, 1, "maskedFill");
  th_tensor *mask = checkmask(L, 2, "maskedFill");
  th_lua_check(L, th_tensor_masked_fill(t, mask, checkvalue(L, 3, "maskedFill")), "maskedFill");
  lua_settop(L, 1);
  return 1;
}

static int l_maskedcopy(lua_State *L) {
  th_tensor *t = th_lua_checktensor(L, 1, "maskedCopy");
  th_tensor *mask = checkmask(L, 2, "maskedCopy");
  th_tensor *src = checksame(L, 3, t, "maskedCopy");
  th_lua_check(L, th_tensor_masked_copy(t, mask, src), "maskedCopy");
  lua_settop(L, 1);
  return 1;
}

/* [res] t:maskedSelect(mask) | res:maskedSelect(src, mask) */
/* Torch7 had no size-0 dimensions: a result without elements had no
   dimension at all (x[mask] selecting nothing, nonzero finding nothing) */
static void collapse_empty(th_tensor *r) {
  if (r->ndim > 0 && th_tensor_numel(r) == 0) (void)th_tensor_set(r, r->storage, 0, 0, NULL, NULL);
}

static int l_maskedselect(lua_State *L) {
  th_tensor *self = th_lua_checktensor(L, 1, "maskedSelect");
  int res_form = th_lua_totensor(L, 2) != NULL && th_lua_totensor(L, 3) != NULL;
  th_tensor *src = res_form ? th_lua_checktensor(L, 2, "maskedSelect") : self;
  th_tensor *mask = checkmask(L, res_form ? 3 : 2, "maskedSelect");
  th_tensor *r = result_for(L, res_form, src->dtype, "maskedSelect");
  th_lua_check(L, th_tensor_masked_select(r, src, mask), "maskedSelect");
  collapse_empty(r);
  return 1;
}

/* [res] t:nonzero() | res:nonzero(src) (res a LongTensor) */
static int l_nonzero(lua_State *L) {
  th_tensor *self = th_lua_checktensor(L, 1, "nonzero");
  int res_form = th_lua_totensor(L, 2) != NULL;
  th_tensor *src = res_form ? th_lua_checktensor(L, 2, "nonzero") : self;
  th_tensor *r = result_for(L, res_form, TH_LONG, "nonzero");
  th_lua_check(L, th_tensor_nonzero(r, src), "nonzero");
  collapse_empty(r);
  return 1;
}

/* --- cat ---------------------------------------------------------------- */

/* torch.cat([res,] x1, x2 [, dim]) | torch.cat([res,] {x1, x2, ...} [, dim]) */
static int l_cat(lua_State *L) {
  th_tensor *r = NULL;
  const th_tensor **ts;
  int targ, dimarg, n, i, maxdim = 0, dim = -1, is_table = 0;
  if (lua_istable(L, 1) && th_lua_totensor(L, 1) == NULL) {
    targ = 1, dimarg = 2, is_table = 1;
  } else if (th_lua_totensor(L, 1) != NULL && lua_istable(L, 2) && th_lua_totensor(L, 2) == NULL) {
    r = th_lua_checktensor(L, 1, "cat");
    targ = 2, dimarg = 3, is_table = 1;
  } else if (th_lua_totensor(L, 1) != NULL && th_lua_totensor(L, 2) != NULL) {
    int three = th_lua_totensor(L, 3) != NULL;
    if (three) r = th_lua_checktensor(L, 1, "cat");
    targ = three ? 2 : 1, dimarg = three ? 4 : 3;
  } else {
    return th_lua_argerror(L, 1, "cat", "two tensors or a table of tensors expected, got %s and %s",
                           th_lua_typename(L, 1), th_lua_typename(L, 2));
  }
  lua_settop(L, dimarg);  /* whatever is pushed below lands after the arguments */
  n = is_table ? (int)luaL_len(L, targ) : 2;
  if (n <= 0) return th_lua_argerror(L, targ, "cat", "at least one tensor expected, got an empty table");
  /* scratch owned by the GC, so an error below leaks nothing */
  ts = lua_newuserdatauv(L, sizeof *ts * (size_t)n, 0);
  for (i = 0; i < n; i++) {
    th_tensor *t;
    if (!is_table) {
      ts[i] = th_lua_checktensor(L, targ + i, "cat");
      continue;
    }
    lua_geti(L, targ, i + 1);
    t = th_lua_totensor(L, -1);
    if (t == NULL || (t->flags & TH_TENSOR_FREED))
      return th_lua_argerror(L, targ, "cat", "tensor expected at position %d of the table, got %s",
                             i + 1, t ? "a freed tensor" : th_lua_typename(L, -1));
    {
      char what[64];
      snprintf(what, sizeof what, "tensor at position %d of the table", i + 1);
      if (th_tensor_check_extent(t, what) != TH_OK) return th_lua_error(L, "cat");
    }
    ts[i] = t;  /* the table keeps it alive */
    lua_pop(L, 1);
  }
  for (i = 0; i < n; i++) {
    const th_tensor *t = ts[i];
    if (t->dtype != ts[0]->dtype)
      return th_lua_argerror(L, targ, "cat", "tensor %d is a %s, tensor 1 a %s (all must have one type)",
                             i + 1, th_lua_tensor_mt[t->dtype], th_lua_tensor_mt[ts[0]->dtype]);
    if (t->ndim > maxdim && !(t->ndim == 1 && t->size[0] == 0)) maxdim = t->ndim;
  }
  if (!lua_isnoneornil(L, dimarg)) {
    int64_t v = th_lua_checkint(L, dimarg, "cat", "dimension");
    /* past the inputs' last dimension: new dimensions of size 1 (Torch7) */
    if (v > TH_MAXDIM)
      return th_lua_argerror(L, dimarg, "cat", "dimension %lld out of range (a tensor has at most %d dimensions)",
                             (long long)v, TH_MAXDIM);
    if (v > maxdim && maxdim > 0) dim = (int)v - 1;
    else if (v != -1 && maxdim > 0) dim = th_lua_checkdim(L, dimarg, maxdim, 0, "cat");
  }
  if (r == NULL) {
    r = th_lua_newtensor(L, ts[0]->dtype);
  } else {
    if (r->dtype != ts[0]->dtype)
      return th_lua_argerror(L, 1, "cat", "result must be a %s, got %s", th_lua_tensor_mt[ts[0]->dtype],
                             th_lua_tensor_mt[r->dtype]);
    lua_pushvalue(L, 1);
  }
  th_lua_check(L, th_tensor_cat(r, n, ts, dim), "cat");
  return 1;
}

/* --- sort, topk, kthvalue, median --------------------------------------- */

/* Leading tensors [resval] [resind] x, then at most 'nparams' more
   arguments. Either result may be left out, as in Torch7's cwrap: with two
   tensors the first is the values result when it has x's type, else the
   indices (a LongTensor). Returns the argument index just after x; results
   not given are created by push_results once every argument has been read. */
static int sort_args(lua_State *L, const char *fname, int nparams, th_tensor **vals,
                     th_tensor **inds, th_tensor **x) {
  int nt = 0;
  while (nt < 3 && th_lua_totensor(L, nt + 1) != NULL) nt++;
  *x = th_lua_checktensor(L, nt > 0 ? nt : 1, fname);
  *vals = *inds = NULL;
  if (nt == 3) {
    *vals = checksame(L, 1, *x, fname);
    *inds = checklong(L, 2, fname);
  } else if (nt == 2) {
    if (th_lua_totensor(L, 1)->dtype == (*x)->dtype) *vals = checksame(L, 1, *x, fname);
    else *inds = checklong(L, 1, fname);
  }
  lua_settop(L, nt + nparams);  /* pushes land after the arguments */
  return nt + 1;
}

/* pushes the two results: the given ones (at 1, then 2 when both were
   given), new ones for the others */
static void push_results(lua_State *L, th_tensor **vals, th_tensor **inds, const th_tensor *x) {
  const int both = *vals != NULL && *inds != NULL;
  if (*vals != NULL) lua_pushvalue(L, 1);
  else *vals = th_lua_newtensor(L, x->dtype);
  if (*inds != NULL) lua_pushvalue(L, both ? 2 : 1);
  else *inds = th_lua_newtensor(L, TH_LONG);
}

/* the last dimension, for an omitted dim argument */
static int lastdim(lua_State *L, int arg, const th_tensor *x, const char *fname) {
  if (x->ndim == 0) return th_lua_argerror(L, arg, fname, "tensor is empty");
  return x->ndim - 1;
}

/* optional dimension at arg (default: the last) */
static int optdim(lua_State *L, int arg, const th_tensor *x, const char *fname) {
  if (lua_isnoneornil(L, arg)) return lastdim(L, arg, x, fname);
  return th_lua_checkdim(L, arg, x->ndim, 0, fname);
}

static int optbool(lua_State *L, int arg, const char *fname, const char *what) {
  if (lua_isnoneornil(L, arg)) return 0;
  if (!lua_isboolean(L, arg))
    th_lua_argerror(L, arg, fname, "%s must be a boolean, got %s", what, th_lua_typename(L, arg));
  return lua_toboolean(L, arg);
}

/* [resval, resind] torch.sort([resval, resind,] x [, dim] [, descending]) */
static int l_sort(lua_State *L) {
  th_tensor *vals, *inds, *x;
  int a = sort_args(L, "sort", 2, &vals, &inds, &x), dim = 0, desc;
  if (lua_isboolean(L, a)) {  /* x:sort(true): descending along the last dimension */
    desc = lua_toboolean(L, a);
    if (x->ndim > 0) dim = x->ndim - 1;
  } else {
    if (x->ndim > 0 || !lua_isnoneornil(L, a)) dim = optdim(L, a, x, "sort");
    desc = optbool(L, a + 1, "sort", "descending");
  }
  push_results(L, &vals, &inds, x);
  th_lua_check(L, th_tensor_sort(vals, inds, x, dim, desc), "sort");
  return 2;
}

/* [resval, resind] torch.topk([resval, resind,] x [, k=1] [, dim] [, dir] [, sort]) */
static int l_topk(lua_State *L) {
  th_tensor *vals, *inds, *x;
  int a = sort_args(L, "topk", 4, &vals, &inds, &x), dim, largest;
  /* k defaults to 1, as in Torch7 */
  int64_t k = lua_isnoneornil(L, a) ? 1 : th_lua_checkint(L, a, "topk", "k");
  if (lua_isboolean(L, a + 1)) {  /* x:topk(k, dir [, sort]): dim omitted */
    dim = lastdim(L, a + 1, x, "topk");
    largest = lua_toboolean(L, a + 1);
    (void)optbool(L, a + 2, "topk", "sort");
  } else {
    dim = optdim(L, a + 1, x, "topk");
    largest = optbool(L, a + 2, "topk", "dir");
    (void)optbool(L, a + 3, "topk", "sort");  /* results always come sorted */
  }
  push_results(L, &vals, &inds, x);
  th_lua_check(L, th_tensor_topk(vals, inds, x, k, dim, largest), "topk");
  return 2;
}

/* [resval, resind] torch.kthvalue([resval, resind,] x, k [, dim]) */
static int l_kthvalue(lua_State *L) {
  th_tensor *vals, *inds, *x;
  int a = sort_args(L, "kthvalue", 2, &vals, &inds, &x);
  int64_t k = th_lua_checkint(L, a, "kthvalue", "k");
  int dim = optdim(L, a + 1, x, "kthvalue");
  push_results(L, &vals, &inds, x);
  th_lua_check(L, th_tensor_kthvalue(vals, inds, x, k, dim), "kthvalue");
  return 2;
}

/* [resval, resind] torch.median([resval, resind,] x [, dim]) */
static int l_median(lua_State *L) {
  th_tensor *vals, *inds, *x;
  int a = sort_args(L, "median", 1, &vals, &inds, &x);
  int dim = optdim(L, a, x, "median");
  push_results(L, &vals, &inds, x);
  th_lua_check(L, th_tensor_median(vals, inds, x, dim), "median");
  return 2;
}

static const luaL_Reg index_methods[] = {
    {"index", l_index}, {"indexCopy", l_indexcopy}, {"indexAdd", l_indexadd},
    {"indexFill", l_indexfill}, {"gather", l_gather}, {"scatter", l_scatter},
    {"maskedFill", l_maskedfill}, {"maskedCopy", l_maskedcopy}, {"maskedSelect", l_maskedselect},
    {"nonzero", l_nonzero}, {"cat", l_cat}, {"sort", l_sort}, {"topk", l_topk},
    {"kthvalue", l_kthvalue}, {"median", l_median}, {NULL, NULL}};

void th_lua_open_index(lua_State *L, int methods) {
  th_lua_register(L, methods, index_methods);
}
