#!/usr/bin/env bash
# --trace against the Trace Event Format (Google's "Trace Event Format"
# document), as Perfetto's trace processor would read it: Debian packages
# no Perfetto, so tests/cli/trace_check.py checks what its JSON importer
# needs (required fields and their types, B/E pairing per thread, X
# durations, nesting per row, async and flow ids). First the check itself:
# a well-formed trace of every kind of event passes, and each broken one
# is refused for its own reason (a check that passes everything proves
# nothing). Then bnet job's trace of each shipped job scenario (flow
# level: about 3 s in all) passes it.
# Usage: tests/cli/test_trace_format.sh BNET
set -uo pipefail
source tests/cli/lib.sh

# NAME 'EVENTS' REASON: the trace {"traceEvents":[EVENTS]} fails, saying REASON
refused() {
    printf '{"traceEvents":[%s],"displayTimeUnit":"ns"}\n' "$2" >"$T/$1.json"
    python3 tests/cli/trace_check.py "$T/$1.json" >"$T/$1.out"
    local rc=$?
    [ $rc -eq 1 ] && grep -q -- "$3" "$T/$1.out"
    ok "the check refuses $1" $?
}

M='{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"rank 0"}}'
cat >"$T/good.json" <<EOF
{"traceEvents":[$M,
 {"name":"step","ph":"X","pid":1,"tid":1,"ts":0,"dur":10},
 {"name":"send","ph":"B","pid":1,"tid":1,"ts":1},
 {"name":"inner","ph":"X","pid":1,"tid":1,"ts":2,"dur":1.5},
 {"ph":"E","pid":1,"tid":1,"ts":4},
 {"name":"recv","ph":"B","pid":1,"tid":2,"ts":3},
 {"name":"recv","ph":"E","pid":1,"tid":2,"ts":12},
 {"name":"mark","ph":"i","pid":1,"tid":1,"ts":5,"s":"g"},
 {"name":"queue","ph":"C","pid":1,"tid":1,"ts":5,"args":{"bytes":4096}},
 {"name":"qp","cat":"net","ph":"b","id":"0x1","pid":1,"tid":1,"ts":1},
 {"name":"qp","cat":"net","ph":"e","id":"0x1","pid":1,"tid":1,"ts":9},
 {"name":"dep","cat":"f","ph":"s","id":7,"pid":1,"tid":1,"ts":3},
 {"name":"dep","cat":"f","ph":"f","id":7,"pid":1,"tid":2,"ts":4}
],"displayTimeUnit":"ns"}
EOF
python3 tests/cli/trace_check.py "$T/good.json" >"$T/good.out"
ok "the check passes a trace of X, nested B/E, instant, counter, async and flow events" $?
grep -q "events 13 rows 2 overlaps 0 errors 0" "$T/good.out"
ok "the check counts 13 events on 2 rows" $?

refused no_ph '{"name":"a","pid":1,"tid":1,"ts":0}' "ph missing"
refused bad_ph '{"name":"a","ph":"Q","pid":1,"tid":1,"ts":0}' "ph missing or not a phase"
refused no_pid '{"name":"a","ph":"X","tid":1,"ts":0,"dur":1}' "pid missing"
refused str_tid '{"name":"a","ph":"X","pid":1,"tid":"1","ts":0,"dur":1}' "tid missing"
refused no_name '{"ph":"X","pid":1,"tid":1,"ts":0,"dur":1}' "name missing"
refused no_ts '{"name":"a","ph":"X","pid":1,"tid":1,"dur":1}' "ts missing"
refused neg_ts '{"name":"a","ph":"B","pid":1,"tid":1,"ts":-1}' "ts missing or negative"
refused no_dur '{"name":"a","ph":"X","pid":1,"tid":1,"ts":0}' "dur missing"
refused neg_dur '{"name":"a","ph":"X","pid":1,"tid":1,"ts":0,"dur":-2}' "dur missing or negative"
refused meta_no_name '{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{}}' "metadata without args.name"
refused args_list '{"name":"a","ph":"X","pid":1,"tid":1,"ts":0,"dur":1,"args":[1]}' "args not an object"
refused e_alone '{"ph":"E","pid":1,"tid":1,"ts":3}' "an E with no open B"
refused e_other_row '{"name":"a","ph":"B","pid":1,"tid":1,"ts":0},{"ph":"E","pid":1,"tid":2,"ts":3}' \
    "an E with no open B"
refused b_unclosed '{"name":"a","ph":"B","pid":1,"tid":1,"ts":0}' "never ended"
refused e_before_b '{"name":"a","ph":"B","pid":1,"tid":1,"ts":5},{"ph":"E","pid":1,"tid":1,"ts":3}' \
    "an E before its B"
refused e_misnamed '{"name":"a","ph":"B","pid":1,"tid":1,"ts":0},{"name":"b","ph":"E","pid":1,"tid":1,"ts":3}' \
    "an E named otherwise"
refused x_overlap '{"name":"a","ph":"X","pid":1,"tid":1,"ts":0,"dur":10},{"name":"b","ph":"X","pid":1,"tid":1,"ts":5,"dur":10}' \
    "partly overlaps"
refused be_overlaps_x '{"name":"a","ph":"X","pid":1,"tid":1,"ts":0,"dur":10},{"name":"b","ph":"B","pid":1,"tid":1,"ts":5},{"ph":"E","pid":1,"tid":1,"ts":12}' \
    "partly overlaps"
refused bad_scope '{"name":"a","ph":"i","pid":1,"tid":1,"ts":0,"s":"x"}' "scope not g, p or t"
refused counter_text '{"name":"a","ph":"C","pid":1,"tid":1,"ts":0,"args":{"v":"high"}}' "counter without numeric"
refused async_no_id '{"name":"a","cat":"c","ph":"b","pid":1,"tid":1,"ts":0}' "async event without id"
refused async_unended '{"name":"a","cat":"c","ph":"b","id":1,"pid":1,"tid":1,"ts":0}' "never ended"
refused async_end_alone '{"name":"a","cat":"c","ph":"e","id":1,"pid":1,"tid":1,"ts":0}' "async end with no open begin"
refused flow_end_alone '{"name":"a","cat":"c","ph":"f","id":1,"pid":1,"tid":1,"ts":0}' "flow step or end with no start"
printf '{"traceEvents":[],"displayTimeUnit":"s"}' >"$T/unit.json"
python3 tests/cli/trace_check.py "$T/unit.json" >"$T/unit.out"
[ $? -eq 1 ] && grep -q "displayTimeUnit 's': not ms or ns" "$T/unit.out"
ok "the check refuses a displayTimeUnit other than ms or ns" $?
echo '{"events":[]}' >"$T/noarray.json"
python3 tests/cli/trace_check.py "$T/noarray.json" >/dev/null
[ $? -eq 1 ]
ok "the check refuses a file without traceEvents" $?

# bnet job's own traces: every shipped job scenario, at flow level
for s in job_default jobs_noisy_neighbor jobs_workload_file; do
    "$BNET" job "scenarios/$s.yaml" --fidelity flow --quiet --trace "$T/$s.trace" >/dev/null
    ok "bnet job scenarios/$s.yaml --trace" $?
    python3 tests/cli/trace_check.py "$T/$s.trace" >"$T/$s.out"
    st=$?
    head -3 "$T/$s.out"
    ok "$s: the trace holds the Trace Event Format (fields, pairs, nesting per row)" $st
done
finish
