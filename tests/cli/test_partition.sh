#!/usr/bin/env bash
# Partitioned runs (sim.partitions, docs/parallel.md): the fabric cut into
# 2 and 4 parts and run in synchronous windows, frames and flow-control
# signals crossing the cut held to the window's end and delivered in
# another order into fresh pool slots, gives the JSON of the one-loop run
# in the keyed order, byte for byte: lossy go-back-N, PFC (with DCQCN, and
# pausing across the cut), HPCC (its in-band telemetry records travel with
# the frames), InfiniBand credits with IB CC, a SHARP (CollNet) AllReduce
# and a hierarchical one over NVLink domains. The windows are as long as
# the lookahead (the least propagation over a cut link: 10 m of fiber, 50 ns),
# frames did cross, and the cut is the one the fabric forces (a k=8
# fat-tree in 2 parts: half of every core's 8 links). Bad requests are one
# message, exit 2.
# Usage: tests/cli/test_partition.sh BNET
set -uo pipefail
source tests/cli/lib.sh

# same NAME ARGS...: bnet run with 1, 2 and 4 parts, JSON compared less
# the partition section (and the command line and config that name it)
same() {
    local name=$1 n
    shift
    for n in 1 2 4; do
        "$BNET" run "$@" --set sim.partitions=$n --reproducible --json "$T/r$n.json" --quiet ||
            { ok "$name: $n parts run" 1; return; }
        jq -S 'del(.partition, .command, .config)' "$T/r$n.json" >"$T/n$n.json"
    done
    cmp -s "$T/n1.json" "$T/n2.json" && cmp -s "$T/n1.json" "$T/n4.json"
    ok "$name: 2 and 4 parts byte-identical to 1" $?
    check "$name: frames crossed the cut in windows of the lookahead" "$T/r2.json" \
        '.partition.cut_frames > 0 and .partition.lookahead_ns == 50 and .partition.windows > 1'
}

same "lossy go-back-N" --set topology.k=8 --set workload.message_bytes=300KB
same "PFC + DCQCN incast" scenarios/incast_pfc_dcqcn.yaml --set workload.message_bytes=200KB
same "PFC head-of-line blocking" scenarios/hol_pfc.yaml
check "PFC pauses crossed the cut" "$T/r2.json" '.partition.cut_signals > 0'
same "HPCC, its in-band telemetry carried across" --set nic.congestion_control=hpcc \
    --set workload.message_bytes=300KB
same "credits + IB CC incast" scenarios/incast_credit_ib_cc.yaml --set workload.message_bytes=200KB
check "credits crossed the cut" "$T/r2.json" '.partition.cut_signals > 0'
check "k=8 fat-tree in 2 parts: 64 cut links, 64 hosts each" "$T/r2.json" \
    '.partition.cut_links == 64 and .partition.hosts_max == 64 and .partition.hosts_min == 64'

# same_coll NAME ARGS...: bnet coll, rows compared less their partition
same_coll() {
    local name=$1 n
    shift
    for n in 1 2 4; do
        "$BNET" coll "$@" -n 1 -w 0 --set sim.partitions=$n --json "$T/c$n.json" >/dev/null ||
            { ok "$name: $n parts run" 1; return; }
        jq -S 'del(.command, .config, .rows[].partition)' "$T/c$n.json" >"$T/m$n.json"
    done
    cmp -s "$T/m1.json" "$T/m2.json" && cmp -s "$T/m1.json" "$T/m4.json"
    ok "$name: 2 and 4 parts byte-identical to 1" $?
    check "$name: frames crossed the cut" "$T/c2.json" 'all(.rows[]; .partition.cut_frames > 0)'
}

same_coll "SHARP CollNet AllReduce" -b 1M -e 1M --algo collnet --set sharp.enabled=true
same_coll "hierarchical AllReduce, NVLink domains" -b 4M -e 4M --algo hier

# stopped by sim.max_time_us while credits wait at a cut for the next
# window: the ledger counts the frames held there, not the credit signals
# (it counted one too many packets in flight, an internal error)
"$BNET" run scenarios/incast_credit_ib_cc.yaml --set sim.max_time_us=200 --set sim.partitions=4 \
    --quiet >/dev/null 2>"$T/held"
ok "stopped with credits held at a cut: the packet ledger balances" $?
"$BNET" run scenarios/fault_link_ib_sm.yaml --set sim.max_time_us=200 --set sim.partitions=2 \
    --quiet >/dev/null 2>>"$T/held"
ok "stopped with credits held at a cut, a link failed: the packet ledger balances" $?
[ -s "$T/held" ] && head -2 "$T/held"

"$BNET" run --set sim.partitions=2 --set sim.event_order=push --quiet 2>"$T/e1"
[[ $? -eq 2 ]] && grep -q "key 'sim.event_order'" "$T/e1"
ok "push order with partitions: refused, exit 2" $?
printf 'sim:\n  partitions: 40\n' >"$T/p40.yaml"
"$BNET" run "$T/p40.yaml" --quiet 2>"$T/e2"
[[ $? -eq 2 ]] && grep -q "p40.yaml:2: key 'sim.partitions': 40 parts" "$T/e2"
ok "more parts than leaves: refused at its line, exit 2" $?
"$BNET" run --set sim.partitions=2 --fidelity flow --quiet 2>"$T/e3"
[[ $? -eq 2 ]] && grep -q "key 'sim.partitions'" "$T/e3"
ok "partitions at flow level: refused, exit 2" $?
finish
