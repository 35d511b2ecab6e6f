# tools/upstream/lib.sh: sourced by the suite scripts tools/upstream/<name>.sh.
# TH is the tree's bin/th; ROOT the source tree.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TH="$ROOT/bin/th"
SUITE_FAILED=0

# tree name=dir ...: a temporary folder laid out as luarocks installs packages
# (name/ -> dir), printed; put "$t/?.lua;$t/?/init.lua" on LUA_PATH. A pair
# name=dir:testflat installs as the packages whose CMakeLists add
# test/test.lua to the package's own files (torchx, dpnn): name/test.lua.
tree() {
  t=$(mktemp -d)
  for pair in "$@"; do
    name=${pair%%=*} dir=${pair#*=}
    case "$dir" in
    *:testflat)
      dir=${dir%:testflat}
      mkdir "$t/$name"
      for f in "$dir"/*; do ln -s "$f" "$t/$name/$(basename "$f")"; done
      [ -f "$dir/test/test.lua" ] && ln -s "$dir/test/test.lua" "$t/$name/test.lua" ;;
    *) ln -s "$dir" "$t/$name" ;;
    esac
  done
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
