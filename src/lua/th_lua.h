/*
** th_lua.h: the binding layer's shared helpers.
** Only src/lua knows about Lua. Every binding checks its arguments with
** these helpers, calls the C core, and turns a core failure into a Lua
** error through 'th_lua_check'. Lua's 1-based (and negative) indices
** become 0-based in exactly one place: th_lua_checkindex/checkdim.
*/
#ifndef TH_LUA_H
#define TH_LUA_H

#include <lua.h>
#include <lauxlib.h>
#include "../tensor/th_tensor.h"

/* registry names of the metatables: "torch.FloatTensor", "torch.FloatStorage" */
extern const char *const th_lua_tensor_mt[TH_NDTYPES];
extern const char *const th_lua_storage_mt[TH_NDTYPES];

/* the storage userdata is a box around one reference */
typedef struct th_lua_storage {
  th_storage *s;
} th_lua_storage;

/* --- tensors --- */
th_tensor *th_lua_totensor(lua_State *L, int idx);  /* NULL if not a tensor */
/* A live (not freed) tensor of any type whose elements all lie inside its
   storage (th_tensor_check_extent), or a Lua error naming 'fname': the
   getter of every binding that reads or writes elements, so that a view
   whose storage shrank under it is an error at use, never a wild access.
   Checked once per call, before the core runs. */
th_tensor *th_lua_checktensor(lua_State *L, int idx, const char *fname);
/* the same, the message naming the argument 'what' ("input of size 2x3
   extends past its storage (needs 7 elements, storage has 0)") */
th_tensor *th_lua_checkdata(lua_State *L, int idx, const char *fname, const char *what);
/* why t may not be used ("freed by its dispose scope (keep it with ...)",
   "freed (used after ...)"), NULL when it is live: every "was freed"
   message, th_lua_checkview's and the nn bindings', reads it here */
const char *th_lua_freed(const th_tensor *t);
/* a live tensor whose elements are not touched: sizes, strides, views,
   resize and set (which regrow the storage), identity queries */
th_tensor *th_lua_checkview(lua_State *L, int idx, const char *fname);
/* a result the core resizes before it writes (th_tensor_resize grows the
   storage to fit the view, so the extent holds after the resize): live and
   of type dt; its extent is not checked here. An input that is also the
   result (x:add(y)) is checked as an input. */
th_tensor *th_lua_checkresult(lua_State *L, int idx, th_dtype dt, const char *fname);
/* the same, restricted to one dtype */
th_tensor *th_lua_checktensortype(lua_State *L, int idx, th_dtype dt, const char *fname);
/* a Float or Double tensor */
th_tensor *th_lua_checkfloating(lua_State *L, int idx, const char *fname);
/* pushes a new empty tensor of type dt */
th_tensor *th_lua_newtensor(lua_State *L, th_dtype dt);
/* result argument: the tensor at idx when it is one (of dtype dt), else a new one
   pushed on top. Used for Torch7's optional leading result argument. */
th_tensor *th_lua_optresult(lua_State *L, int idx, th_dtype dt, const char *fname, int *pushed);

/* --- storages --- */
th_lua_storage *th_lua_tostoragebox(lua_State *L, int idx);
th_storage *th_lua_checkstorage(lua_State *L, int idx, const char *fname);
/* the storage s, mapped shared from a file, raises a Lua error in L's
   main thread if the file is cut shorter while mapped (th_lua_mapguard.c) */
void th_lua_mapguard_own(lua_State *L, th_storage *s);
/* pushes the one Lua object of storage s (cached, so identity holds); retains */
void th_lua_pushstorage(lua_State *L, th_storage *s);

