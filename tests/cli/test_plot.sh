#!/usr/bin/env bash
# Plots (docs/plots.md): every kind of figure is drawn from real results,
# parses as SVG and holds its data (a CDF's flows, a series' samples, a
# heatmap's samples x rows, a bus-bandwidth line's rows, the topology's
# nodes); `bnet plot` on the saved JSON draws the same bytes; bad input is
# refused with exit 2 naming file and key, a missing gnuplot before the run.
# Usage: tests/cli/test_plot.sh BNET
set -uo pipefail
source tests/cli/lib.sh
svg() { python3 tests/cli/svg_check.py "$1"; }

# a PFC incast under DCQCN: pauses, alpha, a queue
$BNET run --set topology.k=4 --set link.flow_control=pfc --set nic.congestion_control=dcqcn \
  --set workload.kind=incast --set workload.incast_senders=12 --set workload.message_bytes=1MB \
  --set observe.sample_us=2 --json "$T/run.json" --plot "$T/run" >"$T/run.out" 2>&1
ok "run --plot exits 0" $?
for f in flows-throughput-cdf flows-fct-cdf flows-slowdown series-rate series-alpha series-queues \
  links-utilization links-pause topology; do
  svg "$T/run/$f.svg" >"$T/$f.txt" && [[ -s $T/run/$f.gp ]]
  ok "$f.svg parses and its script is kept" $?
done
done_flows=$(jq '[.flows[]|select(.done)]|length' "$T/run.json")
samples=$(jq '.series.t_us|length' "$T/run.json")
rows=$(jq '.series.links|length' "$T/run.json")
followed=$(jq '[.series.flows|length, 16]|min' "$T/run.json")
queues=$(jq '.series.queues|length' "$T/run.json")
nodes=$(jq '[.ports[]|select(.tier>=0 and .peer_tier>=0)|.peer]|unique|length' "$T/run.json")
fabric_ports=$(jq '[.ports[]|select(.tier>=0 and .peer_tier>=0)]|length' "$T/run.json")
# a line's points plus its key sample's two
[[ $(cut -f2 "$T/flows-fct-cdf.txt") -eq $((done_flows + 2)) ]]
ok "FCT CDF: a point per finished flow ($done_flows)" $?
[[ $(cut -f2 "$T/flows-throughput-cdf.txt") -eq $((done_flows + 2)) ]]
ok "throughput CDF: a point per finished flow" $?
buckets=$(jq '.summary.fct_slowdown.buckets|length' "$T/run.json")
[[ $(cut -f1 "$T/flows-slowdown.txt" | tr '\n' ' ') == "p50 p95 p99 " ]] &&
  ! cut -f2 "$T/flows-slowdown.txt" | grep -vqx $((buckets + 2))
ok "slowdown: p50, p95, p99 lines, a point per size bucket ($buckets)" $?
[[ $(wc -l <"$T/series-rate.txt") -eq $followed ]] &&
  ! cut -f2 "$T/series-rate.txt" | grep -vqx $((samples + 2))
ok "rate: a line per followed flow ($followed), a point per sample ($samples)" $?
[[ $(head -n 1 "$T/series-rate.txt" | cut -f1) == "flow 0: "* ]]
ok "rate: lines named by flow" $?
[[ $(wc -l <"$T/series-queues.txt") -eq $queues && $(cut -f2 "$T/series-queues.txt") -eq $((samples + 2)) ]]
ok "queues: a line per observed port" $?
[[ $(jq '[.series.flows[].alpha[]]|max > 0' "$T/run.json") == true && -s $T/series-alpha.txt ]]
ok "alpha drawn when DCQCN has set it" $?
for f in links-utilization links-pause; do
  grep -q "image.*${samples}x${rows}\$" "$T/$f.txt"
  ok "$f: a pixel per sample and link row (${samples}x$rows)" $?
done
[[ $(jq '.summary.pause_frames > 0' "$T/run.json") == true ]]
ok "the incast paused (the pause heatmap has something to show)" $?
[[ $(awk -F'\t' '$3 > 0 {print $3}' "$T/topology.txt") -eq $nodes ]]
ok "topology: a mark per node ($nodes)" $?
[[ $(head -n 1 "$T/topology.txt" | cut -f2) -ge $fabric_ports ]]
ok "topology: a line per fabric port ($fabric_ports)" $?
[[ $(awk -F'\t' '$4 == 8' "$T/topology.txt" | wc -l) -eq 1 ]]
ok "topology: the 8 busiest labelled" $?
grep -q "^plot: $T/run/links-pause.svg\$" "$T/run.out"
ok "each figure named on stdout" $?

# the link series costs, so it is off unless --plot asks (or a key sets it)
$BNET run --set topology.k=4 --json "$T/plain.json" --quiet
[[ $(jq '.series.links|length' "$T/plain.json") -eq 0 && $(jq '.series.links|length' "$T/run.json") -eq $rows && $rows -gt 0 ]]
ok "link series off by default, on under --plot" $?
$BNET run --set topology.k=4 --set observe.link_rows=0 --plot "$T/nolinks" >"$T/nolinks.out" 2>&1
grep -q "no link heatmaps" "$T/nolinks.out" && [[ ! -e $T/nolinks/links-utilization.svg ]]
ok "--set observe.link_rows=0 wins over --plot" $?

