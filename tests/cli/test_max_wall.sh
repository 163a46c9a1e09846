#!/usr/bin/env bash
# --max-wall SECONDS stops a run at that wall time as a first SIGINT does
# (src/cli/signals.c): the results so far are written, marked
# interrupted, and the exit status is 124, as timeout(1)'s (docs/limits.md);
# in set-up nothing is written; a run that ends first is untouched; a bad
# value is refused before anything runs, exit 2, naming the flag.
# Usage: tests/cli/test_max_wall.sh BNET
set -uo pipefail
source tests/cli/lib.sh

for v in 0 -1 abc 1e3 0x10 1. .5 0.0 99999999999; do
  "$BNET" run --max-wall "$v" >"$T/out" 2>"$T/err"
  st=$?
  [[ $st -eq 2 ]] && grep -q "option '--max-wall'" "$T/err" && [[ $(wc -l <"$T/err") -eq 1 ]] &&
    [[ ! -s $T/out ]]
  ok "--max-wall '$v': exit 2, one line naming the flag (got $st)" $?
done

# stopped N ARGS...: bnet ARGS --max-wall 1 ends with 124 within 15 s (a
# loaded machine's margin), the JSON whole and marked interrupted
stopped() {
  local name=$1
  shift
  local t0 t1
  t0=$(date +%s%N)
  "$BNET" "$@" --max-wall 1 --json "$T/$name.json" >"$T/$name.out" 2>"$T/$name.err"
  local st=$?
  t1=$(date +%s%N)
  local ms=$(((t1 - t0) / 1000000))
  [[ $st -eq 124 ]]
  ok "$name: exit 124 (got $st, after $ms ms)" $?
  ((ms < 15000))
  ok "$name: stopped within 15 s ($ms ms)" $?
  jq -e '[.. | objects | .interrupted? | select(. == true)] | length > 0' "$T/$name.json" >/dev/null
  ok "$name: the JSON is whole, marked interrupted" $?
  jq -e '[.. | objects | .stop_reason? | select(. != null)] | length > 0 and all(. == "max_wall")' \
    "$T/$name.json" >/dev/null
  ok "$name: stop_reason max_wall" $?
  grep -q "stopped at --max-wall 1 s.*exit status 124" "$T/$name.err"
  ok "$name: one line says so" $?
}
stopped run run --set topology.k=20
stopped coll coll -b 64M -e 256M
stopped coll_j1 coll -b 64M -e 256M -j 1
stopped job job
stopped p2p p2p -a -n 200000
stopped compare compare
stopped sweep sweep --vary topology.k=16,20

"$BNET" run --max-wall 600 --json "$T/quick.json" >/dev/null 2>&1
st=$?
ok "a run ending before --max-wall: exit 0 (got $st)" $st
check "a run ending before --max-wall: not interrupted" "$T/quick.json" '.sim.interrupted == false'
check "a run ending before --max-wall: stop_reason completed" "$T/quick.json" \
  '.sim.stop_reason == "completed"'

"$BNET" run --set topology.k=64 --max-wall 1 --json "$T/setup.json" >/dev/null 2>"$T/setup.err"
st=$?
[[ $st -eq 124 && ! -e $T/setup.json ]] && grep -q "interrupted while" "$T/setup.err"
ok "stopped in set-up (routes): exit 124, nothing written (got $st)" $?
finish
