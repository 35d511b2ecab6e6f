#!/bin/sh
# torch/image's own test/test.lua (image.test()), unchanged, laid out as its
# CMakeLists installs it: test.lua beside the assets folder
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
ln -s "$1/assets" "$work/assets" && cp "$1"/test/*.lua "$work/" && cd "$work" || exit 1
tester "image test/test.lua" "$TH" -e "require 'image'; dofile('test.lua'); image.test()"
rm -rf "$work"
exit $SUITE_FAILED
