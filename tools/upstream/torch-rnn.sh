#!/bin/sh
# jcjohnson/torch-rnn's test/*_test.lua, run from the checkout $1 as its README
# says (th test/X_test.lua from the top folder).
. "$(dirname "$0")/lib.sh"
# its utils read JSON with cjson (a user installs lua-cjson beside it)
"$ROOT/tools/deps.sh" lua-cjson || exit 1
# two test files require cutorch and cunn unconditionally: the CPU stand-ins
export TH_CUDA_STANDIN=1
cd "$1" || exit 1
for f in test/*_test.lua; do
  LUA_PATH="./?.lua;${LUA_PATH:-;}" tester "torch-rnn $f" "$TH" "$f"
done
exit $SUITE_FAILED
