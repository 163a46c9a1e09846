#!/usr/bin/env bash
#
# Refusals name the limit and the key that drives it (issue 53): a list
# item past the last says the list's bound, not "unknown key", in either
# spelling (faults.16.kind, faults[16].kind, as messages print it); a
# Poisson run too long for memory names workload.duration_us.
#
#   bash tests/cli/test_messages.sh PATH_TO_BNET
set -u
. "$(dirname "$0")/lib.sh"

# refused ARGS... -- PATTERN: exit 2, one line matching PATTERN
refused() {
    local args=() pat
    while [ "$1" != -- ]; do args+=("$1"); shift; done
    pat=$2
    "$BNET" "${args[@]}" >"$T/out" 2>"$T/err"
    local rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "$pat" "$T/err" && [ ! -s "$T/out" ]
    local st=$?
    ok "${args[*]}: exit $rc, $(head -c 150 "$T/err")" "$st"
}

refused run --set 'faults[16].kind=link_down' -- "item 16 is past the last: at most 16 faults"
refused run --set 'faults.16.kind=link_down' -- "item 16 is past the last: at most 16 faults"
refused job --set 'jobs[1000000].dp=2' -- "item 1000000 is past the last: at most 8 jobs"
refused job --set 'jobs.1000000.dp=2' -- "item 1000000 is past the last: at most 8 jobs"
refused run --set 'faults.99999999999999999999999.kind=x' -- "is past the last: at most 16"
refused run --set workload.kind=poisson --set workload.duration_us=1e9 --set workload.load=0.5 \
    -- "key 'workload.duration_us'"
# the bracket spelling sets the item as the dotted one does
"$BNET" topo --set 'faults[0].kind=link_down' --set 'faults[0].target=tor0/1' \
    --set 'faults[0].at_us=5' >/dev/null 2>"$T/err"
ok "faults[0].kind=... is accepted as faults.0.kind" $?
finish
