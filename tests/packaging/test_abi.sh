#!/usr/bin/env bash
# scripts/abi-check.sh: this build against the recorded release passes
# (the same ABI, or a break declared by a new soname); against a baseline
# made from this build, a function gone or a public struct changed under
# the same soname fails, and the same with another soname passes.
# Usage: tests/packaging/test_abi.sh BNET BUILD_DIR
set -uo pipefail
source tests/cli/lib.sh
build=$2

scripts/abi-check.sh "$build" >"$T/release.log" 2>&1
st=$?
((st)) && cat "$T/release.log"
ok "against packaging/abi/: $(tail -n 1 "$T/release.log")" $st

scripts/abi-check.sh --dump "$T/now.abi" "$build"
ok "--dump writes this build's ABI" $?
BNET_ABI_BASE=$T/now.abi scripts/abi-check.sh "$build" >"$T/same.log" 2>&1
ok "itself: $(tail -n 1 "$T/same.log")" $?

# a baseline that also had bn_gone: this build removed it
sed "0,/<elf-symbol name='bn_run'/s//<elf-symbol name='bn_gone' version='BNET_0' is-default-version='yes' type='func-type' binding='global-binding' visibility='default-visibility' is-defined='yes'\/>\n    &/" \
  "$T/now.abi" >"$T/gone.abi"
grep -q "name='bn_gone'" "$T/gone.abi"
ok "a baseline with one more function" $?
BNET_ABI_BASE=$T/gone.abi scripts/abi-check.sh "$build" >"$T/gone.log" 2>&1
[[ $? -eq 1 ]] && grep -q "bn_gone" "$T/gone.log"
ok "a removed function under the same soname fails" $?

# a baseline whose struct bn_error was 32 bits smaller: this build's grew
bits=$(sed -n "s/.*class-decl name='bn_error' size-in-bits='\([0-9]*\)'.*/\1/p" "$T/now.abi")
sed "s/\(class-decl name='bn_error' size-in-bits='\)$bits'/\1$((bits - 32))'/" "$T/now.abi" >"$T/grew.abi"
! cmp -s "$T/now.abi" "$T/grew.abi"
ok "a baseline with a smaller struct bn_error" $?
BNET_ABI_BASE=$T/grew.abi scripts/abi-check.sh "$build" >"$T/grew.log" 2>&1
[[ $? -eq 1 ]] && grep -q "bn_error" "$T/grew.log"
ok "a public struct that changed under the same soname fails" $?

sed "s/soname='libbnet.so.[0-9]*'/soname='libbnet.so.999'/" "$T/gone.abi" >"$T/bumped.abi"
BNET_ABI_BASE=$T/bumped.abi scripts/abi-check.sh "$build" >"$T/bump.log" 2>&1
ok "the same break under another soname passes ($(tail -n 1 "$T/bump.log"))" $?
finish
