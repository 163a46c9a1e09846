#!/usr/bin/env bash
#
# bnet job --trace: the timeline is Chrome trace-event JSON (jq parses it),
# its rows are named, and its spans add up to the reported figures: per
# iteration, the iteration row's span is the iteration time; the busiest
# unit's compute spans sum to compute_us; the collective rows and steps are
# there, each step on the row of its rank and channel. The trace holds the
# Trace Event Format's required fields and, on each row, complete events
# that nest or follow each other, none partly overlapping another
# (tests/cli/trace_check.py; collectives that run at once on a unit or a
# rank's channel go to lanes of their own). Two runs give the same JSON
# and the same trace.
#
#   bash tests/cli/test_job_trace.sh PATH_TO_BNET
set -u
BNET=$1
case $BNET in /*) ;; *) BNET=$PWD/$BNET ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/bnet-test-trace.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

check() {
    local name=$1 file=$2 test=$3
    if jq -e "$test" "$file" >/dev/null 2>&1; then
        echo "ok    $name"
        pass=$((pass + 1))
    else
        echo "FAIL  $name"
        echo "      jq: $test"
        fail=$((fail + 1))
    fi
}

ARGS=(job --quiet --set jobs.0.layers=2 --set jobs.0.pp=2 --set jobs.0.dp=8
      --set jobs.0.hidden=1024 --set jobs.0.ffn_hidden=2816 --set jobs.0.heads=8
      --set jobs.0.vocab=8192 --set jobs.0.seq_len=1024
      --set jobs.0.iterations=2 --set jobs.0.global_batch=32 --set jobs.0.scaleup=packet)
"$BNET" "${ARGS[@]}" --json "$T/a.json" --trace "$T/a.trace" || { echo "FAIL  bnet job"; exit 1; }
"$BNET" "${ARGS[@]}" --json "$T/b.json" --trace "$T/b.trace" || { echo "FAIL  bnet job"; exit 1; }

check "the trace parses as trace events" "$T/a.trace" '.traceEvents | length > 0'
check "every span is a complete event with a start and a length" "$T/a.trace" \
    '[.traceEvents[] | select(.ph == "X") | (.ts >= 0 and .dur >= 0)] | all'
python3 tests/cli/trace_check.py "$T/a.trace" >"$T/check.out"
rc=$?
head -3 "$T/check.out"
if [ $rc -eq 0 ]; then
    echo "ok    required fields, and no event partly overlaps another on its row"
    pass=$((pass + 1))
else
    echo "FAIL  required fields, and no event partly overlaps another on its row"
    fail=$((fail + 1))
fi
check "rows are named" "$T/a.trace" \
    '[.traceEvents[] | select(.ph == "M" and .name == "thread_name")] | length > 0'
# each iteration's span against the JSON's iterations (mean, min, max)
jq -s '.[1].jobs[0] as $j
       | [.[0].traceEvents[] | select(.cat == "iteration") | .dur] as $d
       | ($d | length) == 2
         and (($d | add) / 2 - $j.iteration_us | fabs) < 1e-3 * $j.iteration_us
         and (($d | min) - $j.iteration_min_us | fabs) < 1e-6 * $j.iteration_us
         and (($d | max) - $j.iteration_max_us | fabs) < 1e-6 * $j.iteration_us' \
    "$T/a.trace" "$T/a.json" >"$T/iter.out"
check "iteration spans are the reported iteration times" "$T/iter.out" '. == true'
# per iteration, the busiest row's compute: compute_us is its mean
jq -s '.[1].jobs[0] as $j
       | [.[0].traceEvents[] | select(.cat == "compute")]
       | group_by(.args.iteration)
       | map(group_by(.tid) | map(map(.dur) | add) | max)
       | (add / length - $j.compute_us | fabs) < 1e-6 * $j.compute_us' \
    "$T/a.trace" "$T/a.json" >"$T/compute.out"
check "compute spans add up to compute_us" "$T/compute.out" '. == true'
check "collectives and sends are on the timeline" "$T/a.trace" \
    '([.traceEvents[] | select(.cat == "tp")] | length > 0)
     and ([.traceEvents[] | select(.cat == "pp")] | length > 0)
     and ([.traceEvents[] | select(.cat == "dp")] | length > 0)'
check "collectives' transfers are on rank/channel rows" "$T/a.trace" \
    '[.traceEvents[] | select(.cat == "step")] | length > 0'
# a tree on 64 channels, NCCL's most: up to 63, each on a row of its own that names it
"$BNET" "${ARGS[@]}" --set jobs.0.iterations=1 --set coll.channels=64 --set coll.algo=tree \
    --trace "$T/c.trace" >/dev/null || { echo "FAIL  bnet job (64 channels)"; exit 1; }
check "a step's row names its channel, 64 of them" "$T/c.trace" \
    '([.traceEvents[] | select(.ph == "M" and .name == "thread_name")
       | {key: "\(.pid)/\(.tid)", value: .args.name}] | from_entries) as $row
     | [.traceEvents[] | select(.cat == "step") | .args.channel] as $chs
     | ($chs | max) == 63
       and ([.traceEvents[] | select(.cat == "step") | .args.channel as $c
             | $row["\(.pid)/\(.tid)"] | test(" channel \($c)( [(][0-9]+[)])?$")] | all)'
if cmp -s "$T/a.json" "$T/b.json" && cmp -s "$T/a.trace" "$T/b.trace"; then
    echo "ok    same scenario, same JSON and trace"
    pass=$((pass + 1))
else
    echo "FAIL  same scenario, same JSON and trace"
    fail=$((fail + 1))
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
