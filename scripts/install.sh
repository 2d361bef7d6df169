#!/usr/bin/env bash
# make install / make uninstall (the Makefile passes its settings in the environment):
#   install.sh install    include/reducerkit.h, lib/libreducerkit.so.VERSION (soname
#                         libreducerkit.so.MAJOR) and its two links, lib/pkgconfig/reducerkit.pc,
#                         bin/reducerkit-check (when built), share/reducerkit/valgrind.supp
#   install.sh uninstall  removes those files (directories stay)
# PREFIX (default /usr/local), LIBDIR, INCLUDEDIR, BINDIR, PKGCONFIGDIR, DATADIR: absolute;
# DESTDIR stages. The .pc adds an rpath to LIBDIR unless the loader searches LIBDIR by itself,
# so `cc app.c $(pkg-config --cflags --libs reducerkit)` builds a program that runs as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=${PREFIX:-/usr/local}
LIBDIR=${LIBDIR:-$PREFIX/lib}
INCLUDEDIR=${INCLUDEDIR:-$PREFIX/include}
BINDIR=${BINDIR:-$PREFIX/bin}
PKGCONFIGDIR=${PKGCONFIGDIR:-$LIBDIR/pkgconfig}
DATADIR=${DATADIR:-$PREFIX/share/reducerkit}
DESTDIR=${DESTDIR:-}
LIB=${LIB:-build/libreducerkit.so}
CHECK_RUNNER=${CHECK_RUNNER:-build/reducerkit-check}
VERSION=$(sed -n 's/^#define RK_VERSION_STRING "\(.*\)"/\1/p' include/reducerkit.h)
SONAME=libreducerkit.so.${VERSION%%.*}

for d in "$PREFIX" "$LIBDIR" "$INCLUDEDIR" "$BINDIR" "$PKGCONFIGDIR" "$DATADIR"; do
  case "$d" in
  /*) ;;
  *) echo "error: install paths must be absolute (PREFIX=$PREFIX, LIBDIR=$LIBDIR," \
       "INCLUDEDIR=$INCLUDEDIR, BINDIR=$BINDIR, PKGCONFIGDIR=$PKGCONFIGDIR, DATADIR=$DATADIR):" \
       "'$d' is not" >&2
     exit 2 ;;
  esac
done

case "${1:-}" in
install)
  set -x
  install -d "$DESTDIR$INCLUDEDIR" "$DESTDIR$LIBDIR" "$DESTDIR$PKGCONFIGDIR" "$DESTDIR$DATADIR"
  install -m 644 include/reducerkit.h "$DESTDIR$INCLUDEDIR/reducerkit.h"
  install -m 644 tools/valgrind.supp "$DESTDIR$DATADIR/valgrind.supp"
  # Replaced atomically: a running program may have the old library mapped.
  install -m 755 "$LIB" "$DESTDIR$LIBDIR/.libreducerkit.so.$VERSION.tmp"
  mv -f "$DESTDIR$LIBDIR/.libreducerkit.so.$VERSION.tmp" "$DESTDIR$LIBDIR/libreducerkit.so.$VERSION"
  ln -sfn "libreducerkit.so.$VERSION" "$DESTDIR$LIBDIR/$SONAME"
  ln -sfn "$SONAME" "$DESTDIR$LIBDIR/libreducerkit.so"
  { set +x; } 2>/dev/null
  rpath=' -Wl,-rpath,${libdir}'
  case "$LIBDIR" in
  /lib | /usr/lib | /lib64 | /usr/lib64 | /lib/x86_64-linux-gnu | /usr/lib/x86_64-linux-gnu | \
    /lib/aarch64-linux-gnu | /usr/lib/aarch64-linux-gnu) rpath='' ;;
  esac
  printf '%s\n' "prefix=$PREFIX" "libdir=$LIBDIR" "includedir=$INCLUDEDIR" '' \
    'Name: reducerkit' \
    'Description: ReducerKit: stores whose reducers are written in Swift, driven through a C interface' \
    "Version: $VERSION" 'Cflags: -I${includedir}' "Libs: -L\${libdir} -lreducerkit$rpath" \
    > "$DESTDIR$PKGCONFIGDIR/reducerkit.pc"
  if [ -f "$CHECK_RUNNER" ]; then
    echo "install $CHECK_RUNNER -> $DESTDIR$BINDIR/reducerkit-check"
    install -d "$DESTDIR$BINDIR"
    install -m 755 "$CHECK_RUNNER" "$DESTDIR$BINDIR/reducerkit-check"
  fi
  note=""; [ -n "$rpath" ] || note=" (a system library directory: run ldconfig)"
  echo "installed reducerkit $VERSION into $DESTDIR$PREFIX$note"
  ;;
uninstall)
  for f in "$INCLUDEDIR/reducerkit.h" "$LIBDIR/libreducerkit.so.$VERSION" "$LIBDIR/$SONAME" \
    "$LIBDIR/libreducerkit.so" "$PKGCONFIGDIR/reducerkit.pc" "$DATADIR/valgrind.supp" \
    "$BINDIR/reducerkit-check"; do
    rm -f "$DESTDIR$f"
  done
  echo "removed reducerkit's files from $DESTDIR$PREFIX"
  ;;
*)
  echo "usage: $0 install|uninstall" >&2
  exit 2
  ;;
esac
