#!/usr/bin/env bash
# debian/libbnet1.symbols is what scripts/gen-symbols.sh makes of
# src/libbnet.map (so it cannot drift), and dpkg-gensymbols -c4 (the check
# the package build runs) finds it equal to what the built libbnet.so
# exports: no symbol missing, none new.
# Usage: tests/packaging/test_symbols.sh BNET BUILD_DIR
set -uo pipefail
source tests/cli/lib.sh
build=$2
scripts/gen-symbols.sh >"$T/symbols"
diff -u debian/libbnet1.symbols "$T/symbols"
ok "debian/libbnet1.symbols is scripts/gen-symbols.sh's output (regenerate it)" $?
grep -q '^libbnet.so.1 libbnet1 #MINVER#$' debian/libbnet1.symbols
ok "it names the soname and the package" $?
if ! command -v dpkg-gensymbols >/dev/null; then
  echo "FAIL  no dpkg-gensymbols: scripts/need-packages.sh dpkg-dev"
  exit 1
fi
lib=$(readlink -f "$build/libbnet.so")
mkdir -p "$T/pkg/debian" && cp debian/control "$T/pkg/debian/" &&
  printf 'bnet (0.1.0) unstable; urgency=medium\n\n  * test\n\n -- t <t@t.invalid>  Thu, 01 Jan 2026 00:00:00 +0000\n' \
    >"$T/pkg/debian/changelog"
(cd "$T/pkg" && dpkg-gensymbols -plibbnet1 -e"$lib" -I"$OLDPWD/debian/libbnet1.symbols" \
  -O"$T/out.symbols" -c4) >"$T/gs.log" 2>&1
st=$?
((st)) && cat "$T/gs.log"
ok "dpkg-gensymbols -c4: the file matches the library's exports" $st
finish
