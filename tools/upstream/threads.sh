#!/bin/sh
# tools/upstream/threads.sh DIR: torch/threads' own tests (DIR/test/*.lua),
# unchanged, each run by bin/th from a scratch directory with a time limit
# (a hang is a failure). test-threads-safe runs with its default 1000 jobs.
# Prints one line per test and "threads: N/M passed"; non-zero on a failure.
dir=${1:?usage: threads.sh upstream-threads-checkout}
root=$(cd "$(dirname "$0")/../.." && pwd)
th="$root/bin/th"
limit=${THREADS_TEST_TIMEOUT:-300}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0; total=0; status=0
for t in "$dir"/test/*.lua; do
  name=$(basename "$t" .lua)
  total=$((total + 1))
  if (cd "$work" && timeout "$limit" "$th" "$t" >"$work/$name.log" 2>&1); then
    pass=$((pass + 1)); echo "threads: $name: ok"
  else
    rc=$?
    echo "threads: $name: FAILED (exit $rc$([ $rc = 124 ] && echo ', timed out'))"
    tail -n 15 "$work/$name.log"
    status=1
  fi
done
echo "threads: $pass/$total passed"
exit $status