/* --- arguments --- */
/* converts a 1-based or negative Lua index into 0..n-1; errors name 'fname' */
int64_t th_lua_checkindex(lua_State *L, int arg, int64_t n, const char *fname, const char *what);
/* converts a 1-based or negative dimension into 0..ndim-1 (ndim+extra for unsqueeze) */
int th_lua_checkdim(lua_State *L, int arg, int ndim, int extra, const char *fname);
/* reads sizes from numbers at arg.. or one LongStorage/table at arg; returns count */
int th_lua_checksizes(lua_State *L, int arg, int64_t *size, const char *fname);
/* the same, and an error when anything follows the sizes */
int th_lua_checksizes_only(lua_State *L, int arg, int64_t *size, const char *fname);
/* like checksizes but stops at the first non-size argument */
int64_t th_lua_checkint(lua_State *L, int arg, const char *fname, const char *what);
int64_t th_lua_checksize(lua_State *L, int arg, const char *fname, const char *what);
/* a number (or numeric string), or a Lua error naming 'fname' */
double th_lua_checknumber(lua_State *L, int arg, const char *fname, const char *what);
/* name of the value's type for messages: "torch.FloatTensor", "number", "nil" */
const char *th_lua_typename(lua_State *L, int idx);

/* --- errors and memory --- */
/* raises "fname: <core message>" */
int th_lua_error(lua_State *L, const char *fname);
/* raises unless rc == TH_OK; then feeds new storage bytes to the GC */
void th_lua_check(lua_State *L, int rc, const char *fname);
/* raises "bad argument #arg to 'fname' (msg)" */
int th_lua_argerror(lua_State *L, int arg, const char *fname, const char *fmt, ...);
void th_lua_gcstep(lua_State *L);
/* whether the tensor at idx belongs to a module (th_lua_scope.c's label) */
int th_lua_is_module_owned(lua_State *L, int idx);
/* pushes a LongStorage holding the sizes */
void th_lua_pushsizes(lua_State *L, int n, const int64_t *v);
/* pushes a number from element i (0-based, in elements from the data start) */
void th_lua_pushelement(lua_State *L, th_dtype dt, const void *data, int64_t i);
/* writes number at stack idx into element i */
void th_lua_setelement(lua_State *L, int idx, th_dtype dt, void *data, int64_t i, const char *fname);

/* each binding file registers its functions with one of these */
void th_lua_open_tensor(lua_State *L, int methods);   /* core: views, set, resize, copy */
void th_lua_open_storage(lua_State *L, int C);
void th_lua_open_math(lua_State *L, int methods);     /* pointwise, reductions, BLAS */
void th_lua_open_lapack(lua_State *L, int methods);   /* gesv, svd, qr, ...: th_lapack.h */
void th_lua_open_index(lua_State *L, int methods);    /* index, gather, scatter, masks, sort, cat */
void th_lua_open_random(lua_State *L, int C, int methods);
void th_lua_open_serialize(lua_State *L, int C);
void th_lua_open_nn(lua_State *L, int C);
void th_lua_open_nn_layers(lua_State *L, int C);  /* pointwise layers; called by th_lua_open_nn */
void th_lua_open_plan(lua_State *L, int C);
void th_lua_open_sys(lua_State *L, int C);            /* threads, memory stats, timers */
void th_lua_open_gemm(lua_State *L, int C);           /* gemm_backend, sgemm: th_gemm.h */
void th_lua_open_cpuinfo(lua_State *L, int C);        /* cpuInfo: th_cpuinfo.h */
void th_lua_open_readline(lua_State *L, int C);       /* the th session's line editor, Ctrl-C */
void th_lua_open_scope(lua_State *L, int C);          /* dispose scopes, memory categories */
void th_lua_open_image(lua_State *L, int C);          /* image codecs and kernels: C.image */

/* --- dispose scopes (th_lua_scope.c) --- */
/* binding-level tensor flag (the core's flags, th_tensor.h, use the low byte):
   freed by a dispose scope, so a later use can say who freed it */
#define TH_LUA_TENSOR_DISPOSED 0x100u
extern int th_lua_scope_nopen;     /* open scopes: 0 makes th_lua_newtensor skip registering */
extern int th_lua_scope_npending;  /* registrations whose storage category is not settled */
/* registers the new tensor at idx with the running coroutine's innermost scope, if any */
void th_lua_scope_register(lua_State *L, int idx);
/* labels the storages of tensors registered since the last call 'scoped' */
void th_lua_scope_sync(lua_State *L);

/* registers l into the methods table at index 'methods' (an absolute index
   to a table that init.c copies into every tensor metatable) */
void th_lua_register(lua_State *L, int methods, const luaL_Reg *l);

#endif
