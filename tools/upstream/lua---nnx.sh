#!/bin/sh
# tools/upstream/lua---nnx.sh CHECKOUT: runs nnx's own test file
# (CHECKOUT/test/test-all.lua, unchanged) with bin/th and our lua/nnx:
# require 'nnx', dofile the file (it defines nnx.test), nnx.test().
# Every test runs; the script fails when a test outside the known list
# below fails. Known failures (docs/nnx.md says more):
#   TreeNLLCriterion  feeds a 5x10 input and compares a 5-element gradInput
#                     with a 5x10 one: it relied on an old nn.Mean; ours
#                     takes the 1D log-likelihoods SoftMaxTree outputs
#   SoftMaxTree       its accUpdate part compares a module that ran forward
#                     again (inside "if dpnn loads") with one that did not;
#                     it passes when dpnn's sharedClone is available
# nnx.test() seeds math.random with os.time(), and two of its tests fail
# by construction for some seeds, on Torch7 too: SpatialDownSampling draws
# ratios larger than the image (about 1 run in 6), SpatialReSampling_2
# image sizes below 1. The script pins the seed (3) instead: the file is
# still run unchanged.
set -u
dir=${1:?usage: lua---nnx.sh CHECKOUT}
cd "$(dirname "$0")/../.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
bin/th -e "require 'nnx'; dofile('$dir/test/test-all.lua'); math.randomseed(3); torch.manualSeed(3)
  local seed = math.randomseed; math.randomseed = function() end
  local ok, err = pcall(nnx.test); math.randomseed = seed; if not ok then error(err, 0) end" >"$log" 2>&1
grep -E '^[0-9]+/[0-9]+ |^Completed' "$log"
known='TreeNLLCriterion SoftMaxTree'
total=$(grep -cE '^[0-9]+/[0-9]+ ' "$log")
passed=$(grep -cE '^[0-9]+/[0-9]+ .*\[PASS\]' "$log")
echo "lua---nnx: $passed/$total tests pass"
status=0
[ "$total" -gt 0 ] || { cat "$log"; status=1; }
for t in $(grep -E '^[0-9]+/[0-9]+ .*\[(FAIL|ERROR)\]' "$log" | awk '{print $2}'); do
  case " $known " in
    *" $t "*) echo "known failure: $t" ;;
    *) echo "UNEXPECTED failure: $t"; status=1 ;;
  esac
done
[ $status = 0 ] || sed -n '/^----/,$p' "$log" | head -80
exit $status
