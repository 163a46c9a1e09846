#!/usr/bin/env bash
# Held first hops (src/driver/coll/coll_exec.c): at the flow level a
# stepwise hier AllReduce holds every server's first reduce hops back and
# posts them one at a time as their NVLink connection's last message
# leaves, instead of posting n^2 / g of them at once. The connections send
# the same messages at the same times, so the rows are the ones measured
# before the change (2026-12-07, bnet 7e10f95), to the last digit, over
# three iterations a row (warm-up, out of place, in place).
# Usage: tests/cli/test_coll_held.sh BNET
set -uo pipefail
source tests/cli/lib.sh

$BNET coll --nranks 64 --fidelity flow --algo hier -b 1M -e 16M -f 4 --set coll.warmup=1 \
  --set coll.iters=2 --json "$T/a.json" >"$T/a.txt" 2>"$T/a.err"
ok "held hier on 64 GPUs exits 0" $?
check "busbw and #wrong as before, every row" "$T/a.json" \
  '[.rows[] | .busbw_gbs, .wrong] == [38.23651826, 0, 82.41550112, 0, 219.8156495, 0]'
$BNET coll --nranks 128 --fidelity flow --algo hier -b 4M -e 4M --set coll.warmup=1 \
  --json "$T/b.json" >"$T/b.txt" 2>&1
ok "held hier on 128 GPUs exits 0" $?
check "its busbw as before, out of place and in place" "$T/b.json" \
  '[.rows[0] | .busbw_gbs, .in_place.busbw_gbs, .wrong, .in_place.wrong] == [51.12694753, 51.12694753, 0, 0]'
finish
