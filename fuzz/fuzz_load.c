/*
** fuzz_load.c: libFuzzer harness for torch.load's parser (and, with
** another FUZZ_DRIVER, for the ascii reader alone or for loaded nets).
** One Lua state with torch and nn loaded (the C module linked in, so its
** serialization helpers are instrumented) runs fuzz/load_driver.lua's
** function on every input: the first byte picks binary or ascii mode, the
** rest goes through torch.deserialize, which is torch.load without the
** disk. The driver aborts on anything but a clean "torch.deserialize: "
** error or a usable object (it reads every element of loaded tensors).
** Most of the parser is Lua, which libFuzzer's compile-time coverage does
** not see: a line hook maps each executed (chunk, line) pair to a counter
** in the extra-counters section libFuzzer reads, so new Lua paths count
** as new coverage too.
*/
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../src/tensor/th_alloc.h"

#ifndef FUZZ_ROOT
#error "FUZZ_ROOT must name the source tree"
#endif
/* the Lua program run on each input (relative to FUZZ_ROOT): the Makefile
   builds fuzz_load, fuzz_ascii and fuzz_modload from this one file */
#ifndef FUZZ_DRIVER
#define FUZZ_DRIVER "fuzz/load_driver.lua"
#endif

int luaopen_torch_core(lua_State *L);
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NCOUNTERS (1 << 14)
__attribute__((section("__libfuzzer_extra_counters"))) static uint8_t lua_lines[NCOUNTERS];

static lua_State *L;
static int driver_ref;

static void line_hook(lua_State *Ls, lua_Debug *ar) {
  uintptr_t h;
  if (!lua_getinfo(Ls, "S", ar)) return;
  /* 'source' strings live as long as their chunk: the pointer is an identity */
  h = (uintptr_t)ar->source * 0x9E3779B97F4A7C15u ^ (uintptr_t)ar->currentline * 0x85EBCA6Bu;
  h ^= h >> 29;
  if (lua_lines[h % NCOUNTERS] < 255) lua_lines[h % NCOUNTERS]++;
}

static void die(const char *what) {
  fprintf(stderr, "fuzz_load: %s: %s\n", what, lua_tostring(L, -1));
  abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  th_alloc_set_limit((size_t)256 << 20);  /* a valid huge request is no finding */
  L = luaL_newstate();
  luaL_openlibs(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, luaopen_torch_core);
  lua_setfield(L, -2, "torch.core");
  lua_pop(L, 1);
  lua_getglobal(L, "package");
  lua_pushstring(L, FUZZ_ROOT "/lua/?.lua;" FUZZ_ROOT "/lua/?/init.lua;" FUZZ_ROOT "/?.lua;" FUZZ_ROOT "/?/init.lua");
  lua_setfield(L, -2, "path");
  lua_pop(L, 1);
  if (luaL_dofile(L, FUZZ_ROOT "/" FUZZ_DRIVER) != LUA_OK) die("loading the driver");
  driver_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_sethook(L, line_hook, LUA_MASKLINE, 0);
  return 0;
}

static int traceback(lua_State *Ls) {
  luaL_traceback(Ls, Ls, lua_tostring(Ls, 1), 1);
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static unsigned runs;
  lua_pushcfunction(L, traceback);
  lua_rawgeti(L, LUA_REGISTRYINDEX, driver_ref);
  lua_pushlstring(L, (const char *)data, size);
  if (lua_pcall(L, 1, 0, -3) != LUA_OK) die("driver failed");
  lua_pop(L, 1);
  /* storages are freed by finalizers: keep the heap from drifting up */
  if (++runs % 64 == 0) lua_gc(L, LUA_GCCOLLECT);
  return 0;
}
