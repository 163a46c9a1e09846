#!/usr/bin/env bash
# bnet sweep (docs/sweep.md): a row per grid point, byte-identical for any
# -j; each point the same as its own bnet run; every point checked, and the
# memory of -j points at once, before anything runs.
# Usage: tests/cli/test_sweep.sh BNET
set -uo pipefail
source tests/cli/lib.sh
base=(--set topology.k=4 --set observe.sample_us=0)

$BNET sweep "${base[@]}" --vary workload.message_bytes=100KB,400KB --seeds 1-2 -j 1 \
  --json "$T/a.json" --csv "$T/a" >"$T/a.txt" 2>"$T/a.err"
ok "sweep -j 1 exits 0" $?
$BNET sweep "${base[@]}" --vary workload.message_bytes=100KB,400KB --seeds 1-2 -j 2 \
  --json "$T/b.json" --csv "$T/b" >"$T/b.txt" 2>&1
ok "sweep -j 2 exits 0" $?
cmp -s "$T/a.json" "$T/b.json"
ok "JSON byte-identical for -j 1 and -j 2" $?
cmp -s "$T/a-sweep.csv" "$T/b-sweep.csv"
ok "CSV byte-identical for -j 1 and -j 2" $?
check "4 points, all done" "$T/a.json" '.points_total == 4 and .points_done == 4 and (.points|length) == 4'
check "points in grid order, the last axis (seed) fastest" "$T/a.json" \
  '[.points[]|[.point, .values["workload.message_bytes"], .values.seed]] ==
   [[0,100000,1],[1,100000,2],[2,400000,1],[3,400000,2]]'
check "axes typed as their keys" "$T/a.json" \
  '.axes == [{"key":"workload.message_bytes","values":[100000,400000]},{"key":"seed","values":[1,2]}]'
check "no wall-clock figure in a point" "$T/a.json" '[.points[].sim|has("wall_s")]|any|not'

# a point is its own run (its slowdown without the per-size buckets)
$BNET run "${base[@]}" --set workload.message_bytes=400KB --seed 2 --json "$T/r.json" --quiet
[[ $(jq -c '.summary|.fct_slowdown.buckets=[]' "$T/r.json") == "$(jq -c '.points[3].summary' "$T/a.json")" ]]
ok "point 3's summary is bnet run's with its values" $?
[[ $(jq -c '.seed_report' "$T/r.json") == "$(jq -c '.points[3].seed_report' "$T/a.json")" ]]
ok "... and so is its seed report" $?
[[ $(jq '.points[0].summary.flows_completed' "$T/a.json") -gt 0 ]]
ok "flows completed" $?

# the CSV: a header and a row per point, the axis columns named by key
[[ $(wc -l <"$T/a-sweep.csv") -eq 5 ]] &&
  head -n 1 "$T/a-sweep.csv" | grep -q '^point,workload.message_bytes,seed,seed,flows,'
ok "CSV: header and a row per point" $?
cut -d, -f1-3 "$T/a-sweep.csv" | tail -n 1 | grep -qx '3,400000,2'
ok "CSV: point 3's values" $?
[[ $(grep -cE '^ +[0-3] ' "$T/a.txt") -eq 4 ]] && grep -q "^# 4 of 4 points" "$T/a.txt"
ok "table: a row per point and the total" $?
[[ ! -s $T/a.err ]]
ok "no progress on stderr when it is not a terminal" $?

# bad grids: exit 2, before any point runs
expect2() { # NAME PATTERN ARGS...
  local name=$1 pat=$2
  shift 2
  "$BNET" sweep "${base[@]}" "$@" >/dev/null 2>"$T/e"
  local st=$?
  [[ $st -eq 2 ]] && grep -q -- "$pat" "$T/e" && [[ $(wc -l <"$T/e") -eq 1 ]]
  local rc=$? # before the substitution below resets $?
  ok "$name (exit $st: $(head -c 120 "$T/e"))" $rc
}
expect2 "an unknown key" "nosuch.key" --vary nosuch.key=1,2
expect2 "a value of the wrong type" "topology.k" --vary topology.k=4,eight
expect2 "a combination that does not validate" "sweep point 1" --vary topology.k=4,5
expect2 "no '='" "needs KEY=VALUE" --vary topology.k
expect2 "a key varied twice" "varied twice" --vary seed=1 --seeds 1-2
expect2 "a backwards seed range" "option '--seeds'" --seeds 3-1
expect2 "-j 0" "option '-j'" -j 0 --seeds 1-2
est=$($BNET topo "${base[@]}" --json - | jq '[..|objects|.run_bytes?|numbers][0]')
expect2 "two points at once beyond the memory limit" "lower -j" \
  --set sim.memory_limit_bytes=$((est * 3 / 2)) --seeds 1-2 -j 2
$BNET sweep "${base[@]}" --set sim.memory_limit_bytes=$((est * 3 / 2)) --seeds 1-2 -j 1 \
  --quiet >/dev/null 2>&1
ok "... one at a time fits" $?
# SIGINT: no new point starts; the points done are written, marked
"$BNET" sweep "${base[@]}" --seeds 1-400 -j 1 --json "$T/int.json" --quiet 2>/dev/null &
pid=$!
sleep 1
kill -INT $pid
wait $pid
st=$?
[[ $st -eq 130 ]]
ok "interrupted sweep exits 130 (got $st)" $?
check "... and writes the points done, marked interrupted" "$T/int.json" \
  '.interrupted and .points_done > 0 and .points_done < 400 and (.points|length) == .points_done'
finish
