/*
** th_lua_tensor.c: the tensor userdata: construction, life cycle,
** indexing t[i] / t[{...}], and the view and shape methods.
** The th_tensor lives inside its userdata, so torch.pointer(t) is stable
** and a tensor's identity is its Lua object (the optimizer relies on it).
*/
#include <string.h>
#include "th_lua.h"
#include "../tensor/th_error.h"

/* --- life cycle --------------------------------------------------------- */

static int t_gc(lua_State *L) {
  th_tensor *t = lua_touserdata(L, 1);
  if (t != NULL) th_tensor_clear(t);  /* idempotent: also safe after free() */
  return 0;
}

static int t_free(lua_State *L) {
  th_tensor *t = th_lua_totensor(L, 1);
  if (t == NULL) return th_lua_argerror(L, 1, "free", "tensor expected, got %s", th_lua_typename(L, 1));
  /* a module's output (local y <close> = net:forward(x)), gradInput,
     parameter or buffer: freeing it would break the module (and an
     optimized net's plan) at its next use, far from this line */
  if (!(t->flags & TH_TENSOR_FREED) && th_lua_is_module_owned(L, 1))
    return luaL_error(L, "free: this tensor belongs to a module (its output, gradInput, a parameter or a "
                         "buffer) and lives as long as the module; do not free it or close it with <close>: "
                         "clone() it for a copy of your own");
  th_tensor_clear(t);
  t->flags |= TH_TENSOR_FREED;
  return 0;
}

static int t_isfreed(lua_State *L) {
  th_tensor *t = th_lua_totensor(L, 1);
  lua_pushboolean(L, t != NULL && (t->flags & TH_TENSOR_FREED));
  return 1;
}

/* --- construction ------------------------------------------------------- */

/* nested-table shape: walks first elements down, then checks every row */
static int table_shape(lua_State *L, int idx, int64_t *size) {
  int n = 0;
  lua_pushvalue(L, idx);
  while (lua_istable(L, -1)) {
    if (n >= TH_MAXDIM) luaL_error(L, "torch.Tensor: table nested deeper than %d levels", TH_MAXDIM);
    size[n++] = (int64_t)luaL_len(L, -1);
    if (size[n - 1] == 0) break;
    lua_geti(L, -1, 1);
    lua_remove(L, -2);
  }
  lua_pop(L, 1);
  return n;
}

static void table_fill(lua_State *L, int idx, th_tensor *t, int d, const int64_t *size,
                       int ndim, int64_t *pos) {
  int64_t i, n = (int64_t)luaL_len(L, idx);
  if (n != size[d])
    luaL_error(L, "torch.Tensor: table is not rectangular (dimension %d has %I and %I entries)",
               d + 1, (lua_Integer)size[d], (lua_Integer)n);
  for (i = 1; i <= n; i++) {
    lua_geti(L, idx, i);
    if (d == ndim - 1) {
      if (!lua_isnumber(L, -1) && !lua_isboolean(L, -1))
        luaL_error(L, "torch.Tensor: table holds a %s where a number was expected", luaL_typename(L, -1));
      th_lua_setelement(L, lua_gettop(L), t->dtype, th_tensor_data(t), (*pos)++, "torch.Tensor");
    } else {
      if (!lua_istable(L, -1))
        luaL_error(L, "torch.Tensor: table is not rectangular (a %s where a table was expected)",
                   luaL_typename(L, -1));
      table_fill(L, lua_gettop(L), t, d + 1, size, ndim, pos);
    }
    lua_pop(L, 1);
  }
}

/* reads sizes (and strides) after a storage and offset, Torch7 style:
   a LongStorage of sizes [+ one of strides], or numbers in size,stride pairs */
static int read_size_stride(lua_State *L, int arg, int64_t *size, int64_t *stride, int *has_stride,
                            const char *fname) {
  int n = 0;
  *has_stride = 0;
  if (lua_isnoneornil(L, arg)) return -1;
  if (th_lua_tostoragebox(L, arg) != NULL || lua_istable(L, arg)) {
    n = th_lua_checksizes(L, arg, size, fname);
    if (!lua_isnoneornil(L, arg + 1)) {
      int m = th_lua_checksizes(L, arg + 1, stride, fname);
      if (m != n) th_lua_argerror(L, arg + 1, fname, "%d strides for %d sizes", m, n);
      *has_stride = 1;
    }
    return n;
  }
  while (!lua_isnoneornil(L, arg + 2 * n)) {
    if (n >= TH_MAXDIM) th_lua_argerror(L, arg + 2 * n, fname, "at most %d dimensions", TH_MAXDIM);
    size[n] = th_lua_checksize(L, arg + 2 * n, fname, "size");
    if (!lua_isnoneornil(L, arg + 2 * n + 1)) {
      stride[n] = th_lua_checkint(L, arg + 2 * n + 1, fname, "stride");
      *has_stride = 1;
    } else {
      stride[n] = -1;
    }
    n++;
  }
  if (*has_stride) {  /* fill in contiguous strides where omitted */
    int64_t c = 1;
    int d;
    for (d = n - 1; d >= 0; d--) {
      if (stride[d] < 0) stride[d] = c;
      c *= size[d] > 0 ? size[d] : 1;
    }
  }
  return n;
}

