#!/usr/bin/env bash
# `cmake --install` into a scratch prefix puts every file docs/packaging.md
# lists there, and a program builds against the installed library with
# pkg-config (shared and --static) and with find_package(bnet), and runs.
# Usage: tests/packaging/test_install.sh BNET BUILD_DIR
set -uo pipefail
source tests/cli/lib.sh
build=$2
prefix=$T/prefix
# lib/, or lib/<multiarch>/ as Debian's build configures it
lib=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$build/CMakeCache.txt")
lib=${lib:-lib}

cmake --install "$build" --prefix "$prefix" >"$T/install.log" 2>&1
ok "cmake --install" $?
for f in bin/bnet include/bnet/bnet.h include/bnet/version.h $lib/libbnet.a $lib/libbnet.so \
         $lib/pkgconfig/bnet.pc $lib/cmake/bnet/bnetConfig.cmake $lib/cmake/bnet/bnetConfigVersion.cmake \
         share/bnet/scenarios/cluster128.yaml share/doc/bnet/scenario.md share/doc/bnet/LICENSE \
         share/doc/bnet/CHANGELOG.md share/doc/bnet/README.md share/doc/bnet/schema/run.schema.json \
         share/man/man1/bnet.1 share/bash-completion/completions/bnet; do
  test -e "$prefix/$f"
  ok "installed $f" $?
done
soname=$(objdump -p "$prefix/$lib/libbnet.so" | awk '$1 == "SONAME" {print $2}')
test -n "$soname" && test -e "$prefix/$lib/$soname" && [[ $soname == libbnet.so.[0-9]* ]]
ok "versioned soname ($soname)" $?

# the installed command runs from its own prefix (RUNPATH $ORIGIN/../lib;
# a build without it, as Debian's, finds the library in the system's path)
grep -q '^CMAKE_SKIP_INSTALL_RPATH:BOOL=ON' "$build/CMakeCache.txt" && export LD_LIBRARY_PATH=$prefix/$lib
version=$("$prefix/bin/bnet" --version)
[[ $version == "$("$BNET" --version)" ]]
ok "installed bnet --version: $version" $?
"$prefix/bin/bnet" run "$prefix/share/bnet/scenarios/leaf_spine_incast.yaml" --quiet --set workload.message_bytes=65536
ok "installed bnet runs an installed scenario" $?

export PKG_CONFIG_PATH=$prefix/$lib/pkgconfig
consumer=tests/packaging/consumer/consumer.c
# shellcheck disable=SC2046
cc -Wall -Werror -o "$T/pc_shared" "$consumer" $(pkg-config --cflags --libs bnet) \
  -Wl,-rpath,"$prefix/$lib" && "$T/pc_shared"
ok "pkg-config bnet: build and run (shared)" $?
# shellcheck disable=SC2046
cc -Wall -Werror -o "$T/pc_static" "$consumer" $(pkg-config --cflags bnet) \
  "$prefix/$lib/libbnet.a" $(pkg-config --libs-only-l --static bnet | sed 's/-lbnet//') &&
  "$T/pc_static"
ok "pkg-config --static bnet: build and run" $?

cmake -S tests/packaging/consumer -B "$T/cm" -DCMAKE_PREFIX_PATH="$prefix" >"$T/cm.log" 2>&1 &&
  cmake --build "$T/cm" >>"$T/cm.log" 2>&1 && "$T/cm/consumer_shared" && "$T/cm/consumer_static"
st=$?
((st)) && cat "$T/cm.log"
ok "find_package(bnet): bnet::bnet and bnet::bnet_static build and run" $st
finish
