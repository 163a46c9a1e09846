#!/usr/bin/env bash
# bnet calibrate (docs/calibration.md) on published nccl-tests outputs
# (tests/data/calib/SOURCES): one H100 cluster of NVIDIA/nccl-tests issue
# #309 (8 GPUs and 8 NDR NICs per server) at 2, 4 and 8 servers.
# Hold-out B (NCCL_MIN_CTAS=24, NCCL_IB_QPS_PER_CONNECTION=2): fit on 2
# servers (NCCL_ALGO=Ring), predict 8. The prediction must beat the
# uncalibrated bnet and keep its mean |error| at >= 1 MiB within the
# figure docs/calibration.md states (16.7 %, with a margin; the 10 % target
# is not met). Hold-out A and the rest: tests/cli/test_calibrate.sh.
# Usage: tests/cli/test_calibrate_b.sh BNET
set -uo pipefail
# hold-out A (test_calibrate.sh) runs the same code paths under ASan; B is
# only its figures, 2 min of a sanitizer build's CI time
[ -n "${BNET_SANITIZED:-}" ] && { echo "skipped: sanitizer build"; exit 77; }
source tests/cli/lib.sh
unset NCCL_ALGO NCCL_PROTO NCCL_MIN_NCHANNELS NCCL_MAX_NCHANNELS
D=tests/data/calib

# mean |bnet / measured - 1| in % over the rows >= 1 MiB, of JSON $1's column $2
mean_err() {
    jq --arg c "$2" '[.rows[] | select(.bytes >= 1048576) | (.[$c] / .measured_us - 1 | fabs)]
        | add / length * 100 | . * 10 | round / 10' "$1"
}

# holdout NAME FIT_FILE PREDICT_FILE GUARD_PCT
holdout() {
    local name=$1 fit=$2 pred=$3 guard=$4
    (cd "$T" && $BNET calibrate "$OLDPWD/$fit" --out "$name.yaml" --json "$name-fit.json" \
        --max-runs 16 --quiet)
    local rc=$?
    ok "$name: fit on $(basename "$fit") runs" $rc
    ((rc == 0)) || return
    $BNET calibrate --calibration "$T/$name.yaml" --no-fit "$pred" --json "$T/$name.json" --quiet \
        --report "$T/rep-$name" >/dev/null
    rc=$?
    ok "$name: predicts $(basename "$pred")" $rc
    ((rc == 0)) || return
    jq -e '.rms_after < .rms_before' "$T/$name.json" >/dev/null
    ok "$name: calibrated rms $(jq '.rms_after*1e4|round/1e4' "$T/$name.json") below uncalibrated $(jq '.rms_before*1e4|round/1e4' "$T/$name.json")" $?
    local before after
    before=$(mean_err "$T/$name.json" before_us)
    after=$(mean_err "$T/$name.json" after_us)
    awk -v a="$after" -v g="$guard" 'BEGIN { exit !(a <= g) }'
    ok "$name: mean |error| >= 1 MiB $after % (uncalibrated $before %; stated, with margin: $guard %)" $?
}

holdout B $D/h100-ib400-ctas24-ring-2n.txt $D/h100-ib400-ctas24-8n.txt 20
finish
