#!/usr/bin/env bash
# Hybrid fidelity (sim.fidelity hybrid, docs/hybrid.md): packets in
# sim.region, flows outside. Against the packet level on the same scenario
# (an incast into pod 0 with cross traffic; the same with a failure in pod
# 0): the region's incast FCTs agree within 5 % on the mean, with a tenth of
# the events or fewer; every flow completes and a lossless fabric drops
# nothing; the run is deterministic. Bad regions, a region without hybrid,
# hybrid without a region and a fault outside the region are refused with
# exit 2, naming the key (and the file's line).
# Usage: tests/cli/test_hybrid.sh BNET
set -uo pipefail
source tests/cli/lib.sh

# mean incast FCT (flows into host 0) of a run's JSON
incast_mean() { jq '[.flows[] | select(.dst == 0) | .fct_us] | add / length' "$1"; }

for s in hybrid_incast hybrid_fault; do
    "$BNET" run "scenarios/$s.yaml" --fidelity packet --set sim.region= --quiet --reproducible \
        --json "$T/$s-p.json" >/dev/null 2>&1
    st=$?
    ok "$s at packet level: exit 0 (got $st)" $st
    "$BNET" run "scenarios/$s.yaml" --quiet --reproducible --json "$T/$s-h.json" >/dev/null 2>&1
    st=$?
    ok "$s hybrid: exit 0 (got $st)" $st
    check "... every flow completed, nothing dropped (PFC)" "$T/$s-h.json" \
        '.summary.flows_completed == .summary.flows and .summary.drops == 0 and .sim.stop_reason == "completed"'
    check "... 16 queue pairs as packets, 112 as flows, a pod of 16 hosts and 8 switches" "$T/$s-h.json" \
        '.hybrid.packet_qps == 16 and .hybrid.flow_qps == 112 and .hybrid.region_hosts == 16 and .hybrid.region_switches == 8 and .hybrid.shared_ports > 0 and .hybrid.updates > 0'
    p=$(incast_mean "$T/$s-p.json") h=$(incast_mean "$T/$s-h.json")
    awk -v p="$p" -v h="$h" 'BEGIN { d = h / p - 1; exit !(d < 0.05 && d > -0.05) }'
    ok "... incast mean FCT $h us against the packet level's $p us: within 5 %" $?
    pe=$(jq .sim.events "$T/$s-p.json") he=$(jq .sim.events "$T/$s-h.json")
    ((he * 10 <= pe))
    ok "... $he events against the packet level's $pe: a tenth or fewer" $?
done

"$BNET" run scenarios/hybrid_incast.yaml --quiet --reproducible --json "$T/again.json" >/dev/null 2>&1
cmp -s "$T/hybrid_incast-h.json" "$T/again.json"
ok "hybrid_incast twice: byte-identical JSON" $?

# fault:0:0: the failing link's two switches (tor0, agg0); fault:0:2 reaches
# pod 0's hosts and every core, so every queue pair is packets
"$BNET" run scenarios/hybrid_fault.yaml --region fault:0:0 --quiet --reproducible \
    --json "$T/f0.json" >/dev/null 2>&1
st=$?
ok "hybrid_fault with region fault:0:0: exit 0 (got $st)" $st
check "... tor0 and agg0, 16 queue pairs as packets" "$T/f0.json" \
    '.hybrid.region_hosts == 0 and .hybrid.region_switches == 2 and .hybrid.packet_qps == 16 and .summary.flows_completed == .summary.flows'
p=$(incast_mean "$T/hybrid_fault-p.json") h=$(incast_mean "$T/f0.json")
awk -v p="$p" -v h="$h" 'BEGIN { d = h / p - 1; exit !(d < 0.05 && d > -0.05) }'
ok "... incast mean FCT $h us against the packet level's $p us: within 5 %" $?
"$BNET" run scenarios/hybrid_fault.yaml --region fault:0:2 --quiet --reproducible \
    --json "$T/f2.json" >/dev/null 2>&1
st=$?
ok "fault:0:2: exit 0 (got $st)" $st
check "... two hops reach pods 0's hosts and every core: all 128 queue pairs as packets" "$T/f2.json" \
    '.hybrid.region_hosts == 16 and .hybrid.packet_qps == 128 and .hybrid.flow_qps == 0'

# job:trainer is the trainer's hosts, pod 0: the same run as hosts:0-15, and
# its iteration within 5 % of the packet level's
"$BNET" job scenarios/hybrid_jobs.yaml --json "$T/j.json" >/dev/null 2>&1
st=$?
ok "hybrid_jobs (region job:trainer): exit 0 (got $st)" $st
"$BNET" job scenarios/hybrid_jobs.yaml --region hosts:0-15 --json "$T/jh.json" >/dev/null 2>&1
st=$?
ok "... region hosts:0-15: exit 0 (got $st)" $st
"$BNET" job scenarios/hybrid_jobs.yaml --fidelity packet --region= --json "$T/jp.json" >/dev/null 2>&1
st=$?
ok "... at packet level: exit 0 (got $st)" $st
same='del(.command, .config) | .sim |= del(.wall_s)'
[[ "$(jq -S "$same" "$T/j.json")" == "$(jq -S "$same" "$T/jh.json")" ]]
ok "... the same run as region hosts:0-15" $?
p=$(jq '.jobs[0].iteration_us' "$T/jp.json") h=$(jq '.jobs[0].iteration_us' "$T/j.json")
awk -v p="$p" -v h="$h" 'BEGIN { d = h / p - 1; exit !(d < 0.05 && d > -0.05) }'
ok "... the trainer's iteration $h us against the packet level's $p us: within 5 %" $?