/* t:set() / t:set(tensor) / t:set(storage[, offset[, sizes[, strides]]]), from arg 'a' */
static void set_from_args(lua_State *L, th_tensor *t, int a, const char *fname) {
  th_tensor *src;
  th_lua_storage *box;
  if (lua_isnoneornil(L, a)) {
    th_tensor_clear(t);
    return;
  }
  if ((src = th_lua_totensor(L, a)) != NULL) {
    src = th_lua_checkview(L, a, fname);  /* a freed source is an error, not an empty tensor */
    if (src->dtype != t->dtype)
      th_lua_argerror(L, a, fname, "%s expected, got %s", th_lua_tensor_mt[t->dtype], th_lua_tensor_mt[src->dtype]);
    th_tensor_set_tensor(t, src);
    return;
  }
  if ((box = th_lua_tostoragebox(L, a)) != NULL) {
    int64_t size[TH_MAXDIM], stride[TH_MAXDIM], offset = 0;
    int has_stride, n;
    th_storage *s = th_lua_checkstorage(L, a, fname);
    if (s->dtype != t->dtype)
      th_lua_argerror(L, a, fname, "%s expected, got %s", th_lua_storage_mt[t->dtype], th_lua_storage_mt[s->dtype]);
    if (!lua_isnoneornil(L, a + 1)) {
      int64_t o1 = th_lua_checkint(L, a + 1, fname, "storage offset");  /* 1-based */
      if (o1 < 1 || (o1 - 1 > s->size && s->size > 0))
        th_lua_argerror(L, a + 1, fname, "storage offset %lld out of range (storage has %lld elements)",
                        (long long)o1, (long long)s->size);
      offset = o1 - 1;
    }
    n = read_size_stride(L, a + 2, size, stride, &has_stride, fname);
    if (n < 0) {  /* whole storage as 1D from offset */
      size[0] = s->size - offset;
      n = size[0] > 0 ? 1 : 0;
    }
    th_lua_check(L, th_tensor_set(t, s, offset, n, size, has_stride ? stride : NULL), fname);
    return;
  }
  th_lua_argerror(L, a, fname, "tensor or storage expected, got %s", th_lua_typename(L, a));
}

/* C.newTensor(dtype, ...): every constructor form of torch.<T>Tensor */
static int t_new(lua_State *L) {
  th_dtype dt = (th_dtype)luaL_checkinteger(L, 1);
  const char *fname = th_lua_tensor_mt[dt];
  int64_t size[TH_MAXDIM];
  th_tensor *t;
  th_lua_storage *box;
  int nargs, tidx;
  lua_remove(L, 1);  /* constructor arguments now start at 1 */
  nargs = lua_gettop(L);
  /* two nils after the arguments: the readers stop at the first nil, so
     they never reach the new tensor pushed above them */
  lua_settop(L, nargs + 2);
  t = th_lua_newtensor(L, dt);
  tidx = lua_gettop(L);
  if (nargs == 0) return 1;  /* torch.Tensor() */
  box = th_lua_tostoragebox(L, 1);
  /* a LongStorage gives sizes, except to a LongTensor (Torch7 reads its own storage type first) */
  if (th_lua_totensor(L, 1) != NULL ||
      (box != NULL && !(dt != TH_LONG && box->s != NULL && box->s->dtype == TH_LONG))) {
    set_from_args(L, t, 1, fname);
  } else if (lua_istable(L, 1) && !lua_getmetatable(L, 1)) {
    int64_t pos = 0;
    int n = table_shape(L, 1, size);
    if (n > 0 && size[n - 1] > 0) {
      th_lua_check(L, th_tensor_resize(t, n, size), fname);
      table_fill(L, 1, t, 0, size, n, &pos);
    }
  } else {
    int n;
    lua_settop(L, tidx);  /* drops the metatable lua_getmetatable may have pushed */
    if (lua_type(L, 1) != LUA_TNUMBER && !lua_istable(L, 1) && box == NULL)
      th_lua_argerror(L, 1, fname, "sizes, a table, a tensor or a storage expected, got %s",
                      th_lua_typename(L, 1));
    n = th_lua_checksizes_only(L, 1, size, fname);
    /* Torch7 cut the sizes at the first 0: torch.Tensor(0) has no
       dimension. (A later 0, as in (3, 0), made Torch7 drop it and keep
       junk elements; here it stays a size-0 dimension.) */
    if (n > 0 && size[0] == 0) n = 0;
    th_lua_check(L, th_tensor_resize(t, n, size), fname);
  }
  lua_settop(L, tidx);
  return 1;
}

/* --- shape queries ------------------------------------------------------ */

static int t_size(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "size");
  if (!lua_isnoneornil(L, 2)) {
    int d = th_lua_checkdim(L, 2, t->ndim, 0, "size");
    lua_pushinteger(L, t->size[d]);
    return 1;
  }
  th_lua_pushsizes(L, t->ndim, t->size);
  return 1;
}

