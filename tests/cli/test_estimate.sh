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

# short: nothing said
for args in "run" "coll -b 1M -e 1M" "coll --fidelity flow -b 1M -e 4M" "job --set jobs.0.dp=2"; do
  # shellcheck disable=SC2086
  "$BNET" $args >/dev/null 2>"$T/err"
  st=$?
  [[ $st -eq 0 ]] && ! grep -q "estimate" "$T/err"
  ok "bnet $args: no estimate (exit $st)" $?
done
finish
