#!/usr/bin/env bash
#
# Output files under faults of the environment (docs/limits.md, "Output"):
# every --json, --csv, --dot, -F, --trace and plot is written to a
# temporary file beside it and renamed once whole, so a full disk, a
# read-only folder, a signal or a closed pipe never leaves a truncated file
# that parses as complete, and two runs writing one path leave one run's
# whole file (issue 53: 18 of 20 concurrent pairs left invalid JSON).
# Each failure: one line on stderr naming the path, a documented status.
#
#   bash tests/cli/test_outputs.sh PATH_TO_BNET
set -u
. "$(dirname "$0")/lib.sh"

# no temporary file (".NAME.XXXXXX") left in DIR
no_temp() { [ -z "$(find "$1" -name '.*.??????' -print -quit)" ]; }
RUN=(run --quiet --set topology.k=4 --set workload.message_bytes=64KB)

# a file larger than the process may write (ulimit -f: EFBIG), over an
# older whole file: the error, status 2, the old file as it was
mkdir -p "$T/fsize"
echo '{"old": true}' >"$T/fsize/out.json"
(ulimit -f 16 && trap '' XFSZ && exec "$BNET" "${RUN[@]}" --json "$T/fsize/out.json") \
    2>"$T/err"
rc=$?
ok "file too large (ulimit -f): exit 2 (got $rc)" $([ "$rc" -eq 2 ]; echo $?)
grep -q "out.json: cannot write JSON: File too large" "$T/err"
ok "... the path and the cause on stderr" $?
check "... the old file is left whole" "$T/fsize/out.json" '.old'
no_temp "$T/fsize"
ok "... no temporary file left" $?

# a full file system: a small tmpfs where one can be mounted (root), else
# skipped; /dev/full in any case (written in place: not a regular file)
if mkdir -p "$T/full" && mount -t tmpfs -o size=16k tmpfs "$T/full" 2>/dev/null; then
    echo '{"old": true}' >"$T/full/out.json"
    "$BNET" "${RUN[@]}" --json "$T/full/out.json" --csv "$T/full/r" 2>"$T/err"
    rc=$?
    ok "full disk (16 KB tmpfs): exit 2 (got $rc)" $([ "$rc" -eq 2 ]; echo $?)
    grep -q "out.json: cannot write JSON: No space left on device" "$T/err"
    ok "... says no space" $?
    check "... the old file is left whole" "$T/full/out.json" '.old'
    no_temp "$T/full"
    ok "... no temporary file left" $?
    umount "$T/full"
else
    echo "skip  full disk: cannot mount a tmpfs here (not root)"
fi
"$BNET" "${RUN[@]}" --json /dev/full 2>"$T/err"
rc=$?
ok "--json /dev/full: exit 2 (got $rc)" $([ "$rc" -eq 2 ]; echo $?)
grep -q "^bnet: /dev/full: cannot write JSON: No space left on device$" "$T/err"
ok "... one line naming it" $?
[ -c /dev/full ]
ok "... /dev/full is still the device" $?

# a read-only folder: a read-only tmpfs as root (root ignores modes), else
# a folder without write permission
mkdir -p "$T/ro"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o ro,size=64k tmpfs "$T/ro" 2>/dev/null; then
    why="Read-only file system"
else
    chmod 555 "$T/ro"
    why="Permission denied"
fi
"$BNET" "${RUN[@]}" --json "$T/ro/out.json" 2>"$T/err"
rc=$?
ok "read-only folder: exit 2 (got $rc)" $([ "$rc" -eq 2 ]; echo $?)
# refused before the run (src/cli/outputs.c), or at the write if the
# folder turned read-only during it
grep -qE "ro/out.json: cannot write JSON: $why|cannot write '[^']*ro/out.json': its folder is not writable" "$T/err"
ok "... says why" $?
"$BNET" topo --set topology.k=4 --dot "$T/ro/g.dot" 2>"$T/err" >/dev/null
rc=$?
ok "... the same for --dot (exit $rc)" $([ "$rc" -eq 2 ] && grep -qE "g.dot: cannot write DOT|g.dot': its folder is not writable" "$T/err"; echo $?)
mountpoint -q "$T/ro" && umount "$T/ro"
chmod 755 "$T/ro"

# two runs writing one file, 10 times: each leaves a whole file
mkdir -p "$T/two"
bad=0
for i in $(seq 1 10); do
    "$BNET" run --quiet --seed 1 --json "$T/two/out.json" 2>/dev/null &
    a=$!
    "$BNET" run --quiet --seed 3 --json "$T/two/out.json" 2>/dev/null &
    b=$!
    wait "$a" || bad=$((bad + 1))
    wait "$b" || bad=$((bad + 1))
    jq -e '.seed == 1 or .seed == 3' "$T/two/out.json" >/dev/null 2>&1 || bad=$((bad + 1))
done
ok "two runs writing one --json, 10 pairs: all exit 0, the file whole ($bad bad)" \
    $([ "$bad" -eq 0 ]; echo $?)
no_temp "$T/two"
ok "... no temporary file left" $?

# a closed pipe: status 141 (128 + SIGPIPE, as a shell reports it), nothing
# on stderr, and the --json file written before the table is whole
mkdir -p "$T/pipe"
"$BNET" run --set topology.k=4 --json "$T/pipe/out.json" 2>"$T/err" | head -c 10 >/dev/null
rc=${PIPESTATUS[0]}
ok "stdout a closed pipe: exit 141 or 0 (got $rc)" $([ "$rc" -eq 141 ] || [ "$rc" -eq 0 ]; echo $?)
[ ! -s "$T/err" ]
ok "... nothing on stderr" $?
[ ! -e "$T/pipe/out.json" ] || jq -e '.summary' "$T/pipe/out.json" >/dev/null
ok "... the JSON whole or absent" $?
"$BNET" run --set topology.k=8 --json - 2>"$T/err" | head -c 100 >/dev/null
rc=${PIPESTATUS[0]}
ok "--json - into a closed pipe: exit 141 (got $rc)" $([ "$rc" -eq 141 ]; echo $?)
[ ! -s "$T/err" ]
ok "... nothing on stderr" $?
no_temp "$T/pipe"
ok "... no temporary file left" $?

# a signal at any moment, the JSON being written included: the file is
# whole (interrupted or not) or absent, never cut short
mkdir -p "$T/sig"
bad=0
for delay in 0.2 0.5 0.8 1.1 1.4; do
    rm -f "$T/sig/out.json"
    "$BNET" run --quiet --set topology.k=12 --set workload.message_bytes=2MB \
        --json "$T/sig/out.json" 2>/dev/null &
    pid=$!
    sleep "$delay"
    kill -TERM "$pid" 2>/dev/null
    sleep 0.05
    kill -TERM "$pid" 2>/dev/null # a second: ends it at once
    wait "$pid"
    rc=$?
    [ "$rc" -eq 143 ] || [ "$rc" -eq 0 ] || bad=$((bad + 1))
    [ ! -e "$T/sig/out.json" ] || jq -e '.summary and .sim' "$T/sig/out.json" >/dev/null ||
        bad=$((bad + 1))
done
ok "SIGTERM twice at 5 moments: exit 143, the JSON whole or absent ($bad bad)" \
    $([ "$bad" -eq 0 ]; echo $?)
no_temp "$T/sig"
ok "... no temporary file left" $?
finish
