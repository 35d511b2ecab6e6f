#!/usr/bin/env bash
# Runs busted spec files in parallel: JOBS busted processes (default: nproc)
# take files one at a time from one list, longest first, so the last file to
# start is a short one and the cores finish together. At the end: every
# pending, failure and error as busted prints them (file, test, message,
# traceback), then ONE line in busted's format, summed over the files:
#   N successes / N failures / N errors / N pending : S seconds
# and the exit status is non-zero when anything failed.
#
#   tools/spectest.sh [busted options] -- path...
#
# path: spec files or directories (their *_spec.lua files). One file, or
# JOBS=1, runs one plain busted over the paths, exactly as busted alone does.
# Environment:
#   SPEC_BUSTED   the busted command (default: lua5.4 /usr/bin/busted)
#   JOBS          processes (default: nproc)
#   SPEC_ALONE    files run after the others, one at a time (whole machine)
#   SPEC_TIMES    committed table "seconds file" ordering the list
#                 (default tools/spec_times.txt); a file missing from it is
#                 placed by its size at the table's seconds per byte
#   SPEC_TIMES_LOCAL  this build's table, measured by the last run here:
#                 read first, then rewritten with this run's times
#   SPEC_TIMEOUT  seconds one file may take (default 1800): then it is
#                 killed and counted as an error
set -u
here=$(cd "$(dirname "$0")" && pwd)
export SUMMARY_RE='^[0-9]+ success(es)? / [0-9]+ failures? / [0-9]+ errors? / [0-9]+ pending : [0-9.]+ seconds$'
: "${SPEC_TIMEOUT:=1800}"
export SPEC_TIMEOUT
self="$here/$(basename "$0")"

