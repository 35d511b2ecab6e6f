#!/bin/sh
# torchnet/torchnet's test/test.lua
. "$(dirname "$0")/lib.sh"
t=$(tree torchnet="$1")
cd "$1" && LUA_PATH="$t/?.lua;$t/?/init.lua;${LUA_PATH:-;}" tester "torchnet test/test.lua" "$TH" test/test.lua
rm -rf "$t"; exit $SUITE_FAILED
