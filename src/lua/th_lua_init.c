/*
** th_lua_init.c: luaopen_torch_core, the C module behind require 'torch'.
** It builds one methods table from every binding file, then gives each
** tensor type its own metatable holding those methods (the functions
** dispatch on dtype themselves), as Torch7 keeps methods in metatables.
*/
#include "th_lua.h"

int th_lua_tensor_new(lua_State *L);
int luaopen_torch_core(lua_State *L);

/* the __call of a constructor table (torch.FloatTensor(2, 3)): the table,
   argument 1, becomes the dtype the constructor f takes there. Being the
   metamethod itself, f's errors point at the caller's line, not at a Lua
   wrapper inside lua/torch/init.lua. */
static int ctor_call(lua_State *L) {
  lua_CFunction f = lua_tocfunction(L, lua_upvalueindex(2));
  lua_settop(L, lua_gettop(L) < 1 ? 1 : lua_gettop(L));
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_replace(L, 1);
  return f(L);
}

/* x.new(...) / torch.FloatTensor.new(...): the same constructor with the
   dtype put before the arguments (no table to replace) */
static int ctor_plain(lua_State *L) {
  lua_CFunction f = lua_tocfunction(L, lua_upvalueindex(2));
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  return f(L);
}

/* C.constructor(dtype, C.newTensor | C.newStorage [, plain]) -> that
   __call, or (plain) the 'new' function */
static int ctor_new(lua_State *L) {
  int plain = lua_toboolean(L, 3);
  luaL_checkinteger(L, 1);
  if (lua_tocfunction(L, 2) == NULL) return luaL_argerror(L, 2, "C function expected");
  lua_settop(L, 2);
  lua_pushcclosure(L, plain ? ctor_plain : ctor_call, 2);
  return 1;
}

int luaopen_torch_core(lua_State *L) {
  int C, methods, dt;
  lua_newtable(L);
  C = lua_gettop(L);
  lua_newtable(L);
  methods = lua_gettop(L);

  th_lua_open_storage(L, C);
  th_lua_open_tensor(L, methods);
  th_lua_open_math(L, methods);
  th_lua_open_lapack(L, methods);  /* after math: adds to its __math table */
  th_lua_open_index(L, methods);
  th_lua_open_random(L, C, methods);
  th_lua_open_serialize(L, C);
  th_lua_open_nn(L, C);
  th_lua_open_plan(L, C);
  th_lua_open_sys(L, C);
  th_lua_open_gemm(L, C);
  th_lua_open_cpuinfo(L, C);
  th_lua_open_readline(L, C);
  th_lua_open_image(L, C);
  th_lua_open_scope(L, C);  /* after storage: adds storage methods */

  lua_newtable(L);  /* C.tensorMetatables[dtype name] */
  for (dt = 0; dt < TH_NDTYPES; dt++) {
    luaL_newmetatable(L, th_lua_tensor_mt[dt]);
    lua_pushnil(L);
    while (lua_next(L, methods)) {
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_rawset(L, -4);
    }
    lua_pushstring(L, th_lua_tensor_mt[dt]);
    lua_setfield(L, -2, "__typename");
    lua_pushinteger(L, dt);
    lua_setfield(L, -2, "__dtype");
    lua_setfield(L, -2, th_dtype_name[dt]);
  }
  lua_setfield(L, C, "tensorMetatables");

  lua_newtable(L);  /* C.storageMetatables[dtype name] */
  for (dt = 0; dt < TH_NDTYPES; dt++) {
    luaL_getmetatable(L, th_lua_storage_mt[dt]);
    lua_pushinteger(L, dt);
    lua_setfield(L, -2, "__dtype");
    lua_setfield(L, -2, th_dtype_name[dt]);
  }
  lua_setfield(L, C, "storageMetatables");

  lua_newtable(L);  /* C.dtypes[name] = index */
  for (dt = 0; dt < TH_NDTYPES; dt++) {
    lua_pushinteger(L, dt);
    lua_setfield(L, -2, th_dtype_name[dt]);
  }
  lua_setfield(L, C, "dtypes");

  /* C.dtypeNames = {'Byte', 'Char', ...} in dtype order: the Lua files
     build their per-type tables from it and keep no list of their own */
  lua_createtable(L, TH_NDTYPES, 0);
  for (dt = 0; dt < TH_NDTYPES; dt++) {
    lua_pushstring(L, th_dtype_name[dt]);
    lua_rawseti(L, -2, dt + 1);
  }
  lua_setfield(L, C, "dtypeNames");

  lua_newtable(L);  /* C.dtypeSizes[name] = bytes per element */
  for (dt = 0; dt < TH_NDTYPES; dt++) {
    lua_pushinteger(L, (lua_Integer)th_dtype_size[dt]);
    lua_setfield(L, -2, th_dtype_name[dt]);
  }
  lua_setfield(L, C, "dtypeSizes");

  lua_newtable(L);  /* C.dtypeFloating[name] = true | false (Half too) */
  for (dt = 0; dt < TH_NDTYPES; dt++) {
    lua_pushboolean(L, TH_IS_FLOATING(dt) || !th_dtype_kernels[dt]);
    lua_setfield(L, -2, th_dtype_name[dt]);
  }
  lua_setfield(L, C, "dtypeFloating");

  lua_pushcfunction(L, th_lua_tensor_new);
  lua_setfield(L, C, "newTensor");
  lua_pushcfunction(L, ctor_new);
  lua_setfield(L, C, "constructor");
  lua_pushvalue(L, methods);
  lua_setfield(L, C, "methods");
  lua_settop(L, C);
  return 1;
}
