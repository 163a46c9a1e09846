#!/usr/bin/env bash
# Compare libbnet.so's ABI with the last release's, recorded in
# packaging/abi/libbnet-VERSION.abi (libabigail's abidw, from the public
# headers only). New functions are compatible; a removed or changed function
# or variable (a struct it reaches grew, say) is a break, which must come
# with a new soname: BNET_SOVERSION in CMakeLists.txt (docs/packaging.md).
# Usage: scripts/abi-check.sh [BUILD_DIR]          check (exit 1 on an undeclared break;
#                                                  BNET_ABI_BASE=FILE: another baseline)
#        scripts/abi-check.sh --update [BUILD_DIR]  at a release: record this ABI
#        scripts/abi-check.sh --dump FILE [BUILD_DIR]  write this build's ABI to FILE
set -uo pipefail
cd "$(dirname "$0")/.."
update=0 out=""
[[ ${1:-} == --update ]] && { update=1; shift; }
[[ ${1:-} == --dump ]] && { out=${2:?--dump FILE}; shift 2; }
build=${1:-build}
lib=$build/libbnet.so
for tool in abidw abidiff; do
  command -v $tool >/dev/null || { echo "abi-check: $tool missing (apt install abigail-tools)" >&2; exit 2; }
done
[[ -e $lib ]] || { echo "abi-check: no $lib (build with BNET_SHARED=ON first)" >&2; exit 2; }
headers=(--headers-dir include --headers-dir "$build/include")
version=$(sed -n 's/^project(bnet VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)

# the ABI as XML, public types only: baseline and build are both read so
# (abidiff of an XML against a library filters its types differently)
dump() {
  abidw "${headers[@]}" --drop-private-types --no-show-locs --no-corpus-path --drop-undefined-syms \
    --out-file "$1" "$lib" || exit 2
}

if [[ -n $out ]]; then
  dump "$out"
  exit 0
fi
if ((update)); then
  rm -f packaging/abi/libbnet-*.abi
  dump "packaging/abi/libbnet-$version.abi"
  echo "abi-check: recorded packaging/abi/libbnet-$version.abi"
  exit 0
fi

base=${BNET_ABI_BASE:-$(ls packaging/abi/libbnet-*.abi 2>/dev/null | sort -V | tail -n 1)}
[[ -n $base ]] || { echo "abi-check: no baseline in packaging/abi/ (--update at a release)" >&2; exit 2; }
now=$(mktemp)
trap 'rm -f "$now"' EXIT
dump "$now"
report=$(abidiff "$base" "$now")
rc=$?
if ((rc & 3)); then # 1: abidiff failed, 2: usage error
  echo "$report"
  echo "abi-check: abidiff failed (status $rc)" >&2
  exit 2
fi
release=${base##*/}
release=${release#libbnet-}
release=${release%.abi}
if ((rc == 0)); then
  echo "abi-check: the ABI is that of release $release"
  exit 0
fi
# the "N Removed" and "N Changed" of abidiff's summaries; 8: incompatible
breaks=$(echo "$report" | awk '/changes summary:/ {gsub(",", "")
  for (i = 1; i < NF; i++) if ($(i + 1) == "Removed" || $(i + 1) == "Changed") n += $i}
  END {print n + 0}')
((rc & 8 && breaks == 0)) && breaks=1
old_so=$(sed -n "s/.*soname='\([^']*\)'.*/\1/p" "$base" | head -n 1)
new_so=$(sed -n "s/.*soname='\([^']*\)'.*/\1/p" "$now" | head -n 1)
echo "$report"
if ((breaks == 0)); then
  echo "abi-check: compatible with release $release (additions only)"
elif [[ $old_so != "$new_so" ]]; then
  echo "abi-check: $breaks removed or changed since release $release, declared by the new soname $new_so"
else
  echo "abi-check: $breaks removed or changed since release $release under the same soname $new_so:"
  echo "  undo them, or declare the break: raise BNET_SOVERSION in CMakeLists.txt and note it in CHANGELOG.md"
  exit 1
fi
