#!/bin/sh
# torch/nngraph's own test/test_*.lua (they use totem), against our nngraph,
# run from the checkout's test folder.
. "$(dirname "$0")/lib.sh"
cd "$1/test" || exit 1
for f in test_*.lua; do tester "nngraph $f" "$TH" "$f"; done
exit $SUITE_FAILED