static int t_stride(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "stride");
  if (!lua_isnoneornil(L, 2)) {
    int d = th_lua_checkdim(L, 2, t->ndim, 0, "stride");
    lua_pushinteger(L, t->stride[d]);
    return 1;
  }
  th_lua_pushsizes(L, t->ndim, t->stride);
  return 1;
}

static int t_dim(lua_State *L) {
  lua_pushinteger(L, th_lua_checkview(L, 1, "dim")->ndim);
  return 1;
}

static int t_numel(lua_State *L) {
  lua_pushinteger(L, th_tensor_numel(th_lua_checkview(L, 1, "nElement")));
  return 1;
}

static int t_storage(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "storage");
  if (t->storage == NULL) lua_pushnil(L);
  else th_lua_pushstorage(L, t->storage);
  return 1;
}

static int t_storageoffset(lua_State *L) {
  lua_pushinteger(L, th_lua_checkview(L, 1, "storageOffset")->offset + 1);
  return 1;
}

static int t_iscontiguous(lua_State *L) {
  lua_pushboolean(L, th_tensor_is_contiguous(th_lua_checkview(L, 1, "isContiguous")));
  return 1;
}

static int t_issamesizeas(lua_State *L) {
  th_tensor *a = th_lua_checkview(L, 1, "isSameSizeAs");
  th_tensor *b = th_lua_checkview(L, 2, "isSameSizeAs");
  lua_pushboolean(L, th_tensor_same_size(a, b));
  return 1;
}

static int t_issetto(lua_State *L) {
  th_tensor *a = th_lua_checkview(L, 1, "isSetTo");
  th_tensor *b = th_lua_checkview(L, 2, "isSetTo");
  int same = a->storage != NULL && a->storage == b->storage && a->offset == b->offset &&
             th_tensor_same_size(a, b) && a->dtype == b->dtype &&
             memcmp(a->stride, b->stride, sizeof(int64_t) * (size_t)a->ndim) == 0;
  lua_pushboolean(L, same);
  return 1;
}

/* identity and byte size of the storage without creating its Lua object
   (a Lua handle would keep the storage alive until the next GC cycle); the
   identity is its address, as torch.pointer(storage) gives */
static int t_storageid(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "_storageId");
  if (t->storage == NULL) lua_pushnil(L);
  else lua_pushinteger(L, (lua_Integer)(intptr_t)t->storage);
  return 1;
}

/* the storage's serial: unlike its address, never given to a later storage
   (keys kept across passes, as nn's gradInput release keeps, must not meet
   a new storage at a freed one's address) */
static int t_storageserial(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "_storageSerial");
  if (t->storage == NULL) lua_pushnil(L);
  else lua_pushinteger(L, (lua_Integer)t->storage->serial);
  return 1;
}

/* references to the storage (views and handles): whether dropping one more
   frees it (nn's gradInput release records what it let go of) */
static int t_storagerefs(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "_storageRefs");
  lua_pushinteger(L, t->storage ? (lua_Integer)__atomic_load_n(&t->storage->refcount, __ATOMIC_RELAXED) : 0);
  return 1;
}

static int t_storagebytes(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "_storageBytes");
  lua_pushinteger(L, t->storage ? (lua_Integer)th_storage_bytes(t->storage) : 0);
  return 1;
}

/* bytes from the storage start to the end of the view: what the view needs */
static int t_extentbytes(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "_extentBytes");
  lua_pushinteger(L, t->storage ? (lua_Integer)(th_tensor_extent(t) * (int64_t)th_dtype_size[t->dtype]) : 0);
  return 1;
}

/* t:_setLimit(n): the view may not grow past storage element n (1-based
   exclusive end as an element count from the storage start); 0 clears */
static int t_setlimit(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "_setLimit");
  int64_t n = th_lua_checkint(L, 2, "_setLimit", "limit");
  if (n < 0) return th_lua_argerror(L, 2, "_setLimit", "limit must be non-negative, got %I", (lua_Integer)n);
  t->limit = n;
  lua_settop(L, 1);
  return 1;
}

/* t:_limit(): the limit _setLimit put on the view (0: none) */
static int t_limit(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)th_lua_checkview(L, 1, "_limit")->limit);
  return 1;
}

/* t:_extentError() -> nil, or the message saying that the view reaches past
   its storage (th_tensor_check_extent): for Lua code that hands a tensor's
   elements on without a kernel (the serializer) */
static int t_extenterror(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "_extentError");
  if (th_tensor_check_extent(t, "tensor") == TH_OK) lua_pushnil(L);
  else lua_pushstring(L, th_error_msg());
  return 1;
}

static int t_cdata(lua_State *L) {
  lua_pushlightuserdata(L, th_lua_checkview(L, 1, "cdata"));
  return 1;
}

/* x:data(): Torch7's pointer to the first element, as an opaque light
   userdata (Torch7 gave an FFI pointer). Scripts use it as an identity
   key through torch.pointer; there is no element access through it. */
