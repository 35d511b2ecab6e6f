#!/bin/sh
# fmassa/optimize-net (OptNet): its own tests.lua against our optnet, and its
# example.lua, both unchanged, from a copy (example.lua writes its graphs
# next to itself)
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
cp -r "$1"/. "$work/" && cd "$work" || exit 1
tester "optimize-net tests.lua" "$TH" -e "require 'nn'; local optnet = require 'optnet'; dofile('tests.lua'); optnet.test()"
plain "optimize-net example.lua" "$TH" example.lua
rm -rf "$work"
exit $SUITE_FAILED
