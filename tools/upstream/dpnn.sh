#!/bin/sh
# Element-Research/dpnn's dpnn.test()
. "$(dirname "$0")/lib.sh"
t=$(tree dpnn="$1:testflat" torchx="$UPSTREAM/torchx:testflat")
LUA_PATH="$t/?.lua;$t/?/init.lua;${LUA_PATH:-;}" tester "dpnn dpnn.test()" "$TH" -e "require 'dpnn'; dpnn.test()"
rm -rf "$t"; exit $SUITE_FAILED
