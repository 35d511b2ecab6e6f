#!/bin/sh
# torch/nngraph's own test/test_*.lua (they use totem), against our nngraph,
# run from the checkout's test folder.
. "$(dirname "$0")/lib.sh"
cd "$1/test" || exit 1
for f in test_*.lua; do
  case "$f" in
  test_old.lua) plain "nngraph $f" "$TH" "$f" ;;   # a script, not a Tester: its exit status says
  *) tester "nngraph $f" "$TH" "$f" ;;
  esac
done
exit $SUITE_FAILED
