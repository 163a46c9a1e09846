#!/usr/bin/env bash
# Packet-level speed benchmark, a fixed suite (docs/performance.md):
#   perm-ecmp-N    permutation, N hosts (k-ary fat-tree), 100 Gb/s, 2 MB flows,
#                  MTU 4096, per-flow ECMP, go-back-N, lossy 1 MiB buffers
#   perm-spray-N   the same with per-packet spraying and selective repeat
#   ring-1024      Ring AllReduce of 64 MiB over 1024 GPUs (k=16 fat-tree,
#                  InfiniBand credits, 100 Gb/s), one row of bnet coll
#   incast-pfc     255 senders -> 1 receiver, 1 MB each, PFC + DCQCN, k=16
#   websearch-1024 Poisson WebSearch flows at 50 % load arriving for 10 ms on
#                  1024 hosts (k=16), 100 Gb/s RoCE with PFC + DCQCN
#                  (docs/traffic.md)
# Timed with /usr/bin/time (process wall, peak RSS); the rates divide by the
# event loop's own wall time (bnet run's sim.wall_s: start-up and output
# excluded; setup_s is the start-up) or, for bnet coll, the process wall.
# Figures read from bnet's JSON with jq. Each case runs REPS times (default 1); the fastest is reported, as
# machine noise only ever slows a run down.
#   flatness       the issue's flatness figure measured fairly: per round and
#                  load balancer, the 128-host case repeated until its loops
#                  add up to FLAT_S seconds (default 20, about one 8192-host
#                  run), then the 8192-host case once, so both
#                  sizes see the same minutes of a noisy machine (ROUNDS,
#                  default 3; prints each round's ratio and the median)
#   reroute        the cost a failure adds: wall time to recompute and compare
#                  the routes of a 1024- and an 8192-host fat-tree (k=16, 32)
#                  after one aggregation-core link dies (faults.reroute_wall_s)
# Usage: bench/run.sh [quick|full|flatness|reroute|CASE...]   quick (default):
# 128 and 1024 hosts only; full: every case but flatness and reroute (8192
# hosts take minutes each).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/need-packages.sh time jq
scripts/setup.sh build >/dev/null
reps=${REPS:-1}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

quick=(perm-ecmp-128 perm-spray-128 perm-ecmp-1024 perm-spray-1024 ring-1024 incast-pfc)
full=(perm-ecmp-128 perm-spray-128 perm-ecmp-1024 perm-spray-1024 perm-ecmp-8192
      perm-spray-8192 ring-1024 incast-pfc websearch-1024)
case "${1:-quick}" in
quick) cases=("${quick[@]}") ;;
full) cases=("${full[@]}") ;;
flatness | reroute) cases=() ;;
*) cases=("$@") ;;
esac

# The suite's work stays fixed across model changes: the permutations keep
# a stalled queue pair's timer at nic.rto_us, as before nic.rto_backoff, and
# the ring keeps the ideal NIC it had before the ib-ndr preset carried a
# NIC and host model (docs/endpoints.md).
perm=(--set workload.kind=permutation --set workload.message_bytes=2000000
      --set nic.mtu_bytes=4096 --set link.rate_gbps=100 --set nic.rto_backoff=false)
spray=(--set nic.entropy=per_packet --set nic.transport=selective_repeat)
k_of() { case $1 in 128) echo 8 ;; 1024) echo 16 ;; 8192) echo 32 ;; esac; }

# run_case NAME: the command line, then its JSON in $out/r.json, its wall
# seconds and peak KB in $out/time.
run_case() {
    local name=$1 args=()
    case $name in
    perm-ecmp-*) args=(run --quiet --set topology.k="$(k_of "${name##*-}")" "${perm[@]}") ;;
    perm-spray-*) args=(run --quiet --set topology.k="$(k_of "${name##*-}")" "${perm[@]}" "${spray[@]}") ;;
    ring-1024) args=(coll scenarios/default.yaml --set topology.k=16 --set fabric=ib-ndr
                     --set link.rate_gbps=100 --set nic.congestion_control=none
                     --set nic.tx_ns=0 --set nic.rx_ns=0 --set nic.msg_rate_mpps=0
                     --set host.pcie_gen=0
                     --set coll.in_place=false --algo ring -b 64M -e 64M) ;;
    incast-pfc) args=(run --quiet --set topology.k=16 --set workload.kind=incast
                      --set workload.incast_senders=255 --set workload.message_bytes=1000000
                      --set link.flow_control=pfc --set nic.congestion_control=dcqcn) ;;
    websearch-1024) args=(run --quiet --set topology.k=16 --set fabric=roce-400g
                          --set link.rate_gbps=100 --set workload.kind=poisson
                          --set workload.size_cdf=websearch --set workload.load=0.5
                          --set workload.duration_us=10000 --set observe.sample_us=0) ;;
    *) echo "bench/run.sh: unknown case '$name'" >&2; exit 2 ;;
    esac
    /usr/bin/time -f '%e %M' -o "$out/time" build/bnet "${args[@]}" --json "$out/r.json" >/dev/null
}

