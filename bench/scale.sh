#!/usr/bin/env bash
# Collectives at 100k-GPU scale (docs/flow_level.md, "Aggregate collectives"):
#   targets    wall time and peak memory, one core, of
#              - bnet topo on scenarios/cluster_131k.yaml (topology, routes)
#              - a 1 GiB hierarchical AllReduce at the flow level in
#                aggregate (coll.aggregate) on 16,384 GPUs (--nranks) and on
#                131,072 GPUs (scenarios/cluster_131k.yaml)
#   agreement  the aggregate against the stepwise flow level, busbw per
#              size, ring and hier, on the 128-GPU cluster and on 1024 GPUs
#   stepwise   wall time and peak memory of stepwise (compact) ring and
#              hier AllReduce rows of 64 MiB at the flow level, 1024 and
#              2048 GPUs
#   jobs       one training iteration of a Llama-3-70B-shaped job at the
#              flow level in aggregate: 4,096 GPUs (job_llama70b_16k with
#              DP 64) against its stepwise run, 16,384 and 131,072 GPUs
#   speed      bench/run.sh's cases (CASES, default the quick ones and
#              websearch-1024) at both levels, back to back: user+system
#              CPU seconds of each, packet / flow, and each level's result;
#              BEFORE=path/to/bnet adds that build's flow level (paired
#              before/after). CPU, not wall: the machine is shared.
#              ring-128 is ring-1024's ring on 128 GPUs (k=8) and 16 MiB:
#              the stepwise ring that still fits minutes at both levels.
# Timed with /usr/bin/time (process wall, peak RSS); busbw read from bnet's
# JSON with jq.
# Usage: bench/scale.sh [targets|agreement|stepwise|jobs|speed|all]   (default: all;
# speed is not in all)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/need-packages.sh time jq
scripts/setup.sh build >/dev/null
bnet=build/bnet
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
what=${1:-all}

# timed LABEL ARGS...: one bnet command, its wall seconds and peak MB
timed() {
    local label=$1
    shift
    /usr/bin/time -f '%e %M' -o "$out/time" "$bnet" "$@" >/dev/null
    read -r wall kb <"$out/time"
    printf '%-44s %8.2f s %9.1f MB\n' "$label" "$wall" "$(echo "$kb / 1024" | bc -l)"
}

if [[ $what == targets || $what == all ]]; then
    echo "# target: topology at 131,072 GPUs < 10 s; AllReduce 1 GiB: 16,384 GPUs < 5 s, 131,072 < 60 s and 8 GB"
    timed "bnet topo cluster_131k" topo scenarios/cluster_131k.yaml
    agg=(--fidelity flow --set coll.aggregate=true --algo hier -b 1G -e 1G --json "$out/r.json")
    timed "hier AllReduce 1 GiB, 16,384 GPUs" coll --nranks 16384 "${agg[@]}"
    echo "  busbw $(jq '.rows[0].busbw_gbs' "$out/r.json") GB/s"
    timed "hier AllReduce 1 GiB, 131,072 GPUs" coll scenarios/cluster_131k.yaml "${agg[@]}"
    echo "  busbw $(jq '.rows[0].busbw_gbs' "$out/r.json") GB/s"
fi

if [[ $what == agreement || $what == all ]]; then
    echo "# aggregate against stepwise, flow level: busbw (GB/s) and aggregate / stepwise - 1"
    printf '%-22s %12s %10s %10s %8s\n' case size stepwise aggregate diff
    for ranks in 128 1024; do
        for a in ring hier; do
            for agg in false true; do
                "$bnet" coll --nranks "$ranks" --fidelity flow --algo "$a" -b 1M -e 1G -f 8 \
                    --set coll.in_place=false --set coll.aggregate=$agg \
                    --json "$out/$agg.json" >/dev/null
            done
            join <(jq -r '.rows[] | "\(.size) \(.busbw_gbs)"' "$out/false.json") \
                <(jq -r '.rows[] | "\(.size) \(.busbw_gbs)"' "$out/true.json") |
                awk -v c="$a-$ranks" '{ printf "%-22s %12s %10.2f %10.2f %+7.1f%%\n", c, $1, $2, $3, ($3 / $2 - 1) * 100 }'
        done
    done
fi

if [[ $what == stepwise || $what == all ]]; then
    echo "# stepwise schedules, compact (ring: chains; hier: two-level chains), flow level"
    for ranks in 1024 2048; do
        for a in ring hier; do
            timed "$a AllReduce 64 MiB, $ranks GPUs, stepwise" coll --nranks "$ranks" \
                --fidelity flow --algo "$a" -b 64M -e 64M --set coll.in_place=false \
                --json "$out/r.json"
            jq -r '.rows[0] | "  busbw \(.busbw_gbs) GB/s, #wrong \(.wrong)"' "$out/r.json"
        done
    done
fi