# sim.hybrid_queues: the shared switch ports mark for the flows' M/D/1
# queue, so more marks than without; the region stays within 5 %
"$BNET" run scenarios/hybrid_incast.yaml --set sim.hybrid_queues=true --quiet --reproducible \
    --json "$T/q.json" >/dev/null 2>&1
st=$?
ok "hybrid_incast with sim.hybrid_queues: exit 0 (got $st)" $st
mq=$(jq .summary.ecn_marks "$T/q.json") m0=$(jq .summary.ecn_marks "$T/hybrid_incast-h.json")
((mq > m0))
ok "... $mq ECN marks against $m0 without the flows' queues" $?
p=$(incast_mean "$T/hybrid_incast-p.json") h=$(incast_mean "$T/q.json")
awk -v p="$p" -v h="$h" 'BEGIN { d = h / p - 1; exit !(d < 0.05 && d > -0.05) }'
ok "... incast mean FCT $h us against the packet level's $p us: within 5 %" $?

# bnet coll with one server as the region: busbw within 5 % of the packet level's
"$BNET" coll --fidelity hybrid --region hosts:0-7 -b 8M -e 8M --json "$T/ch.json" >/dev/null 2>&1
st=$?
ok "bnet coll in hybrid, region hosts:0-7: exit 0 (got $st)" $st
"$BNET" coll --fidelity packet -b 8M -e 8M --json "$T/cp.json" >/dev/null 2>&1
p=$(jq '.rows[0].busbw_gbs' "$T/cp.json") h=$(jq '.rows[0].busbw_gbs' "$T/ch.json")
awk -v p="$p" -v h="$h" 'BEGIN { d = h / p - 1; exit !(d < 0.05 && d > -0.05) }'
ok "... busbw $h GB/s against the packet level's $p GB/s: within 5 %" $?

# refusals: exit 2, one line naming the key
refused "hybrid without a region" "key 'sim.region'" run --fidelity hybrid
refused "a region without hybrid" "key 'sim.region'" run --region hosts:0-3
refused "hosts past the fabric" "hosts 0-999" run --fidelity hybrid --region hosts:0-999
refused "a reversed range" "key 'sim.region'" run --fidelity hybrid --region hosts:9-3
refused "hex host numbers" "key 'sim.region'" run --fidelity hybrid --region hosts:0x10
refused "an unknown switch" "no switch named 'spine9'" run --fidelity hybrid --region switches:tor0,spine9
refused "an empty list" "no host or switch is named" run --fidelity hybrid --region hosts:
refused "an unknown form" "expected \"hosts:LIST\"" run --fidelity hybrid --region pod:1
refused "fault: without faults" "has no faults" run scenarios/hybrid_incast.yaml --region fault:0:1
refused "fault: past the faults" "fault 1: the scenario has faults 0-0" run scenarios/hybrid_fault.yaml \
    --region fault:1:0
refused "fault: too many hops" "9 hops: 0 to 8" run scenarios/hybrid_fault.yaml --region fault:0:9
refused "fault: without hops" "expected \"fault:I:N\"" run scenarios/hybrid_fault.yaml --region fault:0
refused "job: without jobs" "has no jobs" run scenarios/hybrid_incast.yaml --region job:0
refused "job: outside bnet job" "placed by bnet job" run scenarios/hybrid_jobs.yaml
refused "job: an unknown name" "no job named 'nobody'" job scenarios/hybrid_jobs.yaml --region job:nobody
refused "job: past the jobs" "job 2: the scenario has jobs 0-1" job scenarios/hybrid_jobs.yaml \
    --region job:2
sed 's/job:trainer/job:9/' scenarios/hybrid_jobs.yaml >"$T/badjob.yaml"
refused "job: in a file: its line" "badjob.yaml:35: key 'sim.region'" job "$T/badjob.yaml"
printf 'sim:\n  fidelity: hybrid\n  region: "hosts:0-999"\n' >"$T/bad.yaml"
refused "a bad region in a file: its line" "bad.yaml:3: key 'sim.region'" run "$T/bad.yaml"
refused "a fault outside the region" "key 'faults\[0\].target'" run scenarios/hybrid_fault.yaml \
    --region hosts:16-31
refused "with partitions" "key 'sim.partitions'" run scenarios/hybrid_incast.yaml --partitions 2
finish
