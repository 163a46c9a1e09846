#!/usr/bin/env bash
# Set up, then build and run the whole test suite twice: a normal build and
# an AddressSanitizer + UndefinedBehaviorSanitizer build; then fuzz
# (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

# an MPI first, so that the build finds it: bnet sweep under mpirun (test_mpi.sh)
scripts/need-packages.sh libopenmpi-dev openmpi-bin
scripts/setup.sh build
# tests only: dot renders --dot (test_plan.c), jq reads JSON (test_signals.sh),
# abidiff checks the ABI (test_abi.sh), Debian's python3 runs the Python
# package's tests (test_python.sh) and the JSON Schemas' (test_schema.sh);
# headless chromium under selenium loads bnet report's page (test_report_browser.sh)
scripts/need-packages.sh graphviz jq abigail-tools python3 python3-pip python3-setuptools python3-yaml python3-pandas python3-jsonschema dpkg-dev \
  chromium chromium-driver python3-selenium
(cd build && ctest --output-on-failure -j"$jobs")

scripts/setup.sh build-asan -DBNET_SANITIZE=ON
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs")

# Replay fuzz/regressions/, then each libFuzzer harness for 10 s, one per
# core at a time: on CI's 2 cores about a minute with the clang build.
scripts/fuzz.sh -j "$jobs" 10

# The Debian packages, built (with this test suite inside), installed and
# used (docs/packaging.md): about 1.5 min on 2 cores; when asked (.ci/run asks).
# The package's own ctest run is skipped here (nocheck): the same suite on
# the same tree passed above; the package is still built, installed and used.
if [[ ${CI_PACKAGE:-0} == 1 ]]; then
  DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-}" scripts/package-deb.sh
fi