static int t_data(lua_State *L) {
  lua_pushlightuserdata(L, th_tensor_data(th_lua_checkview(L, 1, "data")));
  return 1;
}

/* --- copy, fill, resize ------------------------------------------------- */

static int t_copy(lua_State *L) {
  th_tensor *t = th_lua_checktensor(L, 1, "copy");
  th_tensor *s = th_lua_checktensor(L, 2, "copy");
  th_lua_check(L, th_tensor_copy(t, s), "copy");
  lua_settop(L, 1);
  return 1;
}

static int t_fill(lua_State *L) {
  th_tensor *t = th_lua_checktensor(L, 1, "fill");
  double v = th_lua_checknumber(L, 2, "fill", "value");
  th_lua_check(L, th_tensor_fill(t, v), "fill");
  lua_settop(L, 1);
  return 1;
}

static int t_zero(lua_State *L) {
  th_lua_check(L, th_tensor_zero(th_lua_checktensor(L, 1, "zero")), "zero");
  lua_settop(L, 1);
  return 1;
}

static int t_resize(lua_State *L) {
  int64_t size[TH_MAXDIM];
  th_tensor *t = th_lua_checkview(L, 1, "resize");
  int n = th_lua_checksizes_only(L, 2, size, "resize");
  th_lua_check(L, th_tensor_resize(t, n, size), "resize");
  lua_settop(L, 1);
  return 1;
}

static int t_resizeas(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "resizeAs");
  th_tensor *s = th_lua_checkview(L, 2, "resizeAs");
  th_lua_check(L, th_tensor_resize_as(t, s), "resizeAs");
  lua_settop(L, 1);
  return 1;
}

static int t_set(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "set");
  set_from_args(L, t, 2, "set");
  lua_settop(L, 1);
  return 1;
}

static int t_contiguous(lua_State *L) {
  th_tensor *t = th_lua_checktensor(L, 1, "contiguous");
  th_tensor *r;
  if (th_tensor_is_contiguous(t)) {
    lua_settop(L, 1);
    return 1;
  }
  r = th_lua_newtensor(L, t->dtype);
  th_lua_check(L, th_tensor_contiguous(r, t), "contiguous");
  return 1;
}

static int t_clone(lua_State *L) {
  th_tensor *t = th_lua_checktensor(L, 1, "clone");
  th_tensor *r = th_lua_newtensor(L, t->dtype);
  th_lua_check(L, th_tensor_resize_as(r, t), "clone");
  th_lua_check(L, th_tensor_copy(r, t), "clone");
  return 1;
}

/* --- views -------------------------------------------------------------- */

/* the result of a view method: a new tensor, pushed */
static th_tensor *newview(lua_State *L, th_tensor *src) {
  return th_lua_newtensor(L, src->dtype);
}

static int t_narrow(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "narrow");
  int d = th_lua_checkdim(L, 2, t->ndim, 0, "narrow");
  int64_t first = th_lua_checkint(L, 3, "narrow", "index");
  int64_t len = th_lua_checkint(L, 4, "narrow", "size");
  th_tensor *r;
  if (first < 0) first = t->size[d] + first + 1;
  /* written so that no sum can overflow: sizes and indices may be near 2^63 */
  if (first < 1 || first - (len == 0) > t->size[d])
    return th_lua_argerror(L, 3, "narrow", "index %lld out of range for dimension %d of size %lld",
                           (long long)lua_tointeger(L, 3), d + 1, (long long)t->size[d]);
  if (len < 0 || len > t->size[d] - (first - 1))
    return th_lua_argerror(L, 4, "narrow", "size %lld from index %lld exceeds dimension %d of size %lld",
                           (long long)len, (long long)first, d + 1, (long long)t->size[d]);
  r = newview(L, t);
  th_lua_check(L, th_tensor_narrow(r, t, d, first - 1, len), "narrow");
  return 1;
}

static int t_select(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "select");
  /* a 1D tensor gives its element whatever the dimension, as Torch7
     (whose select never read it there; its own tests rely on that) */
  int d = t->ndim == 1 ? (th_lua_checkint(L, 2, "select", "dimension"), 0)
                       : th_lua_checkdim(L, 2, t->ndim, 0, "select");
  int64_t i = th_lua_checkindex(L, 3, t->size[d], "select", "index");
  th_tensor *r;
  if (t->ndim == 1) {  /* Torch7 returns the number */
    if (th_tensor_check_extent(t, "tensor") != TH_OK) return th_lua_error(L, "select");
    th_lua_pushelement(L, t->dtype, th_tensor_data(t), i * t->stride[0]);
    return 1;
  }
  r = newview(L, t);
  th_lua_check(L, th_tensor_select(r, t, d, i), "select");
  return 1;
}

