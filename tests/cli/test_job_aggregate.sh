#!/usr/bin/env bash
# bnet job at the flow level with coll.aggregate (docs/flow_level.md): a
# job's collectives run as one flow per connection, no shorter than their
# longest chain of hops. The iteration must agree with the stepwise flow
# level (within 1 %) on the shipped job and on a Llama-3-70B-shaped slice
# (TP 8 x PP 2 x DP 8, 128 GPUs), run far fewer events, and name the
# algorithms the stepwise run names.
# Usage: tests/cli/test_job_aggregate.sh BNET
set -uo pipefail
source tests/cli/lib.sh

within() { # A B PCT: |A/B - 1| <= PCT %
    awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a / b - 1; if (d < 0) d = -d; exit !(d <= p / 100) }'
}

l70=(--set jobs.0.pp=2 --set jobs.0.dp=8 --set jobs.0.layers=8 --set jobs.0.hidden=8192
     --set jobs.0.ffn_hidden=28672 --set jobs.0.heads=64 --set jobs.0.kv_heads=8
     --set jobs.0.seq_len=8192 --set jobs.0.vocab=128256 --set jobs.0.global_batch=32)
for case in default l70; do
    extra=()
    [[ $case == l70 ]] && extra=("${l70[@]}")
    for agg in false true; do
        $BNET job scenarios/job_default.yaml --fidelity flow --set coll.aggregate=$agg \
            "${extra[@]}" --json "$T/$case-$agg.json" >/dev/null 2>"$T/err"
        ok "$case: coll.aggregate=$agg exits 0" $?
    done
    s=$(jq '.jobs[0].iteration_us' "$T/$case-false.json")
    a=$(jq '.jobs[0].iteration_us' "$T/$case-true.json")
    echo "  $case: iteration stepwise $s us, aggregate $a us"
    within "$a" "$s" 1
    ok "$case: aggregate iteration within 1 % of stepwise" $?
    se=$(jq '.sim.events' "$T/$case-false.json") ae=$(jq '.sim.events' "$T/$case-true.json")
    [[ $ae -gt 0 && $((ae * 5)) -lt $se ]]
    ok "$case: aggregate runs under 1/5 of the events ($ae vs $se)" $?
    cmp -s <(jq -c '[.jobs[0].collectives[] | .algo]' "$T/$case-false.json") \
        <(jq -c '[.jobs[0].collectives[] | .algo]' "$T/$case-true.json")
    ok "$case: the same algorithms named" $?
done

$BNET job scenarios/job_default.yaml --set coll.aggregate=true >/dev/null 2>"$T/e"
[[ $? -eq 2 ]] && grep -q "coll.aggregate" "$T/e"
ok "coll.aggregate at packet level refused naming the key" $?
finish
