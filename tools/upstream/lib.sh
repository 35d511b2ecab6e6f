# tools/upstream/lib.sh: sourced by the suite scripts tools/upstream/<name>.sh.
# TH is the tree's bin/th; ROOT the source tree.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TH="$ROOT/bin/th"
SUITE_FAILED=0

# tree name=dir ...: a temporary folder laid out as luarocks installs packages
# (name/ -> dir), printed; put "$t/?.lua;$t/?/init.lua" on LUA_PATH.
tree() {
  t=$(mktemp -d)
  for pair in "$@"; do ln -s "${pair#*=}" "$t/${pair%%=*}"; done
  echo "$t"
}

# tester label command...: runs a torch.Tester script; it passes when it exits 0
# and prints a Tester summary with 0 failures and 0 errors. Counts the failure.
tester() {
  label=$1; shift
  out=$("$@" 2>&1); rc=$?
  echo "$out" | tail -n 15
  if [ $rc -eq 0 ] && echo "$out" | grep -q 'with 0 failures and 0 errors'; then
    echo "upstream-suite: $label: passed"
  else
    echo "upstream-suite: $label: FAILED (exit $rc)"; SUITE_FAILED=$((SUITE_FAILED + 1))
  fi
}

# plain label command...: a script that signals failure by its exit status only
plain() {
  label=$1; shift
  out=$("$@" 2>&1); rc=$?
  echo "$out" | tail -n 15
  if [ $rc -eq 0 ]; then echo "upstream-suite: $label: passed"
  else echo "upstream-suite: $label: FAILED (exit $rc)"; SUITE_FAILED=$((SUITE_FAILED + 1)); fi
}