/* t:sub(d1s, d1e [, d2s, d2e ...]): inclusive ranges, negatives count from the end */
static int t_sub(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "sub");
  th_tensor *r = newview(L, t);
  int nargs = lua_gettop(L) - 2, d;
  if (nargs % 2 != 0 || nargs / 2 > t->ndim)
    return th_lua_argerror(L, 2, "sub", "pairs of start, end for at most %d dimensions expected, got %d numbers",
                           t->ndim, nargs);
  th_tensor_set_tensor(r, t);
  for (d = 0; d < nargs / 2; d++) {
    int64_t n = t->size[d];
    int64_t s0 = th_lua_checkint(L, 2 + 2 * d, "sub", "start"), s = s0;
    int64_t e0 = th_lua_checkint(L, 3 + 2 * d, "sub", "end"), e = e0;
    if (s < 0) s += n + 1;
    if (e < 0) e += n + 1;
    /* the messages show the values the user passed, not the shifted ones */
    if (s < 1 || s > n) return th_lua_argerror(L, 2 + 2 * d, "sub", "start %lld out of range for dimension %d of size %lld", (long long)s0, d + 1, (long long)n);
    if (e < s || e > n) return th_lua_argerror(L, 3 + 2 * d, "sub", "end %lld out of range for dimension %d (start %lld, size %lld)", (long long)e0, d + 1, (long long)s0, (long long)n);
    th_lua_check(L, th_tensor_narrow(r, r, d, s - 1, e - s + 1), "sub");
  }
  return 1;
}

static int t_transpose(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "transpose");
  int d1 = th_lua_checkdim(L, 2, t->ndim, 0, "transpose");
  int d2 = th_lua_checkdim(L, 3, t->ndim, 0, "transpose");
  th_tensor *r = newview(L, t);
  th_lua_check(L, th_tensor_transpose(r, t, d1, d2), "transpose");
  return 1;
}

static int t_t(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "t");
  th_tensor *r;
  if (t->ndim != 2) {
    char b[128];
    return th_lua_argerror(L, 1, "t", "2D tensor expected, got %dD %s", t->ndim, th_tensor_sizestr(t, b, sizeof b));
  }
  r = newview(L, t);
  th_lua_check(L, th_tensor_transpose(r, t, 0, 1), "t");
  return 1;
}

static int t_permute(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "permute");
  int perm[TH_MAXDIM], d;
  th_tensor *r;
  if (lua_gettop(L) - 1 != t->ndim)
    return th_lua_argerror(L, 2, "permute", "%d dimensions expected, got %d", t->ndim, lua_gettop(L) - 1);
  for (d = 0; d < t->ndim; d++) perm[d] = th_lua_checkdim(L, 2 + d, t->ndim, 0, "permute");
  r = newview(L, t);
  th_lua_check(L, th_tensor_permute(r, t, perm), "permute");
  return 1;
}

static int t_unfold(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "unfold");
  int d = th_lua_checkdim(L, 2, t->ndim, 0, "unfold");
  int64_t size = th_lua_checkint(L, 3, "unfold", "size");
  int64_t step = th_lua_checkint(L, 4, "unfold", "step");
  th_tensor *r = newview(L, t);
  th_lua_check(L, th_tensor_unfold(r, t, d, size, step), "unfold");
  return 1;
}

static int t_squeeze(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "squeeze");
  th_tensor *r;
  if (!lua_isnoneornil(L, 2)) {
    int d = th_lua_checkdim(L, 2, t->ndim, 0, "squeeze");
    r = newview(L, t);
    th_lua_check(L, th_tensor_squeeze1d(r, t, d), "squeeze");
    return 1;
  }
  r = newview(L, t);
  th_lua_check(L, th_tensor_squeeze(r, t), "squeeze");
  return 1;
}

static int t_unsqueeze(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "unsqueeze");
  int d = th_lua_checkdim(L, 2, t->ndim, 1, "unsqueeze");
  th_tensor *r = newview(L, t);
  th_lua_check(L, th_tensor_unsqueeze(r, t, d), "unsqueeze");
  return 1;
}

static int t_expand(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "expand");
  int64_t size[TH_MAXDIM];
  int a = 2, n;
  th_tensor *r, *res = NULL;
  if (th_lua_totensor(L, 2) != NULL) {  /* res:expand(src, sizes) */
    res = t;
    t = th_lua_checkview(L, 2, "expand");
    if (t->dtype != res->dtype)
      return th_lua_argerror(L, 2, "expand", "%s expected, got %s", th_lua_tensor_mt[res->dtype], th_lua_tensor_mt[t->dtype]);
    a = 3;
  }
  n = th_lua_checksizes_only(L, a, size, "expand");
  r = res ? res : newview(L, t);
  th_lua_check(L, th_tensor_expand(r, t, n, size), "expand");
  if (res) lua_settop(L, 1);
  return 1;
}

/* t:expandAs(o) -> new view; res:expandAs(src, o) -> res */
static int t_expandas(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "expandAs");
  th_tensor *o = th_lua_checkview(L, 2, "expandAs");
  th_tensor *r;
  if (lua_gettop(L) >= 3) {
    th_tensor *u = th_lua_checkview(L, 3, "expandAs");
    if (o->dtype != t->dtype) return th_lua_argerror(L, 2, "expandAs", "%s expected", th_lua_tensor_mt[t->dtype]);
    th_lua_check(L, th_tensor_expand(t, o, u->ndim, u->size), "expandAs");
    lua_settop(L, 1);
    return 1;
  }
  r = newview(L, t);
  th_lua_check(L, th_tensor_expand(r, t, o->ndim, o->size), "expandAs");
  return 1;
}

