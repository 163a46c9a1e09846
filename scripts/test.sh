#!/usr/bin/env bash
# Set up, then build and run the whole test suite twice: a normal build and
# an AddressSanitizer + UndefinedBehaviorSanitizer build; then fuzz
# (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

scripts/setup.sh build
scripts/need-packages.sh graphviz jq   # tests only: dot renders --dot (test_plan.c), jq reads JSON (test_signals.sh)
(cd build && ctest --output-on-failure -j"$jobs")

scripts/setup.sh build-asan -DBNET_SANITIZE=ON
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs")

# Replay fuzz/regressions/, then each libFuzzer harness for 30 s, one per
# core at a time: on CI's 2 cores about 2.5 minutes with the clang build.
scripts/fuzz.sh -j "$jobs" 30
