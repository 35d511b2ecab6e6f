#!/bin/sh
# torchnet/torchnet's test/test.lua
. "$(dirname "$0")/lib.sh"
t=$(tree torchnet="$1")
# torchnet requires two rocks a user installs beside it: 'md5' (luarocks'
# md5: md5.sumhexa, used by tnt.utils.sys.md5 only; Debian's lua-md5 has no
# Lua 5.4 build) and 'threads'. The tests never call md5, so where none is
# installed the harness preloads one that raises when called; 'threads' the
# same, so that only the tests of tnt.ParallelDatasetIterator fail without it.
missing='for _, m in ipairs{"md5", "threads"} do
  if not pcall(require, m) then
    package.preload[m] = function()
      local function absent() error(m .. " is not installed (a rock torchnet requires)", 2) end
      return setmetatable({}, {__index = function() return absent end, __call = absent})
    end
  end
end'
cd "$1" && LUA_PATH="$t/?.lua;$t/?/init.lua;${LUA_PATH:-;}" tester "torchnet test/test.lua" "$TH" -e "$missing" test/test.lua
rm -rf "$t"; exit $SUITE_FAILED
