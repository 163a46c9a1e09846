#!/usr/bin/env bash
# Packet-level speed benchmark: permutation traffic on k-ary fat-trees
# (100 Gb/s, 2 MB flows, MTU 4096), timed with /usr/bin/time, figures read
# from bnet's JSON with jq. Usage: bench/run.sh [K ...]   (default: 8 16)
# Each run is repeated REPS times (default 3); the fastest is reported, as
# machine noise only ever slows a run down.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/need-packages.sh time jq
scripts/setup.sh build >/dev/null
ks=("$@")
((${#ks[@]})) || ks=(8 16)
reps=${REPS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

printf '%-6s %-6s %12s %10s %8s %12s %10s %10s %12s\n' k hosts packet-hops wall_s setup_s \
  "Mhops/s" "ns/hop" "peak_MB" "mean_Gb/s"
for k in "${ks[@]}"; do
  best=""
  for ((r = 0; r < reps; r++)); do
    /usr/bin/time -f '%M' -o "$out/rss" build/bnet run --quiet --set topology.k="$k" \
      --set workload.kind=permutation --set workload.message_bytes=2000000 \
      --set nic.mtu_bytes=4096 --set link.rate_gbps=100 --json "$out/r.json"
    wall=$(jq '.sim.wall_s' "$out/r.json")
    if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then
      best=$wall
      cp "$out/r.json" "$out/best.json"
      cp "$out/rss" "$out/best.rss"
    fi
  done
  jq -r --arg k "$k" --arg rss "$(tail -1 "$out/best.rss")" '
    [$k, .topology.hosts, .sim.packet_hops, .sim.wall_s, .sim.setup_s,
     (.sim.packet_hops / .sim.wall_s / 1e6), (.sim.wall_s * 1e9 / .sim.packet_hops),
     (($rss | tonumber) / 1024), .summary.throughput_gbps.mean] | @tsv' "$out/best.json" |
    awk -F'\t' '{printf "%-6s %-6s %12s %10.3f %8.3f %12.2f %10.1f %10.1f %12.2f\n",
                 $1, $2, $3, $4, $5, $6, $7, $8, $9}'
done