/* t:view(sizes) -> new view; res:view(src, sizes) -> res */
static int t_view(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "view");
  th_tensor *src = th_lua_totensor(L, 2), *r;
  int64_t size[TH_MAXDIM];
  int n;
  if (src != NULL) {
    n = th_lua_checksizes_only(L, 3, size, "view");
    if (src->dtype != t->dtype) return th_lua_argerror(L, 2, "view", "%s expected", th_lua_tensor_mt[t->dtype]);
    th_lua_check(L, th_tensor_view(t, src, n, size), "view");
    lua_settop(L, 1);
    return 1;
  }
  n = th_lua_checksizes_only(L, 2, size, "view");
  r = newview(L, t);
  th_lua_check(L, th_tensor_view(r, t, n, size), "view");
  return 1;
}

/* t:viewAs(o) -> new view; res:viewAs(src, o) -> res */
static int t_viewas(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "viewAs");
  th_tensor *o = th_lua_checkview(L, 2, "viewAs");
  th_tensor *r;
  if (lua_gettop(L) >= 3) {
    th_tensor *u = th_lua_checkview(L, 3, "viewAs");
    if (o->dtype != t->dtype) return th_lua_argerror(L, 2, "viewAs", "%s expected", th_lua_tensor_mt[t->dtype]);
    th_lua_check(L, th_tensor_view(t, o, u->ndim, u->size), "viewAs");
    lua_settop(L, 1);
    return 1;
  }
  r = newview(L, t);
  th_lua_check(L, th_tensor_view(r, t, o->ndim, o->size), "viewAs");
  return 1;
}

/* --- indexing: t[i], t[{...}], t[mask], t[longidx] ---------------------- */

/* the integer on top of the stack, a bound of range number i; a float
   with an integer value (4.0, from arithmetic) counts, as in Torch7 */
static int64_t range_bound(lua_State *L, const char *fname, int i) {
  int isint;
  lua_Integer v = lua_tointegerx(L, -1, &isint);
  if (!isint || lua_type(L, -1) != LUA_TNUMBER)
    luaL_error(L, "%s: range %d must hold integers, got %s", fname, i,
               lua_type(L, -1) == LUA_TNUMBER ? "a fraction" : luaL_typename(L, -1));
  return (int64_t)v;
}

/* applies one index table to 'r' (a view of t); returns 1 if the result is a
   single element (all entries numbers, one per dimension), with *elem set */
static int index_view(lua_State *L, th_tensor *r, int key, int64_t *elem, const char *fname) {
  int n = (int)luaL_len(L, key), i, d = 0, numbers = 0;
  if (n > r->ndim)
    luaL_error(L, "%s: %d indices for a %dD tensor", fname, n, r->ndim);
  for (i = 1; i <= n; i++) {
    int ty = lua_geti(L, key, i);
    if (ty == LUA_TNUMBER) {
      int64_t ix, v;
      int isint;
      v = (int64_t)lua_tointegerx(L, -1, &isint);
      if (!isint)
        luaL_error(L, "%s: index %d must be an integer, got %s", fname, i,
                   lua_tostring(L, -1));
      ix = v < 0 ? r->size[d] + v : v - 1;
      if (v == 0 || ix < 0 || ix >= r->size[d])
        luaL_error(L, "%s: index %I out of range for dimension %d of size %I", fname,
                   (lua_Integer)v, i, (lua_Integer)r->size[d]);
      if (r->ndim == 1) {  /* last dimension selected: a number */
        *elem = r->offset + ix * r->stride[0];
        numbers++;
        lua_pop(L, 1);
        if (i != n) luaL_error(L, "%s: too many indices", fname);
        return 1;
      }
      th_lua_check(L, th_tensor_select(r, r, d, ix), fname);
      numbers++;
    } else if (ty == LUA_TTABLE) {
      int64_t size = r->size[d], s = 1, e = size;
      if (luaL_len(L, -1) > 2)
        luaL_error(L, "%s: range %d must be {first, last}, got %d entries", fname, i,
                   (int)luaL_len(L, -1));
      lua_geti(L, -1, 1);
      if (!lua_isnil(L, -1)) s = range_bound(L, fname, i);
      lua_pop(L, 1);
      lua_geti(L, -1, 2);
      if (!lua_isnil(L, -1)) e = range_bound(L, fname, i);
      else if (s != 1 || luaL_len(L, -2) >= 1) e = s;
      lua_pop(L, 1);
      if (luaL_len(L, -1) == 0) { s = 1; e = size; }
      if (s < 0) s += size + 1;
      if (e < 0) e += size + 1;
      if (s < 1 || s > size || e < s - 1 || e > size)
        luaL_error(L, "%s: range {%I, %I} out of bounds for dimension %d of size %I", fname,
                   (lua_Integer)s, (lua_Integer)e, i, (lua_Integer)size);
      th_lua_check(L, th_tensor_narrow(r, r, d, s - 1, e - s + 1), fname);
      d++;
    } else {
      luaL_error(L, "%s: index %d must be a number or a {first, last} table, got %s", fname, i,
                 luaL_typename(L, -1));
    }
    lua_pop(L, 1);
  }
  (void)numbers;
  return 0;
}

