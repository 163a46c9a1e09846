#!/usr/bin/env bash
# bnet calibrate (docs/calibration.md) on published nccl-tests outputs
# (tests/data/calib/SOURCES): one H100 cluster of NVIDIA/nccl-tests issue
# #309 (8 GPUs and 8 NDR NICs per server) at 2, 4 and 8 servers.
# Hold-out A (NCCL's defaults): fit on 4 servers, predict 8 (hold-out B is
# tests/cli/test_calibrate_b.sh, apart to keep each test under a minute).
# The prediction must beat the uncalibrated bnet (rms of ln(bnet /
# measured)) and keep its mean |error| at >= 1 MiB within the figure
# docs/calibration.md states (10.1 %, with a margin; the 10 % target is
# missed since the tree pipelines LL128 in NCCL's chunks). Then: the
# calibration's file
# (keys, checksums, version), --calibration on coll, the report's table,
# JSON and SVG, and bad input (exit 2, file:line, nothing on stdout).
# Usage: tests/cli/test_calibrate.sh BNET
set -uo pipefail
source tests/cli/lib.sh
source tests/cli/calib_holdout.sh
holdout A $D/h100-ib400-default-4n.txt $D/h100-ib400-default-8n.txt 11.0

# the calibration file: its keys, every input's checksum, bnet's version
y=$T/A.yaml
grep -q "^  coll.step_latency_us: " "$y" && grep -q "^  scale_up.efficiency: " "$y" &&
    grep -q "^  link.rate_gbps: " "$y" && grep -q "^  coll.ll128_step_latency_us: " "$y"
ok "calibration sets the fitted keys" $?
# the channel count, fitted as a whole number within NCCL's 2 to 32
ch=$(sed -n 's/^  coll.channels: \([0-9]*\)    # discrete, bounds \[2, 32\], was 16.*/\1/p' "$y")
[ -n "$ch" ] && [ "$ch" -ge 2 ] && [ "$ch" -le 32 ]
ok "calibration sets coll.channels (fitted: '$ch', from 16), no deviation" $?
sum=$(sha256sum $D/h100-ib400-default-4n.txt | cut -d' ' -f1)
grep -q "sha256: \"$sum\"" "$y" && grep -q "^bnet_version: \"$($BNET --version | cut -d' ' -f2)\"" "$y"
ok "calibration holds the input's sha256 and bnet's version" $?

# --calibration on coll applies the keys (and --set still wins)
step=$(sed -n 's/^  coll.step_latency_us: \([^ ]*\).*/\1/p' "$y")
$BNET all_reduce_perf -N 2 -g 8 -b 1M -e 1M --fidelity flow --calibration "$y" --json "$T/coll.json" >/dev/null
rc=$?
ok "coll --calibration runs" $rc
jq -e --arg s "$step" '.config["coll.step_latency_us"] == ($s | tonumber)' "$T/coll.json" >/dev/null
ok "coll --calibration sets coll.step_latency_us to $step" $?
$BNET all_reduce_perf -N 2 -g 8 -b 1M -e 1M --fidelity flow --calibration "$y" --set coll.step_latency_us=2 --json "$T/coll2.json" >/dev/null
jq -e '.config["coll.step_latency_us"] == 2' "$T/coll2.json" >/dev/null
ok "--set after --calibration has the last word" $?

"$BNET" help job | grep -q -- "--calibration FILE" && "$BNET" help compare | grep -q -- "--calibration FILE"
ok "job and compare take --calibration" $?

# --report DIR (hold-out A's prediction): the table, the JSON, the figure
# with measured, before and after
[ -s "$T/rep-A/calibration.txt" ] && grep -q "measured" "$T/rep-A/calibration.txt" &&
    [ -s "$T/rep-A/calibration.json" ]
ok "--report writes the table and the JSON" $?
n=$(python3 tests/cli/svg_check.py "$T/rep-A/calibration.svg" | grep -c "h100-ib400-default-8n")
[ "$n" -eq 3 ]
ok "--report's SVG draws measured, before and after ($n lines)" $?

# bad input: exit 2, one line naming file:line, nothing on stdout
bad() {
    local name=$1 want=$2
    shift 2
    "$BNET" calibrate "$@" --no-fit >"$T/out" 2>"$T/err"
    local rc=$?
    [ "$rc" -eq 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "$want" "$T/err"
    ok "$name: exit $rc, '$(cat "$T/err")'" $?
}
head -40 $D/h100-ib400-default-4n.txt >"$T/cut.txt"
printf '     1048576        262144     float     sum      -1    317.0    3.31\n' >>"$T/cut.txt"
bad "a broken row" "cut.txt:41:" "$T/cut.txt"
{ head -40 $D/h100-ib400-default-4n.txt; echo "srun: error: node lost"; } >"$T/junk.txt"
bad "an unknown line" "junk.txt:41:" "$T/junk.txt"
bad "a missing file" "cannot open" "$T/none.txt"
bad "no file" "give nccl-tests" 
"$BNET" calibrate $D/h100-ib400-default-4n.txt --fit nic.speed --out "$T/x.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "cannot be fitted" "$T/err"
ok "an unknown key to fit: exit $rc" $?
printf 'set:\n  coll.step_latency_us: 2\n  nic.speed: 4\n' >"$T/bad.yaml"
"$BNET" coll --calibration "$T/bad.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "bad.yaml:3" "$T/err" && [ ! -s "$T/out" ]
ok "a calibration with an unknown key: exit $rc, '$(cat "$T/err")'" $?
finish
