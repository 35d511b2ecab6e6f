#!/bin/bash
# tools/adversarial.sh [build-dir]: runs tools/adversarial.lua over every
# case, restarting after a crash (the crashing case is reported, with the
# sanitizer's report, and skipped). With build-asan (make test-asan builds
# it) the runs go under ASan + UBSan. About 260,000 cases: 2 min normal,
# 3 min under ASan on the 2-core build machine. Output: $ADV_OUT (default
# /tmp/adversarial): cases.txt (one line per case), crashes.txt.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
out=${ADV_OUT:-/tmp/adversarial}
mkdir -p "$out/scratch"
rm -f "$out/scratch/"*.bin "$out/scratch/nonexist"
head -c 3 /dev/zero > "$out/scratch/small.bin"
: > "$out/scratch/empty.bin"
head -c 800 /dev/zero > "$out/scratch/ro.bin"
chmod 444 "$out/scratch/ro.bin"
export ADV_DIR="$out/scratch"
export LUA_PATH="$here/lua/?.lua;$here/lua/?/init.lua;$here/?.lua;$here/?/init.lua;;"
export LUA_CPATH="$here/$build/?.so;;"
export OPENBLAS_CORETYPE=$("$here/tools/coretype.sh") OMP_WAIT_POLICY=passive OMP_NUM_THREADS=1
if [ "$build" = build-asan ]; then
  export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
  export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
else
  ulimit -v 6000000   # a giant allocation fails here instead of swapping
fi
start=1
: > "$out/cases.txt"; : > "$out/crashes.txt"
while :; do
  ADV_START=$start timeout 900 lua5.4 "$here/tools/adversarial.lua" >> "$out/cases.txt" 2> "$out/stderr.txt"
  rc=$?
  if grep -q '^done' "$out/stderr.txt"; then grep '^total\|^done' "$out/stderr.txt"; break; fi
  last=$(grep '^@' "$out/stderr.txt" | tail -1)
  echo "CRASH rc=$rc $last" | tee -a "$out/crashes.txt"
  grep -v '^@' "$out/stderr.txt" | head -40 >> "$out/crashes.txt"
  n=${last#@}; n=${n%% *}
  [ -z "$n" ] && break
  start=$((n + 1))
done
echo "crashes: $(grep -c '^CRASH' "$out/crashes.txt")"