# the saved JSON draws the same figures, byte for byte
$BNET plot "$T/run.json" --out "$T/again" >/dev/null 2>&1
ok "bnet plot FILE --out DIR exits 0" $?
same=0
for f in "$T"/run/*.svg; do cmp -s "$f" "$T/again/$(basename "$f")" || same=1; done
ok "bnet plot draws what --plot drew" $same
$BNET plot "$T/run.json" >/dev/null 2>&1 && [[ -s $T/run-plots/topology.svg ]]
ok "default folder FILE-plots" $?

# coll: a line per algorithm, a point per row
$BNET coll -b 256K -e 4M -f 4 --algo ring --json "$T/ring.json" >/dev/null &&
  $BNET coll -b 256K -e 4M -f 4 --json "$T/auto.json" --plot "$T/coll" >/dev/null
ok "coll --plot exits 0" $?
svg "$T/coll/busbw.svg" >"$T/coll.txt"
algos=$(jq '[.rows[].algo]|unique|length' "$T/auto.json")
[[ $(wc -l <"$T/coll.txt") -eq $algos ]]
ok "coll busbw: a line per algorithm the tuner chose ($algos)" $?
first=$(jq -r '.rows[0].algo' "$T/auto.json")
n=$(jq --arg a "$first" '[.rows[]|select(.algo==$a)]|length' "$T/auto.json")
[[ $(grep -P "^$first\t" "$T/coll.txt" | cut -f3) -eq $((n + 1)) ]]
ok "coll busbw: a mark per row of $first ($n)" $?
n=$(jq '.rows|length' "$T/ring.json")
$BNET plot "$T/ring.json" "$T/auto.json" --out "$T/both" >/dev/null &&
  svg "$T/both/busbw.svg" >"$T/both.txt" &&
  [[ $(awk -F'\t' '$1 == "ring (ring)" {print $3}' "$T/both.txt") -eq $((n + 1)) ]]
st=$?
((st)) && cat "$T/both.txt"
ok "several files on one figure, lines named by file, a mark per row ($n)" $st

# compare: a line per fabric, three AllReduce sizes each
$BNET compare --set topology.kind=leaf_spine --set topology.k=4 --fabrics ib-ndr,roce-400g \
  -j 1 --plot "$T/cmp" >/dev/null 2>&1
ok "compare --plot exits 0" $?
svg "$T/cmp/busbw.svg" >"$T/cmp.txt"
[[ $(cut -f1,3 "$T/cmp.txt" | tr '\n' ' ') == $'ib-ndr\t4 roce-400g\t4 ' ]]
ok "compare busbw: a line per fabric, a mark per size" $?
[[ -n $(ls -A "$T/cmp" | grep '^\.bnet-results') ]] && bad=1 || bad=0
ok "no temporary results left in the folder" $bad

# bad input: exit 2, one line naming file and key; no gnuplot: refused first
$BNET plot >/dev/null 2>"$T/e1"
[[ $? -eq 2 ]] && grep -q "needs a result file" "$T/e1"
ok "plot without a file: exit 2" $?
$BNET plot "$T/none.json" 2>"$T/e2"
[[ $? -eq 2 ]] && grep -q "none.json" "$T/e2"
ok "a missing file: exit 2 naming it" $?
printf '{\n  "rows": [1,\n' >"$T/cut.json"
$BNET plot "$T/cut.json" --out "$T/x" 2>"$T/e3"
[[ $? -eq 2 ]] && grep -q "cut.json: line 3" "$T/e3"
ok "a cut file: exit 2 naming file and line" $?
$BNET topo --json "$T/topo.json" >/dev/null
$BNET plot "$T/topo.json" --out "$T/x" 2>"$T/e4"
[[ $? -eq 2 ]] && grep -q "not a result of bnet run, coll, compare or calibrate" "$T/e4"
ok "a topo result: exit 2, says what is drawn" $?
jq '.series.t_us = "soon"' "$T/run.json" >"$T/bad.json"
$BNET plot "$T/bad.json" --out "$T/x" 2>"$T/e5"
[[ $? -eq 2 ]] && grep -q "bad.json: key 't_us'" "$T/e5"
ok "a wrong key: exit 2 naming file and key" $?
touch "$T/file"
$BNET run --plot "$T/file" --json "$T/never.json" 2>"$T/e6"
[[ $? -eq 2 && ! -e $T/never.json ]] && grep -q "not a folder" "$T/e6"
ok "--plot onto a file: exit 2 before the run" $?
PATH=/nonexistent $BNET run --plot "$T/np" --json "$T/never.json" 2>"$T/e7"
[[ $? -eq 1 && ! -e $T/never.json ]] && grep -q "gnuplot-nox" "$T/e7"
ok "no gnuplot: refused before the run, says what to install" $?
$BNET run --plot - 2>"$T/e8"
[[ $? -eq 2 ]]
ok "--plot - is refused" $?
finish
