#!/usr/bin/env bash
# FCT slowdown by flow size under each congestion control, in the setting
# of the HPCC paper's evaluation scaled down (docs/traffic.md, "A
# reproduction"): WebSearch flows at LOADS of 100 Gb/s host links on a
# k=8 fat-tree (128 hosts) with 400 Gb/s fabric links, PFC, the default
# ECN marking (Kmin 100 KB, Kmax 400 KB, Pmax 0.2), arrivals for 8 ms.
# Prints, per load and module, the p95 slowdown of five of the twenty
# equal-count size buckets (the largest flow of each shown) and overall.
# Usage: bench/cc_slowdown.sh [LOADS [MODULES]]  (defaults "0.3 0.5",
# "none dcqcn dctcp timely swift nscc hpcc eqds")
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/need-packages.sh jq
scripts/setup.sh build >/dev/null
loads=${1:-0.3 0.5}
modules=${2:-none dcqcn dctcp timely swift nscc hpcc eqds}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-5s %-7s %7s  %s\n' load module flows \
  "p95 slowdown by size bucket (largest flow) ... overall p50 / p95 / p99"
for load in $loads; do
    for cc in $modules; do
        build/bnet run --quiet --json "$out/r.json" --set topology.k=8 --set link.rate_gbps=100 \
            --set link.fabric_rate_gbps=400 --set link.flow_control=pfc \
            --set nic.congestion_control="$cc" --set workload.kind=poisson \
            --set workload.size_cdf=websearch --set workload.load="$load" \
            --set workload.duration_us=8000 --set observe.sample_us=0
        jq -r --arg cc "$cc" --arg load "$load" '
          def r: . * 100 | round / 100;
          .summary.fct_slowdown as $s | $s.buckets as $b |
          [$load, $cc, ($s.flows | tostring),
           ([0, 5, 10, 15, 19] | map("\($b[.].max_bytes)B:\($b[.].p95 | r)") | join(" ")),
           "\($s.p50 | r) / \($s.p95 | r) / \($s.p99 | r)"] |
          "\(.[0]) \(.[1]) \(.[2]) \(.[3])  \(.[4])"' "$out/r.json" |
            awk '{printf "%-5s %-7s %7s  %s %s %s %s %s   %s %s %s %s %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13}'
    done
done
