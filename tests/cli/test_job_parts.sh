#!/usr/bin/env bash
# bnet job cut into parts (docs/parallel.md, "Jobs on ranks") is the
# one-loop run in the keyed order, byte for byte: two jobs at once (tensor
# and data parallel; pipeline and data parallel, two iterations) on a
# fat-tree, in 1 to 4 parts and in one loop with sim.event_order: keyed,
# on a lossy go-back-N fabric and on PFC; a send the instant a collective
# lands (tensor with pipeline parallelism), background flows beside a
# training job, a job run again alone. A delivery reaches the jobs driver
# coll.step_latency_us after it lands, in parts as in one loop.
# Usage: tests/cli/test_job_parts.sh BNET
set -uo pipefail
source tests/cli/lib.sh

cp tests/data/jobs/two_jobs.yaml "$T/jobs.yaml"

# parts NAME ARGS...: one loop in the keyed order against 1..4 parts
parts() {
    local name=$1 st=0
    shift
    "$BNET" job "$T/jobs.yaml" --set sim.event_order=keyed --quiet "$@" --json "$T/k.json" ||
        { ok "$name: one loop" 1; return; }
    jq -S 'del(.command, .config)' "$T/k.json" >"$T/nk.json"
    for n in 1 2 3 4; do
        "$BNET" job "$T/jobs.yaml" --set sim.partitions=$n --quiet "$@" --json "$T/p.json" ||
            { st=1; echo "      $n parts: exit $?"; continue; }
        jq -S 'del(.command, .config)' "$T/p.json" >"$T/n.json"
        cmp -s "$T/nk.json" "$T/n.json" || { st=1; diff "$T/nk.json" "$T/n.json" | head -4; }
    done
    ok "$name: 1..4 parts, the one loop's JSON" $st
}

parts "two jobs, lossy go-back-N"
check "both jobs ran their iterations, frames were sent again" "$T/p.json" \
    '(.jobs | length) == 2 and .jobs[1].iterations == 2 and .sim.retransmits > 0 and
     all(.jobs[]; .iteration_us > 0 and (.failed | not))'
parts "two jobs, PFC" --set link.flow_control=pfc
parts "a send the instant a collective lands" --set jobs.1.tp=2 --set jobs.1.dp=2
parts "background flows beside training" --set jobs.1.kind=background --set jobs.1.gpus=4
check "the background flows ran" "$T/p.json" '.jobs[1].background.flows_done > 0'
parts "run alone, a later start" --set jobs.0.alone=true --set jobs.1.start_us=300
finish
