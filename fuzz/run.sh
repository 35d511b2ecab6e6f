#!/bin/sh
# fuzz/run.sh SECONDS TARGET...: what `make fuzz` runs, from the repository root.
# Runs each harness build-fuzz/fuzz_<target> for SECONDS in libFuzzer's fork
# mode with crashes, timeouts and out-of-memory runs ignored, so a finding
# does not end the run: every harness gets its time. Each finding is saved
# in build-fuzz/findings/<target>/ (crash-*, timeout-*, oom-*, leak-*), the
# log in build-fuzz/fuzz-<target>.log. Prints a table (harness, seconds,
# runs, exec/s, coverage, corpus, findings) and exits 1 if any harness found
# something. Corpora: fuzz/corpus-<target>/ (grown), plus the saved
# regressions fuzz/regressions/<target>/ (read only).
set -u
secs=$1
shift
root=$(pwd)
summary=build-fuzz/fuzz-summary.txt
found=0
printf '%-10s %8s %10s %8s %8s %8s %9s\n' harness seconds runs exec/s cov corpus findings > "$summary"
for t in "$@"; do
  out=build-fuzz/findings/$t
  log=build-fuzz/fuzz-$t.log
  mkdir -p "$out" "fuzz/corpus-$t" "fuzz/regressions/$t"
  before=$(ls "$out" | wc -l)
  echo "fuzz_$t: $secs s (log: $log)"
  start=$(date +%s)
  # the harnesses run in build-fuzz/ so libFuzzer's temporary files land there
  ( cd build-fuzz && OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 ASAN_OPTIONS=detect_leaks=1 \
      ./fuzz_$t -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -max_total_time="$secs" -max_len=4096 -rss_limit_mb=2048 -timeout=25 \
        -artifact_prefix="$root/$out/" "$root/fuzz/corpus-$t" "$root/fuzz/regressions/$t" ) > "$log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  # fork mode's status lines: "#RUNS: cov: C ft: F corp: N exec/s E oom/timeout/crash: ..."
  last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -n 1)
  runs=$(echo "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
  cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
  corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
  n=$(( $(ls "$out" | wc -l) - before ))
  eps=0
  [ "$took" -gt 0 ] && [ -n "$runs" ] && eps=$(( runs / took ))
  [ "$rc" -ne 0 ] && [ "$n" -eq 0 ] && n="rc=$rc"
  printf '%-10s %8s %10s %8s %8s %8s %9s\n' "$t" "$took" "${runs:-0}" "$eps" "${cov:-?}" "${corp:-?}" "$n" >> "$summary"
  [ "$n" != 0 ] && found=1
done
echo
cat "$summary"
if [ "$found" -ne 0 ]; then
  echo "fuzz: findings in build-fuzz/findings/ (replay one: build-fuzz/fuzz_<harness> FILE)"
  exit 1
fi
