#!/usr/bin/env bash
# bnet calibrate (docs/calibration.md) on published nccl-tests outputs
# (tests/data/calib/SOURCES): one H100 cluster of NVIDIA/nccl-tests issue
# #309 (8 GPUs and 8 NDR NICs per server) at 2, 4 and 8 servers.
# Hold-out B (NCCL_MIN_CTAS=24, NCCL_IB_QPS_PER_CONNECTION=2): fit on 2
# servers (NCCL_ALGO=Ring), predict 8. The prediction must beat the
# uncalibrated bnet and keep its mean |error| at >= 1 MiB within the
# figure docs/calibration.md states (23.5 %, with a margin; the 10 % target
# is not met). Hold-out A and the rest: tests/cli/test_calibrate.sh.
# Usage: tests/cli/test_calibrate_b.sh BNET
set -uo pipefail
# hold-out A (test_calibrate.sh) runs the same code paths under ASan; B is
# only its figures, 2 min of a sanitizer build's CI time
[ -n "${BNET_SANITIZED:-}" ] && { echo "skipped: sanitizer build"; exit 77; }
source tests/cli/lib.sh
source tests/cli/calib_holdout.sh
holdout B $D/h100-ib400-ctas24-ring-2n.txt $D/h100-ib400-ctas24-8n.txt 25.0
# the channel count starts where NCCL_MIN_CTAS=24 put it and stays within
ch=$(sed -n 's/^  coll.channels: \([0-9]*\)    # discrete, bounds \[2, 32\], was 24.*/\1/p' \
    "$T/B.yaml")
[ -n "$ch" ] && [ "$ch" -ge 24 ] && [ "$ch" -le 32 ]
ok "coll.channels fitted from NCCL_MIN_CTAS's 24 within 24..32 (got '$ch')" $?
finish
