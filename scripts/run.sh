#!/usr/bin/env bash
# Set up, build, and run bnet (on its embedded default scenario unless
# arguments are given: they are passed to bnet).
#
# stdout is bnet's alone (scripts/run.sh run --json - prints JSON only):
# the set-up and build output goes to build/setup.log. Nothing about the
# build is shown when nothing was built; a build says so in one line on
# stderr, and a failed one shows its log there.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/bnet
log=build/setup.log
mkdir -p build
marker=$(mktemp build/.run-XXXXXX)
trap 'rm -f "$marker"' EXIT
[ -e "$bin" ] || echo "run.sh: building $bin (the first time takes a few minutes; log: $log)" >&2
if ! scripts/setup.sh build >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "run.sh: the build failed (full log: $log)" >&2
    exit 1
fi
if [ "$bin" -nt "$marker" ]; then
    echo "run.sh: built $bin (log: $log)" >&2
fi
rm -f "$marker"
trap - EXIT
exec "$bin" "$@"
