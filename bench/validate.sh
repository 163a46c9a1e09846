#!/usr/bin/env bash
# Flow level against packet level (docs/flow_level.md): every shipped
# scenario and collective sweep that both fidelities run, once with
# --fidelity packet and once with --fidelity flow, the same seed; prints per
# figure the two values and how far the flow level is from the packet level
# (flow / packet - 1), then each target of the issue with its worst case:
#   allreduce busbw at >= 1 MiB (ring, tree, hierarchical)   within 5 %
#   permutation mean throughput, sprayed or adaptive           within 10 %
# and the aggregate collectives (coll.aggregate, flow level) against the
# same packet rows: ring and hier on cluster128; trees in LL, whose
# connections cannot run far ahead (docs/flow_level.md); the 16-GPU tree
# with buffers its credits never stall in; and hybrid runs'
# regions (docs/hybrid.md): incasts and a failure at 128 and 1024 hosts, two
# jobs at 1024 GPUs, bnet coll with a server as the region; the hybrid
# figure in the flow column.
# and the wall time of both levels. Figures read from bnet's JSON with jq.
# Usage: bench/validate.sh [quick|full]   quick (default): sweeps to 64 MiB;
# full: to 1 GiB (the packet level takes minutes). Also writes the rows as
# tab-separated values to $VALIDATE_TSV when it is set.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/need-packages.sh jq
scripts/setup.sh build >/dev/null
bnet=build/bnet
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
max=64M
[[ ${1:-quick} == full ]] && max=1G
rows=$out/rows.tsv
: >"$rows"
wall_p=0 wall_f=0

# run NAME MODE ARGS...: both levels into $out/NAME.{packet,flow}.json
run() {
    local name=$1 level t0 t1
    shift
    for level in packet flow; do
        t0=$(date +%s.%N)
        "$bnet" "$@" --fidelity "$level" --json "$out/$name.$level.json" >/dev/null 2>&1 ||
            { echo "validate: '$*' failed at $level level" >&2; exit 1; }
        t1=$(date +%s.%N)
        if [[ $level == packet ]]; then
            wall_p=$(echo "$wall_p + $t1 - $t0" | bc -l)
        else
            wall_f=$(echo "$wall_f + $t1 - $t0" | bc -l)
        fi
    done
}

# figures NAME CLASS JQ: JQ turns one result into "figure<TAB>value" lines;
# the rows pair them by figure.
figures() {
    local name=$1 class=$2 filter=$3
    join -t $'\t' <(jq -r "$filter" "$out/$name.packet.json" | sort) \
        <(jq -r "$filter" "$out/$name.flow.json" | sort) |
        awk -F'\t' -v n="$name" -v c="$class" \
            '{ d = $2 > 0 ? ($3 / $2 - 1) * 100 : 0; printf "%s\t%s\t%s\t%s\t%s\t%.1f\n", c, n, $1, $2, $3, d }' \
            >>"$rows"
}

flows='.summary | "throughput_mean\t\(.throughput_gbps.mean)", "throughput_p50\t\(.throughput_gbps.p50)",
       "throughput_min\t\(.throughput_gbps.min)", "fct_p50_us\t\(.fct_us.p50)", "fct_p99_us\t\(.fct_us.p99)"'
coll='.rows[] | "busbw_\(.algo)_\(.size)\t\(.busbw_gbs)"'
job='.jobs[] | "iteration_us_\(.name)\t\(.iteration_us)"'

for s in lb_spray_entropy lb_spray_random lb_adaptive; do
    run "$s" run "scenarios/$s.yaml"
    figures "$s" spread "$flows"
done
for s in default lb_ecmp lb_flowlet lb_polarization lb_spray_go_back_n all_to_all dcqcn_fairness \
    incast_pfc_none incast_pfc_dcqcn incast_credit_ib_cc leaf_spine_incast hol_pfc \
    hol_pfc_dcqcn hol_victim_alone from_file; do
    run "$s" run "scenarios/$s.yaml"
    figures "$s" other "$flows"
done
for a in ring tree hier; do
    run "cluster128-$a" coll scenarios/cluster128.yaml --set coll.in_place=false --algo "$a" -b 1M -e "$max" -f 4
    figures "cluster128-$a" allreduce "$coll"
done
# trees whose connections cannot run far ahead (LL: 8 steps of 64 KiB),
# the evidence for the gap of the rows above (docs/flow_level.md, "Trees
# that run ahead")
for a in tree htree; do
    run "cluster128-$a-ll" coll scenarios/cluster128.yaml --set coll.in_place=false --algo "$a" \
        --proto ll -b 64M -e 64M
    figures "cluster128-$a-ll" bounded "$coll"
done
# aggregate collectives (coll.aggregate) against the same packet rows
for a in ring hier; do
    t0=$(date +%s.%N)
    "$bnet" coll scenarios/cluster128.yaml --set coll.in_place=false --algo "$a" -b 1M -e "$max" -f 4 \
        --fidelity flow --set coll.aggregate=true --json "$out/cluster128-$a-agg.flow.json" \
        >/dev/null 2>&1 || { echo "validate: cluster128 $a in aggregate failed" >&2; exit 1; }
    wall_f=$(echo "$wall_f + $(date +%s.%N) - $t0" | bc -l)
    cp "$out/cluster128-$a.packet.json" "$out/cluster128-$a-agg.packet.json"
    figures "cluster128-$a-agg" aggregate "$coll"
done
for a in ring tree; do
    run "fattree16-$a" coll --set topology.kind=fat_tree --set topology.k=4 --set fabric=none \
        --set scale_up.domain_gpus=0 --set topology.gpus_per_server=1 --set coll.in_place=false --algo "$a" \
        -b 1M -e "$max" -f 4
    figures "fattree16-$a" allreduce "$coll"
