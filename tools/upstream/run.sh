#!/bin/sh
# tools/upstream/run.sh [name...]: runs each tools/upstream/<name>.sh (all of
# them when no name is given) against the checkout $UPSTREAM/<name>, from the
# source tree's root with the engine's paths (bin/th). Prints one line per
# suite (passed, FAILED, or skipped when the checkout is absent) and exits
# non-zero when a suite failed.
cd "$(dirname "$0")/../.."
: "${UPSTREAM:?UPSTREAM must name the folder of upstream checkouts}"
export UPSTREAM
names="$*"
[ -n "$names" ] || names=$(ls tools/upstream/*.sh | xargs -n1 basename | sed 's/\.sh$//' | grep -v '^run$')
status=0
for n in $names; do
  script=tools/upstream/$n.sh
  [ -f "$script" ] || { echo "upstream: no suite named $n ($script)"; status=1; continue; }
  if [ ! -d "$UPSTREAM/$n" ]; then echo "upstream: $n: skipped ($UPSTREAM/$n is absent)"; continue; fi
  log=$(mktemp)
  if sh "$script" "$UPSTREAM/$n" >"$log" 2>&1; then echo "upstream: $n: passed"
  else echo "upstream: $n: FAILED"; tail -n 30 "$log"; status=1; fi
  rm -f "$log"
done
exit $status
