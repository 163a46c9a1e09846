#!/usr/bin/env bash
# Build the Debian packages bnet, libbnet1 and libbnet-dev from this tree with
# dpkg-buildpackage -us -uc -b (ctest included unless DEB_BUILD_OPTIONS has
# nocheck), in a scratch copy; then install them (as root: dpkg -i, then
# purged again; else unpacked with dpkg -x) and build and run a program
# against them. The .deb files land in OUT_DIR (default build-deb/).
# debian/changelog is written here from project(VERSION) in CMakeLists.txt,
# the version's one source. CI runs this when CI_PACKAGE=1 (scripts/test.sh).
# Usage: scripts/package-deb.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$(realpath -m "${1:-build-deb}")
build_deps=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' debian/control | grep -oE '^ *(Build-Depends: *)?[a-z0-9][a-z0-9.+-]+' |
  sed 's/Build-Depends://; s/ //g' | grep -v '^debhelper-compat$')
# shellcheck disable=SC2086
scripts/need-packages.sh dpkg-dev debhelper fakeroot $build_deps

version=$(sed -n 's/^project(bnet VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
work=$(mktemp -d "${TMPDIR:-/tmp}/bnet-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/bnet-$version
mkdir -p "$src"
if git rev-parse --git-dir >/dev/null 2>&1; then # the tree as it is, less what git ignores
  git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$src"
else
  tar --exclude='./build*' -cf - . | tar -C "$src" -xf -
fi
{
  echo "bnet ($version) unstable; urgency=medium"
  echo
  echo "  * Release $version: see /usr/share/doc/bnet/changelog.gz (CHANGELOG.md)."
  echo
  echo " -- bnet developers <bnet-devel@lists.invalid>  $(date -R -d @"${SOURCE_DATE_EPOCH:-$(date +%s)}")"
} >"$src/debian/changelog"

start=$(date +%s)
(cd "$src" && dpkg-buildpackage -us -uc -b -j"$(nproc)") >"$work/build.log" 2>&1 || {
  tail -n 60 "$work/build.log"
  echo "package-deb: dpkg-buildpackage failed (log above)" >&2
  exit 1
}
mkdir -p "$out"
cp "$work"/*.deb "$out/"
echo "package-deb: built in $(($(date +%s) - start)) s:" >&2
ls -1 "$out"/*_"$version"_*.deb >&2

# install them and use them: the command, and a program built with pkg-config
debs=("$out"/bnet_"$version"_*.deb "$out"/libbnet1_"$version"_*.deb "$out"/libbnet-dev_"$version"_*.deb)
if [ "$(id -u)" -eq 0 ]; then
  dpkg -i "${debs[@]}" >/dev/null
  trap 'dpkg --purge bnet libbnet-dev libbnet1 >/dev/null; rm -rf "$work"' EXIT
  sysroot=""
else
  sysroot=$work/root
  for d in "${debs[@]}"; do dpkg -x "$d" "$sysroot"; done
  export LD_LIBRARY_PATH=$sysroot/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
fi
"$sysroot/usr/bin/bnet" --version
"$sysroot/usr/bin/bnet" run "$sysroot/usr/share/bnet/scenarios/leaf_spine_incast.yaml" --quiet
pc_dir=$sysroot/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/pkgconfig
# shellcheck disable=SC2046
PKG_CONFIG_PATH=$pc_dir cc -o "$work/consumer" "$root/tests/packaging/consumer/consumer.c" \
  $(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags --libs bnet)
"$work/consumer"
test -s "$sysroot/usr/share/man/man1/bnet.1.gz"
echo "package-deb: installed, bnet runs, a program builds against libbnet-dev" >&2
