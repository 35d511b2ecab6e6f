#!/bin/sh
# tools/upstream/tds.sh DIR: runs torch/tds's own tests (DIR/test/test_*.lua,
# unchanged) with the engine's bin/th; exits non-zero on the first failure.
# TDS_BENCH=1 also runs its benchmarks (bench-hash.lua, bench-vec.lua: 5M
# and 10M elements, about a minute each); bench-hash-tensor.lua wants 4 GB
# and is left out.
set -e
dir="${1:?usage: tools/upstream/tds.sh <tds checkout>}"
th="$(cd "$(dirname "$0")/../.." && pwd)/bin/th"
n=0
for t in "$dir"/test/test_*.lua; do
  echo "== $t"
  (cd "$dir/test" && "$th" "$t")
  n=$((n + 1))
done
if [ "${TDS_BENCH:-0}" = 1 ]; then
  for b in bench-hash.lua bench-vec.lua; do
    echo "== $dir/test/$b"
    (cd "$dir/test" && "$th" "$b")
  done
fi
echo "tds: $n upstream test files passed"
