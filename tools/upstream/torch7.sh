#!/bin/sh
# torch/torch7's own test/test.lua (torch.test()), unchanged
. "$(dirname "$0")/lib.sh"
cd "$1/test" || exit 1
tester "torch7 test/test.lua" "$TH" -e "dofile('test.lua'); torch.test()"
exit $SUITE_FAILED
