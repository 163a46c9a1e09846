#!/usr/bin/env bash
#
# SIGINT and SIGTERM during a long run or sweep stop it cleanly: the
# results so far are written (the JSON valid, marked interrupted), and the
# exit status is 128 + the signal (docs/results.md).
#
#   bash tests/cli/test_signals.sh PATH_TO_BNET
set -u
BNET=$1
case $BNET in /*) ;; *) BNET=$PWD/$BNET ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/bnet-test-signals.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

# check NAME SIGNAL WANT_RC JQ_TEST -- ARGS...: start bnet, signal it after a
# second, expect the exit status and the JSON test to hold. GROUP=1: bnet
# leads a process group of its own and the signal goes to all of it, its
# workers too, as a terminal's ^C does.
check() {
    local name=$1 sig=$2 want=$3 test=$4
    shift 5
    local lead=() to=""
    [ "${GROUP:-0}" = 1 ] && lead=(setsid) to=-
    "${lead[@]}" "$BNET" "$@" --json "$T/out.json" >"$T/stdout" 2>"$T/stderr" &
    local pid=$!
    sleep 1
    kill "-$sig" -- "$to$pid"
    wait "$pid"
    local rc=$?
    local why=""
    [ "$rc" -eq "$want" ] || why="exit status $rc, expected $want"
    if [ -z "$why" ] && ! jq -e "$test" "$T/out.json" >/dev/null 2>&1; then
        why="JSON fails: $test"
    fi
    if grep -q -E 'AddressSanitizer|runtime error' "$T/stderr"; then
        why="sanitizer report"
    fi
    if [ -z "$why" ]; then
        echo "ok    $name"
        pass=$((pass + 1))
    else
        echo "FAIL  $name: $why"
        fail=$((fail + 1))
    fi
}

check "run: SIGTERM writes the results so far" TERM 143 \
    '.sim.interrupted and .sim.stopped_early and .summary.flows_completed < .summary.flows' -- \
    run --quiet --set topology.k=16 --set workload.message_bytes=50MB
check "run: SIGINT too" INT 130 '.sim.interrupted' -- \
    run --quiet --set topology.k=16 --set workload.message_bytes=50MB
check "coll: SIGINT keeps the rows measured" INT 130 '.interrupted and (.rows | length) >= 1' -- \
    coll -b 1K -e 16G -f 2

# compare: its columns run in workers; a signal to bnet alone lets the
# running column end and starts no other, one to the group cuts that one
# short too (each column marked, the table's columns with a *)
SMALL=(--set topology.kind=leaf_spine --set topology.k=4 --set scale_up.domain_gpus=0)
check "compare: SIGINT starts no more columns" INT 130 \
    '.interrupted and (.fabrics[0].interrupted | not) and .fabrics[2].interrupted' -- \
    compare "${SMALL[@]}" --fabrics ib-ndr,roce-400g,uec-800g -j 1
if grep -q '^figure  *ib-ndr  *roce-400g\*  *uec-800g\*$' "$T/stdout" &&
    grep -q '^# interrupted: the columns marked \* were cut short' "$T/stdout"; then
    echo "ok    ... the table marks the columns cut short"
    pass=$((pass + 1))
else
    echo "FAIL  ... the table marks the columns cut short"
    fail=$((fail + 1))
fi
GROUP=1 check "compare: SIGINT to the workers too cuts the running column" INT 130 \
    '.interrupted and .fabrics[0].interrupted and .fabrics[1].interrupted' -- \
    compare --set topology.kind=leaf_spine --set topology.k=8 --set scale_up.domain_gpus=0 \
    --fabrics ib-ndr,roce-400g -j 1

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
