#!/bin/sh
# fmassa/optimize-net's example.lua (OptNet's own example) against our optnet,
# unchanged, from a copy (it writes its graphs next to itself)
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
cp -r "$1"/. "$work/" && cd "$work" || exit 1
plain "optimize-net example.lua" "$TH" example.lua
rm -rf "$work"
exit $SUITE_FAILED