# --- one file (a worker's job; xargs appends the file to the busted
# options): busted's plain output into the log, "seconds exit-status" into
# the .res file, and a progress line
if [ "${1:-}" = "--one" ]; then
  shift
  opts=("${@:1:$#-1}")
  file=${!#}
  key=$(printf '%s' "$file" | tr '/' '_')
  log="$SPEC_LOGDIR/$key.log"
  start=$(date +%s.%N)
  # --foreground: busted stays in the terminal's process group (Ctrl-C)
  # shellcheck disable=SC2086  # SPEC_BUSTED is a command line
  timeout --foreground -k 10 "$SPEC_TIMEOUT" $SPEC_BUSTED --output=plainTerminal --verbose "${opts[@]}" "$file" >"$log" 2>&1 </dev/null
  rc=$?
  [ -d "$SPEC_LOGDIR" ] || exit 130  # the run was interrupted (Ctrl-C)
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  echo "$secs $rc" >"$SPEC_LOGDIR/$key.res"
  line=$(grep -aE "$SUMMARY_RE" "$log" | tail -n 1)
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    what="TIMED OUT after $SPEC_TIMEOUT s"
  elif [ -n "$line" ] && [ "$rc" -eq 0 ]; then
    what="ok, $(echo "$line" | awk '{ print $1 }') successes"
  elif [ -n "$line" ]; then
    what="FAILED ($(echo "$line" | awk '{ print $4 " failures, " $7 " errors" }'), exit status $rc)"
  else
    what="FAILED (exit status $rc, no summary)"
  fi
  n=$({ flock 9; echo "$file" >>"$SPEC_LOGDIR/done"; wc -l <"$SPEC_LOGDIR/done"; } 9>"$SPEC_LOGDIR/lock")
  printf '[%3d/%d] %7.1f s  %s: %s\n' "$n" "$SPEC_NFILES" "$secs" "$file" "$what"
  exit 0
fi

# --- the command line: busted options, then -- and the paths
bargs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do bargs+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ $# -eq 0 ] && set -- spec
: "${SPEC_BUSTED:=lua5.4 /usr/bin/busted}"
jobs=${JOBS:-$(nproc)}

files=()
for p in "$@"; do
  if [ -d "$p" ]; then
    while IFS= read -r f; do files+=("$f"); done < <(find "$p" -name '*_spec.lua' -type f | LC_ALL=C sort)
  else
    files+=("$p")
  fi
done

if [ "${#files[@]}" -le 1 ] || [ "$jobs" -le 1 ]; then
  # shellcheck disable=SC2086
  exec $SPEC_BUSTED "${bargs[@]}" "$@"
fi

# --- the list, longest first; SPEC_ALONE's files after it, one at a time
alone=" ${SPEC_ALONE:-} "
parallel=()
serial=()
for f in "${files[@]}"; do
  if [[ "$alone" == *" $f "* ]]; then serial+=("$f"); else parallel+=("$f"); fi
done
times_committed=${SPEC_TIMES:-$here/spec_times.txt}
times_local=${SPEC_TIMES_LOCAL:-}
order() {  # order file...: the files, longest expected time first
  for f in "$@"; do printf '%s %s\n' "$(stat -c %s "$f" 2>/dev/null || echo 0)" "$f"; done |
    awk -v lt="$times_local" -v ct="$times_committed" '
      BEGIN {
        for (k = 0; k < 2; k++) {
          t = k == 0 ? lt : ct
          if (t == "") continue
          while ((getline line < t) > 0) {
            if (line ~ /^#/) continue
            split(line, a, " ")
            if (a[2] != "" && !(a[2] in secs)) secs[a[2]] = a[1] + 0
          }
          close(t)
        }
      }
      { size[$2] = $1; names[++n] = $2
        if ($2 in secs) { known_s += secs[$2]; known_b += $1 } }
      END {
        rate = known_b > 0 ? known_s / known_b : 1
        for (i = 1; i <= n; i++) {
          f = names[i]
          printf "%.3f %s\n", (f in secs) ? secs[f] : size[f] * rate, f
        }
      }' | sort -k1,1gr -k2,2 | awk '{ print $2 }'
}

SPEC_LOGDIR=$(mktemp -d "${TMPDIR:-/tmp}/spectest.XXXXXX")
trap 'rm -rf "$SPEC_LOGDIR"; exit 130' INT TERM
export SPEC_LOGDIR SPEC_BUSTED SPEC_NFILES=${#files[@]}
started=$(date +%s.%N)
echo "spectest: ${#files[@]} spec files on $jobs busted processes, longest first" \
     "(${#serial[@]} alone at the end)"
if [ "${#parallel[@]}" -gt 0 ]; then
  order "${parallel[@]}" | tr '\n' '\0' | xargs -0 -r -n 1 -P "$jobs" "$self" --one "${bargs[@]}"
fi
for f in "${serial[@]}"; do
  "$self" --one "${bargs[@]}" "$f"
done
wall=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')

# --- this run's times into the build's table (entries of other files kept)
if [ -n "$times_local" ]; then
  {
    for f in "${files[@]}"; do
      key=$(printf '%s' "$f" | tr '/' '_')
      [ -f "$SPEC_LOGDIR/$key.res" ] && echo "$(awk '{ print $1 }' "$SPEC_LOGDIR/$key.res") $f"
    done
    [ -f "$times_local" ] && cat "$times_local"
  } | awk '!seen[$2]++' | sort -k2,2 >"$SPEC_LOGDIR/times" && cp "$SPEC_LOGDIR/times" "$times_local"
fi

# --- every file's pendings, failures and errors as busted printed them,
# grouped as busted groups them, then the one summary line. A file whose
# busted ended without its summary, or with a non-zero status its counts do
# not explain (a crash, a sanitizer report, the timeout), is one error,
# shown with the end of its output.
for f in "${files[@]}"; do
  key=$(printf '%s' "$f" | tr '/' '_')
  printf '%s\t%s\t%s\n' "$f" "$SPEC_LOGDIR/$key.log" "$(cat "$SPEC_LOGDIR/$key.res" 2>/dev/null || echo '0 255')"
done | awk -F '\t' -v re="$SUMMARY_RE" -v limit="$SPEC_TIMEOUT" '
  function add(c, b) {  # one block, its trailing blank lines dropped
    if (c == "") return
    sub(/\n+$/, "\n", b)
    block[c] = block[c] "\n" b
  }
  function tail_of(lg, from,   n, i, line, out) {
    n = 0
    while ((getline line < lg) > 0) { n++; keep[n] = line }
    close(lg)
    out = ""
    for (i = (n - 60 > from ? n - 60 : from) + 1; i <= n; i++) out = out "\n" keep[i]
    return out
  }
  {
    file = $1; lg = $2; split($3, r, " "); rc = r[2] + 0
    last = 0; n = 0
    while ((getline line < lg) > 0) { n++; text[n] = line; if (line ~ re) last = n }
    close(lg)
    if (last > 0) {
      split(text[last], w, " ")
      s += w[1]; fl += w[4]; er += w[7]; pe += w[10]; secs += w[13]
      cat = ""; cur = ""
      for (i = last + 1; i <= n; i++) {
        if (text[i - 1] == "" && match(text[i], /^(Pending|Failure|Error) -> /)) {
          add(cat, cur)
          cat = substr(text[i], 1, 1); cur = ""
        }
        if (cat != "") cur = cur text[i] "\n"
      }
      add(cat, cur)
    }
    why = ""
    if (rc == 124 || rc == 137) why = "timed out after " limit " s (SPEC_TIMEOUT)"
    else if (last == 0) why = "busted exited with status " rc " and printed no summary (a crash?)"
    else if (rc != 0 && w[4] + w[7] == 0) why = "busted exited with status " rc " after a summary without failures"
    if (why != "") {
      er++
      block["E"] = block["E"] "\nError -> " file "\n" why "; the end of its output:" tail_of(lg, last) "\n"
    }
  }
  END {
    printf "%s%s%s", block["P"], block["F"], block["E"]
    t = sprintf("%.6f", secs); sub(/0+$/, "", t); sub(/\.$/, ".0", t)
    printf "%d %s / %d %s / %d %s / %d pending : %s seconds\n",
      s, s == 1 ? "success" : "successes", fl, fl == 1 ? "failure" : "failures",
      er, er == 1 ? "error" : "errors", pe, t
    exit (fl + er > 0) ? 1 : 0
  }' >"$SPEC_LOGDIR/summary"
status=$?
head -n -1 "$SPEC_LOGDIR/summary"
echo "spectest: ${#files[@]} files in $wall s of wall time on $jobs processes"
[ "$status" -ne 0 ] && echo "spectest: each file's whole output is in $SPEC_LOGDIR"
tail -n 1 "$SPEC_LOGDIR/summary"
[ "$status" -eq 0 ] && rm -rf "$SPEC_LOGDIR"
exit "$status"
