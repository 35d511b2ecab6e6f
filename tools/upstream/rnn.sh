#!/bin/sh
# Element-Research/rnn's rnn.test(), with dpnn and torchx from $UPSTREAM
. "$(dirname "$0")/lib.sh"
t=$(tree rnn="$1" dpnn="$UPSTREAM/dpnn:testflat" torchx="$UPSTREAM/torchx:testflat")
LUA_PATH="$t/?.lua;$t/?/init.lua;${LUA_PATH:-;}" tester "rnn rnn.test()" "$TH" -e "require 'rnn'; rnn.test()"
rm -rf "$t"; exit $SUITE_FAILED
