#!/usr/bin/env bash
#
# scripts/run.sh and scripts/setup.sh keep stdout for bnet: build output
# (30-120 lines of it on every call) made `scripts/run.sh run --json -`
# invalid JSON. The scripts run here in a scratch copy of the repository
# whose `cmake` and package check are stubs that chatter on stdout, as the
# real ones do, and whose build/bnet prints a JSON document; nothing is
# built or installed.
#
#   bash tests/scripts/test_run_sh.sh [PATH_TO_BNET (unused)]
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/bnet-test-run-sh.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
fail=0
check() { # check NAME CONDITION...
    local name=$1
    shift
    if "$@"; then
        echo "ok    $name"
    else
        echo "FAIL  $name"
        fail=1
    fi
}

mkdir -p "$T/repo/scripts" "$T/bin"
cp "$ROOT/scripts/run.sh" "$ROOT/scripts/setup.sh" "$T/repo/scripts/"
cat >"$T/repo/scripts/need-packages.sh" <<'STUB'
#!/usr/bin/env bash
echo "all packages present"
STUB
# cmake: configure and build print to stdout; the build makes build/bnet
# the first time (a bnet that prints one JSON document).
cat >"$T/bin/cmake" <<'STUB'
#!/usr/bin/env bash
if [ "$1" = --build ]; then
    echo "[ 50%] Building C object CMakeFiles/bnet.dir/src/core/evq.c.o"
    echo "[100%] Built target bnet_cli"
    if [ ! -e "$2/bnet" ]; then
        printf '#!/usr/bin/env bash\necho "{\\"args\\": \\"$*\\"}"\n' >"$2/bnet"
        chmod +x "$2/bnet"
    fi
else
    mkdir -p "$4" # cmake -S . -B DIR ...
    echo "-- Configuring done"
    echo "-- Build files have been written to: build"
fi
STUB
chmod +x "$T/repo/scripts/"*.sh "$T/bin/cmake"
export PATH="$T/bin:$PATH"

valid_json() {
    if command -v python3 >/dev/null 2>&1; then
        python3 -m json.tool "$1" >/dev/null 2>&1
    else
        [ "$(cat "$1")" = '{"args": "run --json -"}' ]
    fi
}

# first call: builds
"$T/repo/scripts/run.sh" run --json - >"$T/out1" 2>"$T/err1"
rc=$?
check "first call exits 0" [ "$rc" -eq 0 ]
check "first call: stdout is bnet's JSON only" valid_json "$T/out1"
check "first call: stdout has no build output" \
    bash -c "! grep -qE 'Built target|Configuring|packages' '$T/out1'"
check "first call: stderr says it built" grep -q "run.sh: built build/bnet" "$T/err1"

# second call: nothing to build, nothing about the build shown
"$T/repo/scripts/run.sh" run --json - >"$T/out2" 2>"$T/err2"
rc=$?
check "second call exits 0" [ "$rc" -eq 0 ]
check "second call: stdout is bnet's JSON only" valid_json "$T/out2"
check "second call: stderr is empty when nothing was built" [ ! -s "$T/err2" ]

# setup.sh itself prints nothing on stdout
"$T/repo/scripts/setup.sh" >"$T/out3" 2>"$T/err3"
rc=$?
check "setup.sh exits 0" [ "$rc" -eq 0 ]
check "setup.sh: nothing on stdout" [ ! -s "$T/out3" ]
check "setup.sh: its output on stderr" grep -q "Built target" "$T/err3"

# a failed build: non-zero, its log on stderr, nothing on stdout
printf '#!/usr/bin/env bash\necho "error: it broke" >&2\nexit 1\n' >"$T/bin/cmake"
"$T/repo/scripts/run.sh" run >"$T/out4" 2>"$T/err4"
rc=$?
check "failed build exits non-zero" [ "$rc" -ne 0 ]
check "failed build: nothing on stdout" [ ! -s "$T/out4" ]
check "failed build: its log on stderr" grep -q "error: it broke" "$T/err4"

exit "$fail"
