#!/usr/bin/env bash
# Poisson traffic and FCT slowdown from the command line (docs/traffic.md):
# the load and the slowdown buckets in the text, JSON and CSV; the same
# seed gives the same bytes; a bad CDF file or bucket list is one message
# naming where, and exit 2.
# Usage: tests/cli/test_traffic.sh BNET
set -uo pipefail
source tests/cli/lib.sh
base=(--set topology.k=4 --set workload.kind=poisson --set workload.duration_us=200
      --set workload.load=0.5 --set workload.size_cdf=fb_hadoop --set observe.sample_us=0)

$BNET run "${base[@]}" --json "$T/a.json" --csv "$T/a" >"$T/a.txt"
ok "a poisson run exits 0" $?
check "the load: target and offered" "$T/a.json" \
  '.summary.load.target == 0.5 and (.summary.load.offered > 0.2 and .summary.load.offered < 1)'
check "20 slowdown buckets that hold every completed flow" "$T/a.json" \
  '(.summary.fct_slowdown.buckets|length) == 20 and
   ([.summary.fct_slowdown.buckets[].flows]|add) == .summary.flows_completed'
check "no flow beats its ideal" "$T/a.json" '[.flows[]|select(.done)|.slowdown >= 0.999999999]|all'
check "slowdown = fct / ideal" "$T/a.json" \
  '[.flows[]|select(.done)|((.fct_us / .ideal_us) - .slowdown)|fabs < 1e-6]|all'
grep -q "^load  .* offered for a target of 0.5000" "$T/a.txt" && grep -q "^FCT slowdown" "$T/a.txt"
ok "the text has the load and the slowdown" $?
[[ $(head -n 1 "$T/a-slowdown.csv") == min_bytes,max_bytes,flows,mean,p50,p95,p99,max &&
   $(wc -l <"$T/a-slowdown.csv") -eq 21 ]]
ok "PREFIX-slowdown.csv: a row per bucket" $?
[[ $(head -n 1 "$T/a-flows.csv") == *,ideal_us,slowdown ]]
ok "PREFIX-flows.csv has each flow's ideal and slowdown" $?

$BNET run "${base[@]}" --json "$T/b.json" --quiet
[[ $(jq -c 'del(.sim)' "$T/a.json") == "$(jq -c 'del(.sim)' "$T/b.json")" ]]
ok "the same seed gives the same results" $?

$BNET run "${base[@]}" --set observe.slowdown_edges=1K,100K --json "$T/e.json" --quiet
check "slowdown_edges cuts at the sizes" "$T/e.json" \
  '.summary.fct_slowdown.buckets[0].max_bytes <= 1000 and .summary.fct_slowdown.buckets[1].min_bytes > 1000'

# errors: exit 2, one message naming where
printf '0 0\n100 0.5\n50 1\n' >"$T/bad.cdf"
$BNET run "${base[@]}" --set workload.size_cdf="$T/bad.cdf" --quiet 2>"$T/e1"
st=$?
[[ $st -eq 2 && $(grep -c "workload.size_cdf" "$T/e1") -eq 1 ]] && grep -q "bad.cdf:3: the size falls" "$T/e1"
ok "a falling CDF: exit 2 naming the key and FILE:LINE (exit $st)" $?
$BNET run "${base[@]}" --set workload.size_cdf=nosuch.cdf --quiet 2>"$T/e2"
[[ $? -eq 2 ]] && grep -q "workload.size_cdf.*cannot open" "$T/e2"
ok "a missing CDF file: exit 2" $?
$BNET run "${base[@]}" --set workload.rack_local=-0.5 --quiet 2>"$T/e3"
[[ $? -eq 2 ]] && grep -q "workload.rack_local" "$T/e3"
ok "rack_local between -1 and 0: exit 2" $?
$BNET run "${base[@]}" --set observe.slowdown_edges=100K,1K --quiet 2>"$T/e4"
[[ $? -eq 2 ]] && grep -q "observe.slowdown_edges.*item 2" "$T/e4"
ok "falling slowdown edges: exit 2 naming the item" $?
printf 'workload:\n  kind: poisson\n  rack_local: 0.5\ntopology:\n  kind: leaf_spine\n  k: 2\n' >"$T/s.yaml"
$BNET run "$T/s.yaml" --quiet 2>"$T/e5"
[[ $? -eq 2 ]] && grep -q "s.yaml:3: key 'workload.rack_local'" "$T/e5"
ok "rack_local with one host per leaf: exit 2 at its line" $?
finish
