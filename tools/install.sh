#!/bin/sh
# tools/install.sh install|uninstall: what `make install` and `make uninstall`
# do (the Makefile passes the directories). Install copies the Lua modules
# (lua/ and models/) to LUADIR, the C module to LIBDIR/torch/core.so, bin/th
# to BINDIR (marked as installed: it finds PREFIX/share/lua/5.4 and
# PREFIX/lib/lua/5.4 from its own place), tools/*.lua to DATADIR/tools, and
# README.md and docs/ to DOCDIR; it writes every file it put and every
# directory it made to DATADIR/install-manifest.txt. Uninstall removes
# exactly those files, then those directories that are empty.
# Paths in the manifest are final ones; DESTDIR prefixes them on disk.
# Run from the source tree's root.
set -e
: "${PREFIX:?}" "${LUADIR:?}" "${LIBDIR:?}" "${BINDIR:?}" "${DATADIR:?}" "${DOCDIR:?}" "${LIB:?}"
manifest="$DATADIR/install-manifest.txt"

case "$1" in
install)
  list=$(mktemp)
  trap 'rm -f "$list"' EXIT
  # directories an earlier install made stay ours
  [ -f "$DESTDIR$manifest" ] && grep '^d ' "$DESTDIR$manifest" >> "$list" || true
  # makes a directory and its missing parents, recording each one made
  [ -z "$DESTDIR" ] || mkdir -p "$DESTDIR"   # the staging root is not ours to remove
  mkdirs() {
    [ -d "$DESTDIR$1" ] || [ "$1" = / ] || [ "$1" = . ] && return 0
    mkdirs "$(dirname "$1")"
    mkdir "$DESTDIR$1"
    echo "d $1" >> "$list"
  }
  put() {  # put mode source destination
    mkdirs "$(dirname "$3")"
    install -m "$1" "$2" "$DESTDIR$3"
    echo "f $3" >> "$list"
  }
  # putall mode srcdir destdir files...: one install per run of files in
  # the same directory (one per file costs seconds)
  putall() {
    mode=$1 src=$2 dst=$3
    shift 3
    group='' gdir=''
    for f in "$@" ''; do
      case "$f" in */*) d=${f%/*} ;; *) d=. ;; esac
      if [ -n "$group" ] && { [ -z "$f" ] || [ "$d" != "$gdir" ]; }; then
        sub=${gdir#./}
        [ "$gdir" = . ] && sub=''
        mkdirs "$dst${sub:+/$sub}"
        # shellcheck disable=SC2086 (file names without spaces: the tree's own)
        install -m "$mode" $group "$DESTDIR$dst${sub:+/$sub}"
        group=''
      fi
      [ -z "$f" ] && break
      group="$group $src/$f" gdir=$d
      echo "f $dst/${f#./}" >> "$list"
    done
  }
  # shellcheck disable=SC2046
  putall 644 lua "$LUADIR" $(cd lua && find . -name '*.lua' | sort)
  putall 644 . "$LUADIR" models/*.lua
  put 755 "$LIB" "$LIBDIR/torch/core.so"
  # the MPI module, built only where Open MPI is (found next to torch/core.so)
  if [ -n "${MPI_LIB:-}" ] && [ -f "$MPI_LIB" ]; then put 755 "$MPI_LIB" "$LIBDIR/mpi/core.so"; fi
  mkdirs "$BINDIR"
  sed 's|^TH_INSTALLED=.*|TH_INSTALLED=1|' bin/th > "$DESTDIR$BINDIR/th"
  chmod 755 "$DESTDIR$BINDIR/th"
  echo "f $BINDIR/th" >> "$list"
  putall 644 . "$DATADIR" tools/*.lua
  put 644 README.md "$DOCDIR/README.md"
  putall 644 docs "$DOCDIR" $(cd docs && ls *.md img/* dev/*.md)
  mkdirs "$DATADIR"
  sort -u "$list" > "$DESTDIR$manifest"
  echo "f $manifest" >> "$DESTDIR$manifest"
  echo "installed $(grep -c '^f ' "$DESTDIR$manifest") files under $DESTDIR$PREFIX (list: $DESTDIR$manifest)"
  ;;
uninstall)
  if [ ! -f "$DESTDIR$manifest" ]; then
    echo "uninstall: no $DESTDIR$manifest (nothing installed under this PREFIX/DATADIR)" >&2
    exit 1
  fi
  # read the whole list first: the manifest is one of the files
  list=$(cat "$DESTDIR$manifest")
  echo "$list" | sed -n 's/^f //p' | while IFS= read -r f; do rm -f "$DESTDIR$f"; done
  # deepest directories first; one that holds something else stays
  echo "$list" | sed -n 's/^d //p' | awk '{ print length($0) "\t" $0 }' | sort -rn | cut -f2- |
    while IFS= read -r d; do rmdir "$DESTDIR$d" 2>/dev/null || true; done
  echo "uninstalled from $DESTDIR$PREFIX"
  ;;
*)
  echo "usage: tools/install.sh install|uninstall (run by make install / make uninstall)" >&2
  exit 2
  ;;
esac
