#!/bin/sh
# fmassa/optimize-net (OptNet): its own tests.lua against our optnet, and its
# example.lua, both unchanged, from a copy (example.lua writes its graphs
# next to itself)
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
cp -r "$1"/. "$work/" && cd "$work" || exit 1
# OptNet's tests compare with a plain net's countUsedMemory after a backward:
# Torch7's, which kept every gradInput. Ours releases them (docs/nn.md,
# "gradInputs after backward"); the suite runs with Torch7's behaviour.
tester "optimize-net tests.lua" "$TH" -e "require 'nn'; nn.keepGradInputs(true); local optnet = require 'optnet'; dofile('tests.lua'); optnet.test()"
plain "optimize-net example.lua" "$TH" example.lua
rm -rf "$work"
exit $SUITE_FAILED