/* t[LongStorage]: one index per dimension (negative from the end), as
   Torch7: the element's position in t's storage */
static int64_t storage_index(lua_State *L, const th_tensor *t, const th_storage *ix, const char *fname) {
  const int64_t *v = (const int64_t *)ix->data;
  int64_t at = t->offset;
  int d;
  if (ix->size != t->ndim)
    luaL_error(L, "%s: a LongStorage index needs one entry per dimension (%d), got %I", fname,
               t->ndim, (lua_Integer)ix->size);
  for (d = 0; d < t->ndim; d++) {
    int64_t z = v[d] < 0 ? t->size[d] + v[d] : v[d] - 1;
    if (v[d] == 0 || z < 0 || z >= t->size[d])
      luaL_error(L, "%s: index %I out of range for dimension %d of size %I", fname,
                 (lua_Integer)v[d], d + 1, (lua_Integer)t->size[d]);
    at += z * t->stride[d];
  }
  return at;
}

/* the LongStorage at idx, or NULL */
static th_storage *long_storage(lua_State *L, int idx) {
  th_lua_storage *b = lua_type(L, idx) == LUA_TUSERDATA ? th_lua_tostoragebox(L, idx) : NULL;
  return b && b->s && b->s->dtype == TH_LONG ? b->s : NULL;
}

static int call_method(lua_State *L, const char *name, int nargs) {
  /* stack: ... args; calls self's method 'name' with the given args */
  int base = lua_gettop(L) - nargs + 1;
  luaL_getmetafield(L, base, name);
  lua_insert(L, base);
  lua_call(L, nargs, 1);
  return 1;
}

static int t_index(lua_State *L) {
  th_tensor *t = lua_touserdata(L, 1);
  int kt = lua_type(L, 2);
  if (kt == LUA_TSTRING) {
    lua_getmetatable(L, 1);
    lua_pushvalue(L, 2);
    lua_rawget(L, -2);
    return 1;
  }
  if (t->flags & TH_TENSOR_FREED) return luaL_error(L, "tensor index: tensor was freed (used after :free()/:dispose())");
  /* element reads below go straight to the storage */
  if (th_tensor_check_extent(t, "tensor") != TH_OK) return th_lua_error(L, "tensor index");
  if (kt == LUA_TNUMBER) {
    int64_t i = th_lua_checkindex(L, 2, t->ndim ? t->size[0] : 0, "__index", "index");
    th_tensor *r;
    if (t->ndim == 1) {
      th_lua_pushelement(L, t->dtype, t->storage->data, t->offset + i * t->stride[0]);
      return 1;
    }
    r = th_lua_newtensor(L, t->dtype);
    th_lua_check(L, th_tensor_select(r, t, 0, i), "__index");
    return 1;
  }
  if (kt == LUA_TTABLE) {
    int64_t elem;
    th_tensor *r = th_lua_newtensor(L, t->dtype);
    th_tensor_set_tensor(r, t);
    if (index_view(L, r, 2, &elem, "tensor index")) {
      th_lua_pushelement(L, t->dtype, t->storage->data, elem);
    }
    return 1;
  }
  {
    th_storage *ls = long_storage(L, 2);
    if (ls != NULL) {
      th_lua_pushelement(L, t->dtype, t->storage->data, storage_index(L, t, ls, "tensor index"));
      return 1;
    }
  }
  {
    th_tensor *k = th_lua_totensor(L, 2);
    if (k != NULL && k->dtype == TH_BYTE) {
      lua_settop(L, 2);
      return call_method(L, "maskedSelect", 2);
    }
    if (k != NULL && k->dtype == TH_LONG) {
      lua_pushvalue(L, 1);
      lua_pushinteger(L, 1);
      lua_pushvalue(L, 2);
      return call_method(L, "index", 3);
    }
  }
  if (kt == LUA_TNIL || kt == LUA_TBOOLEAN) {
    lua_pushnil(L);
    return 1;
  }
  return luaL_error(L, "tensor index: a number, table, LongStorage, ByteTensor mask or LongTensor expected, got %s",
                    th_lua_typename(L, 2));
}

/* writes value at stack index 3 into the view r: number -> fill, tensor -> copy */
static void assign(lua_State *L, th_tensor *r, const char *fname) {
  th_tensor *v = th_lua_totensor(L, 3) != NULL ? th_lua_checkdata(L, 3, fname, "value") : NULL;
  if (v != NULL) th_lua_check(L, th_tensor_copy(r, v), fname);
  else if (lua_isnumber(L, 3)) th_lua_check(L, th_tensor_fill(r, lua_tonumber(L, 3)), fname);
  else luaL_error(L, "%s: a number or a tensor expected as value, got %s", fname, th_lua_typename(L, 3));
}

