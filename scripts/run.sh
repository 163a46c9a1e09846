#!/usr/bin/env bash
# Set up, build, and run bnet (on its embedded default scenario unless
# arguments are given: they are passed to bnet).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
exec build/bnet "$@"
