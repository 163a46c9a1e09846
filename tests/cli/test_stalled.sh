#!/usr/bin/env bash
# A run the livelock watchdog stops (sim.stall_us; the default run with
# --seed 2 locks two flows in phase: docs/model.md, "Livelock") exits 4,
# its JSON still written and marked sim.stalled, one line on stderr; the
# same seed without the watchdog, another seed, exit 0; a sweep with such
# a point exits 4 too (docs/limits.md, "Exit status"); sim.stop_reason
# tells completed, stalled and max_time apart, in a sweep point too.
# Usage: tests/cli/test_stalled.sh BNET
set -uo pipefail
source tests/cli/lib.sh

"$BNET" run --seed 2 --json "$T/s2.json" >"$T/out" 2>"$T/err"
st=$?
[[ $st -eq 4 ]]
ok "default run, --seed 2 (a livelock): exit 4 (got $st)" $?
check "... its JSON written, sim.stalled" "$T/s2.json" '.sim.stalled == true and .sim.stopped_early == true and .sim.stop_reason == "stalled"'
check "... 126 of 128 flows" "$T/s2.json" '.summary.flows_completed == 126'
grep -q "livelock.*exit status 4" "$T/err" && [[ $(wc -l <"$T/err") -eq 1 ]]
ok "... one line on stderr saying so" $?
grep -q "stopped" "$T/out"
ok "... the summary printed" $?

"$BNET" run --seed 1 --json "$T/s1.json" >/dev/null 2>&1
st=$?
ok "--seed 1: exit 0 (got $st)" $st
"$BNET" run --seed 2 --set sim.stall_us=0 --set sim.max_time_us=30000 --json "$T/mt.json" >/dev/null 2>&1
st=$?
ok "--seed 2 without the watchdog (stopped by sim.max_time_us): exit 0 (got $st)" $st
check "... its JSON: stop_reason max_time, not stalled" "$T/mt.json" \
  '.sim.stop_reason == "max_time" and .sim.stopped_early and (.sim.stalled | not) and .summary.flows_completed < .summary.flows'

"$BNET" sweep --seeds 1-2 --quiet --json "$T/sw.json" 2>"$T/sw.err"
st=$?
[[ $st -eq 4 ]] && grep -q "1 of 2 points stopped by the livelock watchdog" "$T/sw.err"
ok "a sweep with that point: exit 4, said (got $st)" $?
check "... the sweep's JSON written, the point marked" "$T/sw.json" '[.points[].sim.stalled] == [false, true]'
check "... each point's own stop_reason" "$T/sw.json" '[.points[].sim.stop_reason] == ["completed", "stalled"]'

"$BNET" --help | grep -q "4 a livelock stopped the run"
ok "bnet --help lists status 4" $?
finish
