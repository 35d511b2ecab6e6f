-- luarocks make [--tree dir]: builds core.so with the Makefile (target lib,
-- without tools/deps.sh: the Debian packages it lists must be there) and
-- installs with `make install-files` into the rock's directories, which
-- luarocks then moves to TREE/share/lua/5.4, TREE/lib/lua/5.4 and TREE/bin
-- (the layout the installed th looks for). Needs Lua 5.4 and its headers,
-- OpenBLAS, libpng, libjpeg, and GNU readline at run time for the session.
rockspec_format = "3.0"
package = "torch-optnet"
version = "scm-1"
source = {
  url = "git+https://example.invalid/torch-optnet.git",
}
description = {
  summary = "Torch7's torch and nn rebuilt for Lua 5.4 on a C core, with OptNet's memory optimizer",
  detailed = [[
torch (tensors), nn (modules, containers, criterions), optim, nngraph,
optnet (memory sharing planned over a traced net), image, dataset, paths,
sys, xlua, and the th program (session with completion, help and history).]],
  license = "BSD-3-Clause",
}
dependencies = {
  "lua >= 5.4, < 5.5",
  "luafilesystem >= 1.6",   -- lfs: paths, sys, torch's file helpers (Debian: lua-filesystem)
  "penlight >= 1.5",        -- pl: loaded by th's session as trepl did (Debian: lua-penlight)
}
build = {
  type = "make",
  build_target = "lib",
  install_target = "install-files",
  build_variables = {
    LUA = "$(LUA)",
  },
  install_variables = {
    PREFIX = "$(PREFIX)",
    LUADIR = "$(LUADIR)",
    LIBDIR = "$(LIBDIR)",
    BINDIR = "$(BINDIR)",
  },
}
