#!/bin/sh
# torch/nn's own test.lua (nn.test()), unchanged
. "$(dirname "$0")/lib.sh"
cd "$1" || exit 1
tester "nn test.lua" "$TH" -e "require 'nn'; dofile('test.lua'); nn.test()"
exit $SUITE_FAILED
