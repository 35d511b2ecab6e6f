#!/bin/sh
# fuzz/optnet/driver.sh FIRST LAST [JOBS [TIMEOUT [OUTDIR]]]
# Runs fuzz/optnet/run.lua on each seed FIRST..LAST in its own process (so a
# crash or hang is one seed's, reported with its signal), JOBS at a time,
# each under `timeout` (TIMEOUT seconds, default 600), outputs in OUTDIR
# (default build/fuzz-optnet/), then prints the summary (summary.lua).
# Exit status 1 when a seed failed (anything but pass and clean refusals).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
first=$1; last=$2; jobs=${3:-2}; limit=${4:-600}; out=${5:-$root/build/fuzz-optnet}
mkdir -p "$out"
rm -f "$out"/seed-*.out "$out"/seed-*.rc "$out"/seed-*.err
seq "$first" "$last" | xargs -P "$jobs" -I{} sh -c '
  s={}; t0=$(date +%s)
  OMP_NUM_THREADS=1 timeout -k 10 '"$limit"' "'"$root"'/bin/th" "'"$here"'/run.lua" $s > "'"$out"'/seed-$s.out" 2> "'"$out"'/seed-$s.err"
  rc=$?; echo "$rc $(( $(date +%s) - t0 ))" > "'"$out"'/seed-$s.rc"'
exec "$root/bin/th" "$here/summary.lua" "$out" "$first" "$last"