static int t_newindex(lua_State *L) {
  th_tensor *t = lua_touserdata(L, 1);
  int kt = lua_type(L, 2);
  if (t->flags & TH_TENSOR_FREED) return luaL_error(L, "tensor index: tensor was freed (used after :free()/:dispose())");
  /* element writes below go straight to the storage */
  if (th_tensor_check_extent(t, "tensor") != TH_OK) return th_lua_error(L, "tensor index");
  if (kt == LUA_TNUMBER) {
    int64_t i = th_lua_checkindex(L, 2, t->ndim ? t->size[0] : 0, "__newindex", "index");
    th_tensor r;
    if (t->ndim == 1 && !th_lua_totensor(L, 3)) {
      th_lua_setelement(L, 3, t->dtype, t->storage->data, t->offset + i * t->stride[0], "__newindex");
      return 0;
    }
    th_tensor_init(&r, t->dtype);
    if (t->ndim == 1) th_tensor_narrow(&r, t, 0, i, 1);
    else th_tensor_select(&r, t, 0, i);
    /* r holds a reference: put it in a userdata so an error cannot leak it */
    {
      th_tensor *rv = th_lua_newtensor(L, t->dtype);
      *rv = r;
      assign(L, rv, "__newindex");
    }
    return 0;
  }
  if (kt == LUA_TTABLE) {
    int64_t elem;
    th_tensor *r = th_lua_newtensor(L, t->dtype);
    th_tensor_set_tensor(r, t);
    if (index_view(L, r, 2, &elem, "tensor index"))
      th_lua_setelement(L, 3, t->dtype, t->storage->data, elem, "__newindex");
    else
      assign(L, r, "__newindex");
    return 0;
  }
  {
    th_storage *ls = long_storage(L, 2);
    if (ls != NULL) {
      th_lua_setelement(L, 3, t->dtype, t->storage->data, storage_index(L, t, ls, "tensor index"),
                        "__newindex");
      return 0;
    }
  }
  {
    th_tensor *k = th_lua_totensor(L, 2);
    if (k != NULL && k->dtype == TH_BYTE) {
      lua_settop(L, 3);
      call_method(L, th_lua_totensor(L, 3) ? "maskedCopy" : "maskedFill", 3);
      return 0;
    }
    if (k != NULL && k->dtype == TH_LONG) {
      lua_pushvalue(L, 1);
      lua_pushinteger(L, 1);
      lua_pushvalue(L, 2);
      lua_pushvalue(L, 3);
      call_method(L, th_lua_totensor(L, 3) ? "indexCopy" : "indexFill", 4);
      return 0;
    }
  }
  return luaL_error(L, "tensor index: cannot assign to key of type %s (tensors have no fields)",
                    th_lua_typename(L, 2));
}

static int t_len(lua_State *L) {
  th_tensor *t = th_lua_checkview(L, 1, "__len");
  th_lua_pushsizes(L, t->ndim, t->size);
  return 1;
}

static const luaL_Reg tensor_methods[] = {
    {"size", t_size}, {"stride", t_stride}, {"dim", t_dim}, {"nDimension", t_dim},
    {"nElement", t_numel}, {"numel", t_numel}, {"storage", t_storage},
    {"storageOffset", t_storageoffset}, {"isContiguous", t_iscontiguous},
    {"isSameSizeAs", t_issamesizeas}, {"isSetTo", t_issetto}, {"cdata", t_cdata}, {"data", t_data},
    {"_storageId", t_storageid}, {"_setLimit", t_setlimit}, {"_limit", t_limit}, {"_extentBytes", t_extentbytes}, {"_extentError", t_extenterror}, {"_storageBytes", t_storagebytes}, {"_storageRefs", t_storagerefs}, {"_storageSerial", t_storageserial},
    {"copy", t_copy}, {"fill", t_fill}, {"zero", t_zero}, {"resize", t_resize},
    {"resizeAs", t_resizeas}, {"set", t_set}, {"contiguous", t_contiguous}, {"clone", t_clone},
    {"narrow", t_narrow}, {"select", t_select}, {"sub", t_sub}, {"transpose", t_transpose},
    {"t", t_t}, {"permute", t_permute}, {"unfold", t_unfold}, {"squeeze", t_squeeze},
    {"unsqueeze", t_unsqueeze}, {"expand", t_expand}, {"expandAs", t_expandas},
    {"view", t_view}, {"viewAs", t_viewas}, {"free", t_free}, {"dispose", t_free},
    {"isFreed", t_isfreed},
    {"__gc", t_gc}, {"__close", t_free}, {"__index", t_index}, {"__newindex", t_newindex},
    {"__len", t_len}, {NULL, NULL}};

void th_lua_open_tensor(lua_State *L, int methods) {
  th_lua_register(L, methods, tensor_methods);
}

/* exported for init.c: the constructor */
int th_lua_tensor_new(lua_State *L);
int th_lua_tensor_new(lua_State *L) { return t_new(L); }
