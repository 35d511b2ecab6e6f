#!/bin/sh
# twitter/torch-autograd's test/test.lua (the package is its src/ folder)
. "$(dirname "$0")/lib.sh"
t=$(tree autograd="$1/src")
cd "$1" && LUA_PATH="$t/?.lua;$t/?/init.lua;${LUA_PATH:-;}" tester "autograd test/test.lua" "$TH" test/test.lua
rm -rf "$t"; exit $SUITE_FAILED
