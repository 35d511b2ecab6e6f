#!/bin/sh
# torch/demos' profiling/conv-cpu.lua, unchanged (needs nnx)
. "$(dirname "$0")/lib.sh"
cd "$1/profiling" || exit 1
plain "demos profiling/conv-cpu.lua" "$TH" conv-cpu.lua
exit $SUITE_FAILED