done
# the same tree with buffers no queue fills (64 MiB a port): the packet
# level's credits never stall, which the flow level assumes (docs/flow_level.md,
# "Trees that run ahead")
run fattree16-tree-deepbuf coll --set topology.kind=fat_tree --set topology.k=4 --set fabric=none \
    --set scale_up.domain_gpus=0 --set topology.gpus_per_server=1 --set coll.in_place=false \
    --set switch.buffer_bytes=67108864 --algo tree -b 1M -e "$max" -f 4
figures fattree16-tree-deepbuf deepbuf "$coll"
for s in job_default jobs_noisy_neighbor; do
    run "$s" job "scenarios/$s.yaml"
    figures "$s" job "$job"
done
# hybrid fidelity (docs/hybrid.md): its region's flows, the incast into
# host 0, against the packet level; the "flow" column holds the hybrid run
incast='[.flows[] | select(.dst == 0) | .fct_us] | "incast_fct_mean_us\t\(add / length)", "incast_fct_max_us\t\(max)"'
# hybrid CMD NAME ARGS...: the packet level into NAME.packet.json, the
# scenario's own hybrid run into NAME.flow.json
hybrid() {
    local cmd=$1 name=$2 t0 t1 t2
    shift 2
    t0=$(date +%s.%N)
    "$bnet" "$cmd" "$@" --fidelity packet --region "" --json "$out/$name.packet.json" >/dev/null 2>&1 ||
        { echo "validate: $name failed at packet level" >&2; exit 1; }
    t1=$(date +%s.%N)
    "$bnet" "$cmd" "$@" --json "$out/$name.flow.json" >/dev/null 2>&1 ||
        { echo "validate: $name failed in hybrid" >&2; exit 1; }
    t2=$(date +%s.%N)
    wall_p=$(echo "$wall_p + $t1 - $t0" | bc -l)
    wall_f=$(echo "$wall_f + $t2 - $t1" | bc -l)
}
for s in hybrid_incast hybrid_fault hybrid_incast_1k hybrid_fault_1k; do
    hybrid run "$s" "scenarios/$s.yaml"
    figures "$s" hybrid "$incast"
done
# two jobs sharing the aggregation and core layers at 1024 GPUs: job a is
# the region, its iteration the figure
hybrid job hybrid_jobs_1k scenarios/hybrid_jobs_1k.yaml
figures hybrid_jobs_1k hybrid '.jobs[0] | "iteration_mean_us_\(.name)\t\(.iteration_us)"'
# bnet coll with one server (8 GPUs) as the region, against the packet rows
# of cluster128 above: busbw at >= 1 MiB
for a in ring tree hier; do
    t0=$(date +%s.%N)
    "$bnet" coll scenarios/cluster128.yaml --set coll.in_place=false --algo "$a" -b 1M -e "$max" -f 4 \
        --fidelity hybrid --region hosts:0-7 --json "$out/cluster128-$a-hy.flow.json" >/dev/null 2>&1 ||
        { echo "validate: cluster128 $a in hybrid failed" >&2; exit 1; }
    wall_f=$(echo "$wall_f + $(date +%s.%N) - $t0" | bc -l)
    cp "$out/cluster128-$a.packet.json" "$out/cluster128-$a-hy.packet.json"
    figures "cluster128-$a-hy" hybrid "$coll"
done

printf '%-10s %-22s %-26s %12s %12s %8s\n' class case figure packet flow 'diff %'
sort -t $'\t' -k1,1 -k2,2 -k3,3V "$rows" |
    awk -F'\t' '{ printf "%-10s %-22s %-26s %12.3f %12.3f %8s\n", $1, $2, $3, $4, $5, $6 }'
[[ -n ${VALIDATE_TSV:-} ]] && cp "$rows" "$VALIDATE_TSV"
echo
# the targets: the worst |diff| of their rows
awk -F'\t' '
    function abs(x) { return x < 0 ? -x : x }
    $1 == "allreduce" { if (abs($6) > ar) { ar = abs($6); arw = $2 " " $3 } }
    $1 == "spread" && $3 == "throughput_mean" { if (abs($6) > sp) { sp = abs($6); spw = $2 } }
    $1 == "aggregate" { if (abs($6) > ag) { ag = abs($6); agw = $2 " " $3 } }
    $1 == "bounded" { if (abs($6) > bd) { bd = abs($6); bdw = $2 " " $3 } }
    $1 == "deepbuf" && $3 ~ /_(16777216|67108864|268435456|1073741824)$/ {
        if (abs($6) > db) { db = abs($6); dbw = $2 " " $3 } }
    $1 == "hybrid" && $3 ~ /mean|busbw/ { if (abs($6) > hy) { hy = abs($6); hyw = $2 " " $3 } }
    END {
        printf "allreduce busbw >= 1 MiB      worst %5.1f %% (%s)  target 5 %%   %s\n", ar, arw, ar <= 5 ? "met" : "NOT met"
        printf "spread permutation mean       worst %5.1f %% (%s)  target 10 %%  %s\n", sp, spw, sp <= 10 ? "met" : "NOT met"
        printf "aggregate allreduce >= 1 MiB  worst %5.1f %% (%s)  no target\n", ag, agw
        printf "trees in LL, 64 MiB           worst %5.1f %% (%s)  no target\n", bd, bdw
        printf "tree, deep buffers, >= 16 MiB worst %5.1f %% (%s)  no target\n", db, dbw
        printf "hybrid region, mean / busbw   worst %5.1f %% (%s)  target 5 %%   %s\n", hy, hyw, hy <= 5 ? "met" : "NOT met"
    }' "$rows"
printf 'wall time: packet %.1f s, flow %.1f s\n' "$wall_p" "$wall_f"