# One line of figures from the JSON of a run (bnet run) or a sweep (bnet coll).
figures() {
    local wall=$1 kb=$2
    jq -r --argjson wall "$wall" --argjson kb "$kb" '
      if .rows then
        {hosts: .collective.nranks, hops: .rows[0].packet_hops, events: .rows[0].events,
         setup: 0, result: "busbw \(.rows[0].busbw_gbs * 100 | round / 100) GB/s #wrong \(.rows[0].wrong)"}
      else
        {hosts: .topology.hosts, hops: .sim.packet_hops, events: .sim.events, setup: .sim.setup_s,
         loop: .sim.wall_s,
         result: "mean \(.summary.throughput_gbps.mean * 100 | round / 100) Gb/s, \(.summary.flows_completed) flows"}
      end |
      (.loop // $wall) as $busy |
      [.hosts, .hops, .events, $wall, .setup, (.hops / $busy / 1e6), (.events / $busy / 1e6),
       ($busy * 1e9 / .hops), ($kb / 1024), ($kb / .hosts), .result] | @tsv' "$out/r.json"
}

declare -A ns_per_hop
[ ${#cases[@]} -eq 0 ] ||
printf '%-16s %6s %11s %11s %8s %7s %8s %8s %7s %8s %8s  %s\n' case hosts packet-hops events \
  wall_s setup_s Mhops/s Mev/s ns/hop peak_MB KB/host "simulated result"
for c in "${cases[@]}"; do
    best="" line=""
    for ((r = 0; r < reps; r++)); do
        run_case "$c"
        read -r wall kb <"$out/time"
        if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then
            best=$wall
            line=$(figures "$wall" "$kb")
        fi
    done
    printf '%s\n' "$line" | awk -F'\t' -v c="$c" '{printf "%-16s %6s %11s %11s %8.2f %7.3f %8.2f %8.2f %7.0f %8.1f %8.1f  %s\n",
        c, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11}'
    ns_per_hop[$c]=$(printf '%s\n' "$line" | cut -f8)
done

# The issue's flatness figure: cost per packet-hop at 8192 hosts over 128.
for lb in ecmp spray; do
    big=${ns_per_hop[perm-$lb-8192]:-} small=${ns_per_hop[perm-$lb-128]:-}
    if [ -n "$big" ] && [ -n "$small" ]; then
        awk -v b="$big" -v s="$small" -v lb="$lb" \
            'BEGIN{printf "cost per packet-hop, 8192 hosts / 128 hosts (%s): %.2fx\n", lb, b / s}'
    fi
done

# reroute: one link down, routes recomputed (see the header).
if [ "${1:-}" = reroute ]; then
    printf '%-6s %6s %8s %16s %12s\n' k hosts switches switches_changed reroute_s
    for k in 16 32; do
        build/bnet run --quiet --json "$out/r.json" --set topology.k=$k --set workload.kind=incast \
            --set workload.incast_senders=1 --set workload.message_bytes=100000 \
            --set observe.sample_us=0 --set routing.control_plane=local --set routing.baseline=false \
            --set faults.0.kind=link_down --set "faults.0.target=agg0 core0" --set faults.0.at_us=1
        jq -r --arg k "$k" '[$k, .topology.hosts, .topology.switches,
            .faults.list[0].switches_changed, .faults.reroute_wall_s] | @tsv' "$out/r.json" |
            awk -F'\t' '{printf "%-6s %6s %8s %16s %12.3f\n", $1, $2, $3, $4, $5}'
    done
    exit 0
fi

# flatness: equal stretches of wall time, interleaved (see the header).
[ "${1:-}" = flatness ] || exit 0
rounds=${ROUNDS:-3}
printf '%-6s %5s %14s %15s %7s\n' lb round "128: ns/hop" "8192: ns/hop" ratio
for lb in ecmp spray; do
    ratios=()
    for ((r = 1; r <= rounds; r++)); do
        hops=0 busy=0 n=0
        while awk "BEGIN{exit !($busy < ${FLAT_S:-20})}"; do
            run_case "perm-$lb-128"
            read -r h w < <(jq -r '"\(.sim.packet_hops) \(.sim.wall_s)"' "$out/r.json")
            hops=$((hops + h)) busy=$(awk "BEGIN{print $busy + $w}") n=$((n + 1))
        done
        small=$(awk "BEGIN{print $busy * 1e9 / $hops}")
        run_case "perm-$lb-8192"
        big=$(jq -r '.sim.wall_s * 1e9 / .sim.packet_hops' "$out/r.json")
        ratio=$(awk "BEGIN{printf \"%.3f\", $big / $small}")
        ratios+=("$ratio")
        printf '%-6s %5d %9.1f (%3dx) %15.1f %7s\n' "$lb" "$r" "$small" "$n" "$big" "$ratio"
    done
    printf '%s\n' "${ratios[@]}" | sort -n | awk -v lb="$lb" '{r[NR] = $1}
        END {printf "cost per packet-hop, 8192 hosts / 128 hosts (%s), median of %d rounds: %.2fx\n",
             lb, NR, r[int((NR + 1) / 2)]}'
done
