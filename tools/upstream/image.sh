#!/bin/sh
# torch/image's own test/test.lua (image.test()), unchanged
. "$(dirname "$0")/lib.sh"
cd "$1/test" || exit 1
tester "image test/test.lua" "$TH" -e "require 'image'; dofile('test.lua'); image.test()"
exit $SUITE_FAILED
