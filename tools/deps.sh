#!/bin/sh
# Installs the Debian packages the project needs, only those missing.
# Usage: tools/deps.sh [extra packages...]   (idempotent; quiet when all are there)
set -e
need="gcc make lua5.4 liblua5.4-dev libopenblas-dev lua-busted libreadline-dev pkg-config lua-filesystem lua-penlight libpng-dev libjpeg62-turbo-dev tmux luarocks openmpi-bin libopenmpi-dev $*"
missing=""
for p in $need; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