if [[ $what == jobs || $what == all ]]; then
    echo "# target: a Llama-3-70B-shaped iteration, flow level: 16,384 GPUs < 5 min, 131,072 < 30 min"
    dp64=(--set jobs.0.dp=64 --set jobs.0.global_batch=512)
    for agg in false true; do
        timed "job 4,096 GPUs, coll.aggregate=$agg" job scenarios/job_llama70b_16k.yaml \
            "${dp64[@]}" --set coll.aggregate=$agg --json "$out/j$agg.json"
        echo "  iteration $(jq '.jobs[0].iteration_us' "$out/j$agg.json") us"
    done
    timed "job 16,384 GPUs (job_llama70b_16k)" job scenarios/job_llama70b_16k.yaml --json "$out/j.json"
    echo "  iteration $(jq '.jobs[0].iteration_us' "$out/j.json") us"
    timed "job 131,072 GPUs (job_llama70b_131k)" job scenarios/job_llama70b_131k.yaml --json "$out/j.json"
    echo "  iteration $(jq '.jobs[0].iteration_us' "$out/j.json") us"
fi

# speed_args CASE: bench/run.sh's command line for that case (kept the same).
speed_args() {
    local perm=(--set workload.kind=permutation --set workload.message_bytes=2000000
                --set nic.mtu_bytes=4096 --set link.rate_gbps=100 --set nic.rto_backoff=false)
    local spray=(--set nic.entropy=per_packet --set nic.transport=selective_repeat)
    local k
    case ${1##*-} in 128) k=8 ;; 1024) k=16 ;; 8192) k=32 ;; esac
    case $1 in
    perm-ecmp-*) args=(run --quiet --set topology.k="$k" "${perm[@]}") ;;
    perm-spray-*) args=(run --quiet --set topology.k="$k" "${perm[@]}" "${spray[@]}") ;;
    ring-128) args=(coll scenarios/default.yaml --set topology.k=8 --set fabric=ib-ndr
                    --set link.rate_gbps=100 --set nic.congestion_control=none
                    --set nic.tx_ns=0 --set nic.rx_ns=0 --set nic.msg_rate_mpps=0
                    --set host.pcie_gen=0 --set coll.in_place=false --algo ring -b 16M -e 16M) ;;
    ring-1024) args=(coll scenarios/default.yaml --set topology.k=16 --set fabric=ib-ndr
                     --set link.rate_gbps=100 --set nic.congestion_control=none
                     --set nic.tx_ns=0 --set nic.rx_ns=0 --set nic.msg_rate_mpps=0
                     --set host.pcie_gen=0 --set coll.in_place=false --algo ring -b 64M -e 64M) ;;
    incast-pfc) args=(run --quiet --set topology.k=16 --set workload.kind=incast
                      --set workload.incast_senders=255 --set workload.message_bytes=1000000
                      --set link.flow_control=pfc --set nic.congestion_control=dcqcn) ;;
    websearch-1024) args=(run --quiet --set topology.k=16 --set fabric=roce-400g
                          --set link.rate_gbps=100 --set workload.kind=poisson
                          --set workload.size_cdf=websearch --set workload.load=0.5
                          --set workload.duration_us=10000 --set observe.sample_us=0) ;;
    *) echo "bench/scale.sh: unknown case '$1'" >&2; exit 2 ;;
    esac
}

# cpu BNET ARGS...: user+system CPU seconds of one run; its JSON in $out/r.json
cpu() {
    local b=$1
    shift
    /usr/bin/time -f '%U %S' -o "$out/time" "$b" "$@" --json "$out/r.json" >/dev/null
    awk '{ printf "%.2f", $1 + $2 }' "$out/time"
}

result() { jq -r 'if .rows then "busbw \(.rows[0].busbw_gbs)" else "mean \(.summary.throughput_gbps.mean | . * 1000 | round / 1000)" end' "$out/r.json"; }
loop() { jq -r 'if .sim then (.sim.wall_s | . * 1000 | round / 1000) else "-" end' "$out/r.json"; }
ratio() { if [[ $1 == - || $2 == - ]]; then echo -; else echo "$1 $2" | awk '{ printf "%.1fx", ($2 > 0 ? $1 / $2 : 0) }'; fi; }

if [[ $what == speed ]]; then
    echo "# packet against flow level, back to back: process CPU seconds (user+system) and"
    echo "# the event loop's wall seconds (sim.wall_s; bnet coll has none); before: BEFORE's flow level"
    printf '%-16s %8s %8s %8s %7s | %8s %8s %8s %7s | %s\n' case packet flow before ratio \
        packet flow before ratio "result: packet / flow"
    for c in ${CASES:-perm-ecmp-128 perm-spray-128 perm-ecmp-1024 perm-spray-1024 ring-128 ring-1024 incast-pfc websearch-1024}; do
        speed_args "$c"
        p=$(cpu "$bnet" "${args[@]}"); pl=$(loop); pr=$(result)
        f=$(cpu "$bnet" "${args[@]}" --fidelity flow); fl=$(loop); fr=$(result)
        b=- bl=-
        if [[ -n ${BEFORE:-} ]]; then b=$(cpu "$BEFORE" "${args[@]}" --fidelity flow); bl=$(loop); fi
        printf '%-16s %8s %8s %8s %7s | %8s %8s %8s %7s | %s / %s\n' "$c" "$p" "$f" "$b" "$(ratio "$p" "$f")" \
            "$pl" "$fl" "$bl" "$(ratio "$pl" "$fl")" "$pr" "$fr"
    done
fi
