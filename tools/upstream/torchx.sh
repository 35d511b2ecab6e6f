#!/bin/sh
# nicholas-leonard/torchx's test/test.lua (torchx.test())
. "$(dirname "$0")/lib.sh"
t=$(tree torchx="$1:testflat")
LUA_PATH="$t/?.lua;$t/?/init.lua;${LUA_PATH:-;}" tester "torchx torchx.test()" "$TH" -e "require 'torchx'; torchx.test()"
rm -rf "$t"; exit $SUITE_FAILED
