#!/bin/sh
# tools/upstream/torch-totem.sh CHECKOUT: runs torch-totem's own test
# scripts (CHECKOUT/tests/test*.lua) unchanged with bin/th and our
# lua/totem. Run from the source tree's root (as tools/upstream/run.sh
# does), never from the checkout: from there Lua's default './?.lua' path
# would load the checkout's totem/*.lua instead of ours. Exits non-zero
# when a script fails (a failed test makes totem.Tester:run raise).
set -u
dir=${1:?usage: torch-totem.sh CHECKOUT}
cd "$(dirname "$0")/../.."
status=0
for t in "$dir"/tests/test*.lua; do
  echo "== $t"
  bin/th "$t" || { echo "FAILED: $t"; status=1; }
done
exit $status
