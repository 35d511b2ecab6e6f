#!/bin/sh
# Element-Research/rnn's rnn.test(), with dpnn and torchx from $UPSTREAM
. "$(dirname "$0")/lib.sh"
t=$(tree rnn="$1" dpnn="$UPSTREAM/dpnn:testflat" torchx="$UPSTREAM/torchx:testflat")
# its tests read inner modules' gradInputs after backward (the LSTM test's
# dropout2.gradInput), which Torch7 kept and our containers release
# (docs/nn.md, "gradInputs after backward"): Torch7's behaviour for the suite
LUA_PATH="$t/?.lua;$t/?/init.lua;${LUA_PATH:-;}" tester "rnn rnn.test()" "$TH" -e "require 'nn'; nn.keepGradInputs(true); require 'rnn'; rnn.test()"
rm -rf "$t"; exit $SUITE_FAILED
