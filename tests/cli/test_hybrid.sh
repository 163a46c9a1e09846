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

# refusals: exit 2, one line naming the key
refused() {
    local name=$1 want=$2
    shift 2
    "$BNET" run "$@" --quiet >/dev/null 2>"$T/err"
    local st=$?
    [[ $st -eq 2 ]] && grep -q -- "$want" "$T/err" && [[ $(wc -l <"$T/err") -eq 1 ]]
    ok "$name: exit 2 naming $want (got $st: $(head -1 "$T/err"))" $?
}
refused "hybrid without a region" "key 'sim.region'" --fidelity hybrid
refused "a region without hybrid" "key 'sim.region'" --region hosts:0-3
refused "hosts past the fabric" "hosts 0-999" --fidelity hybrid --region hosts:0-999
refused "a reversed range" "key 'sim.region'" --fidelity hybrid --region hosts:9-3
refused "hex host numbers" "key 'sim.region'" --fidelity hybrid --region hosts:0x10
refused "an unknown switch" "no switch named 'spine9'" --fidelity hybrid --region switches:tor0,spine9
refused "an empty list" "no host or switch is named" --fidelity hybrid --region hosts:
refused "an unknown form" "expected \"hosts:LIST\"" --fidelity hybrid --region pod:1
printf 'sim:\n  fidelity: hybrid\n  region: "hosts:0-999"\n' >"$T/bad.yaml"
refused "a bad region in a file: its line" "bad.yaml:3: key 'sim.region'" "$T/bad.yaml"
refused "a fault outside the region" "key 'faults\[0\].target'" scenarios/hybrid_fault.yaml \
    --region hosts:16-31
refused "with partitions" "key 'sim.partitions'" scenarios/hybrid_incast.yaml --partitions 2
finish
