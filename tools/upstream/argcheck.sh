#!/bin/sh
# tools/upstream/argcheck.sh DIR: runs torch/argcheck's own test (DIR/test/
# test.lua, unchanged) with bin/th against lua/argcheck. The test is one
# script of asserts; a prelude counts them (a failed assert is reported
# with its line and the run goes on), and the run prints
# 'argcheck upstream: N/M asserts passed' and exits non-zero unless every
# assert passed and the script reached its end ('PASSED').
set -e
dir=${1:?usage: argcheck.sh <argcheck checkout>}
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/prelude.lua" <<'LUA'
local total, failed = 0, {}
local realAssert = assert
function assert(v, ...)
  total = total + 1
  if not v then
    local info = debug.getinfo(2, 'Sl')
    failed[#failed + 1] = string.format('%s:%d', info.short_src, info.currentline)
    return v, ...
  end
  return v, ...
end
local script = realAssert(arg[1], 'test script expected')
local ok, err = pcall(dofile, script)
print(string.format('argcheck upstream: %d/%d asserts passed%s', total - #failed, total,
                    ok and '' or ' (the script stopped: ' .. tostring(err) .. ')'))
for _, where in ipairs(failed) do print('  failed: ' .. where) end
if not ok or #failed > 0 then os.exit(1) end
LUA
# the test runs from its own folder, as upstream's did; the checkout's own
# argcheck/*.lua are never on the path (require finds lua/argcheck)
root=$(pwd)
cd "$dir/test"
"$root/bin/th" "$tmp/prelude.lua" "$dir/test/test.lua"
