#!/usr/bin/env bash
# scripts/abi-check.sh: this build has the recorded release's ABI; a
# function gone under the same soname fails it; the same with a new soname
# (a declared break) passes. Usage: tests/packaging/test_abi.sh BNET BUILD_DIR
set -uo pipefail
source tests/cli/lib.sh
build=$2

scripts/abi-check.sh "$build" >"$T/same.log" 2>&1
st=$?
((st)) && cat "$T/same.log"
ok "libbnet.so matches packaging/abi/ ($(tail -n 1 "$T/same.log"))" $st

base=$(ls packaging/abi/libbnet-*.abi | sort -V | tail -n 1)
# a release that also had bn_gone: this build removed it
sed "0,/<elf-symbol name='bn_run'/s//<elf-symbol name='bn_gone' version='BNET_0' is-default-version='yes' type='func-type' binding='global-binding' visibility='default-visibility' is-defined='yes'\/>\n    &/" \
  "$base" >"$T/libbnet-9.9.9.abi"
grep -q "name='bn_gone'" "$T/libbnet-9.9.9.abi"
ok "a baseline with one more function" $?
BNET_ABI_BASE=$T/libbnet-9.9.9.abi scripts/abi-check.sh "$build" >"$T/gone.log" 2>&1
[[ $? -eq 1 ]] && grep -q "bn_gone" "$T/gone.log"
ok "a removed function under the same soname fails" $?
sed "s/soname='libbnet.so.[0-9]*'/soname='libbnet.so.999'/" "$T/libbnet-9.9.9.abi" >"$T/libbnet-9.9.8.abi"
BNET_ABI_BASE=$T/libbnet-9.9.8.abi scripts/abi-check.sh "$build" >"$T/bump.log" 2>&1
ok "the same break under a new soname passes ($(tail -n 1 "$T/bump.log"))" $?
finish
