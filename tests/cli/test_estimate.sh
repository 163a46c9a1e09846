#!/usr/bin/env bash
# Before a run whose estimate passes a minute, bnet says on stderr how
# much work it is (events at packet level, flow-rate recomputations at
# flow level) and about how long (bn_estimate_time, docs/limits.md,
# "Time"); a short run says nothing. --max-wall 1 keeps the long ones
# short.
# Usage: tests/cli/test_estimate.sh BNET
set -uo pipefail
source tests/cli/lib.sh

# estimated NAME KIND ARGS...: bnet ARGS --max-wall 1 prints the estimate
# first, naming KIND ("events at packet level", ...) and minutes
estimated() {
  local name=$1 kind=$2
  shift 2
  "$BNET" "$@" --max-wall 1 >/dev/null 2>"$T/err"
  local st=$?
  [[ $st -eq 124 ]] &&
    head -n 1 "$T/err" | grep -qE "^bnet: estimate: about [0-9.e+]+ $kind, about [0-9.]+ (minutes|hours) of wall time"
  ok "$name: the estimate first (exit $st)" $?
}
estimated "bnet coll 1 GiB on 128 GPUs" "events at packet level" coll -b 1G -e 1G
estimated "bnet run, 8192 hosts, 20 MB flows" "events at packet level" \
  run --set topology.k=32 --set workload.message_bytes=20MB
estimated "bnet coll 1 GiB on 1024 GPUs at flow level" "flow-rate recomputations at flow level" \
  coll --fidelity flow -b 1G -e 1G --nranks 1024
estimated "bnet job, the default job 5 times" "events at packet level" \
  job --set jobs.0.iterations=5
estimated "bnet job, 131k GPUs at flow level" "flow-rate recomputations at flow level" \
  job scenarios/job_llama70b_131k.yaml

# the job's estimate within a factor of 1.5 of the events measured
# (docs/limits.md: 68.6 M measured, 68 M estimated): one iteration run,
# 50 estimated
"$BNET" job --set jobs.0.layers=1 --json "$T/l1.json" >/dev/null 2>&1
st=$?
measured=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sim"]["events"])' "$T/l1.json" 2>/dev/null)
"$BNET" job --set jobs.0.layers=1 --set jobs.0.iterations=50 --max-wall 1 >/dev/null 2>"$T/err"
est=$(sed -n 's/^bnet: estimate: about \([0-9.e+]*\) events.*/\1/p' "$T/err")
[[ $st -eq 0 && -n $measured && -n $est ]] &&
  python3 -c 'import sys; r = float(sys.argv[2]) / 50 / float(sys.argv[1]); sys.exit(not 1 / 1.5 < r < 1.5)' "$measured" "$est"
ok "bnet job at 1 layer: ${est:-no} events estimated for 50 iterations, ${measured:-?} measured for one" $?

# short: nothing said
for args in "run" "coll -b 1M -e 1M" "coll --fidelity flow -b 1M -e 4M" "job --set jobs.0.dp=2"; do
  # shellcheck disable=SC2086
  "$BNET" $args >/dev/null 2>"$T/err"
  st=$?
  [[ $st -eq 0 ]] && ! grep -q "estimate" "$T/err"
  ok "bnet $args: no estimate (exit $st)" $?
done

# refused: the one line of the refusal, no estimate before it
"$BNET" job scenarios/default.yaml --set topology.k=4 --set jobs.0.dp=12 --set jobs.1.dp=8 \
  >/dev/null 2>"$T/err"
st=$?
[[ $st -eq 2 ]] && ! grep -q "estimate" "$T/err"
ok "bnet job with more GPUs than hosts: refused, no estimate (exit $st)" $?
finish
