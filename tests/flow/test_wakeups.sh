#!/usr/bin/env bash
# The flow level's wake-ups for the earliest message to finish
# (src/flow/engine.c, BN_EV_FLOW_SENT): a wake-up left behind by a rate
# change must not arm another, or every finish costs as many events as
# there were rate changes before it. Poisson WebSearch traffic on a k=8
# fat-tree changes rates at every arrival: the run takes a handful of
# events per flow (41 per flow before the fix, 6.5 with it).
# Usage: tests/flow/test_wakeups.sh BNET
set -uo pipefail
source tests/cli/lib.sh
$BNET run --quiet --fidelity flow --set topology.k=8 --set workload.kind=poisson \
  --set workload.size_cdf=websearch --set workload.load=0.5 --set workload.duration_us=500 \
  --set observe.sample_us=0 --json "$T/a.json"
ok "a poisson run at flow level exits 0" $?
check "every flow completes" "$T/a.json" '.summary.flows_completed == .summary.flows and .summary.flows > 100'
check "at most 10 events per flow" "$T/a.json" '.sim.events <= 10 * .summary.flows'
finish
