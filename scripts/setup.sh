#!/usr/bin/env bash
# Install what bnet needs on Debian 12 (only the packages that are missing),
# then configure and build it. Usage: scripts/setup.sh [BUILD_DIR] [CMAKE_ARGS...]
# Everything it prints goes to stderr: stdout belongs to whatever runs after
# it (scripts/run.sh's bnet, whose --json - must be JSON alone).
set -euo pipefail
cd "$(dirname "$0")/.."
exec 1>&2

scripts/need-packages.sh build-essential cmake pkg-config libyaml-dev libjansson-dev libcmocka-dev libcminpack-dev libssl-dev help2man \
  libprotobuf-c-dev protobuf-c-compiler `# Chakra traces: src/job/chakra_et.proto` \
  gnuplot-nox # figures: bnet plot, --plot (docs/plots.md)

build=${1:-build}
shift || true
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
