#!/usr/bin/env bash
# Write debian/libbnet1.symbols, the dpkg-gensymbols(1) symbols file of
# libbnet1, from src/libbnet.map (the exports' one list): a symbol keeps the
# version debian/libbnet1.symbols already gives it (the first release that
# had it); a new one gets this version, from project(VERSION). Sorted, so the
# file changes only where the map does. dpkg-gensymbols checks it against
# the built library (debian/rules: -c4, any difference fails the build).
# Usage: scripts/gen-symbols.sh > debian/libbnet1.symbols
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^project(bnet VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
soversion=$(sed -n 's/^ *set(BNET_SOVERSION \([0-9]*\).*/\1/p' CMakeLists.txt)
node=$(sed -n 's/^\([A-Z_0-9]*\) *{.*/\1/p' src/libbnet.map | head -n 1)
old=debian/libbnet1.symbols
echo "libbnet.so.$soversion libbnet$soversion #MINVER#"
echo "* Build-Depends-Package: libbnet-dev"
echo " $node@$node $version" # the version node itself, as ld defines it
sed -n '/global:/,/local:/p' src/libbnet.map | grep -oE '^ *bn_[a-z0-9_]+;' | tr -d ' ;' | sort |
  while read -r sym; do
    was=$( [[ -f $old ]] && awk -v s=" $sym@$node" 'index($0, s " ") == 1 { print $2 }' "$old" || true)
    echo " $sym@$node ${was:-$version}"
  done
