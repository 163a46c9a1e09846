#!/usr/bin/env bash
# bnet coll against published nccl-tests AllReduce results (docs/
# collectives.md, "Against published nccl-tests results"): busbw at 1 GiB
# within 10 % of each, with the pair NCCL's model picks.
# - 8 x H100 in one server, NVLS off: 368.76 GB/s (NVIDIA/nccl-tests issue
#   #309); NVLink's data at NCCL's own figure for an NVLink4 link, 20.6 of
#   25 GB/s (NCCL src/graph/topo.h, SM90_NVLINK_BW): the default
#   scale_up.efficiency, 0.824;
# - 4 x GB200 in one NVLink5 domain, Ring: 679.61 GB/s at 8 GiB (Azure
#   ND GB200 v6, Azure/AI-benchmarking-guide); NVLink5 at 7200 Gb/s with
#   NCCL's 40.1 of 50 GB/s a link (SM100_NVLINK_BW), efficiency 0.802;
# - 4 servers of 8 x H100 on NDR InfiniBand (the ib-ndr preset): 365.84
#   GB/s (NVIDIA/nccl-tests issue #309);
# - 8 x H100 with NVLS: about 480 GB/s (an NCCL maintainer in
#   NVIDIA/nccl-tests issue #212), NVLS/Simple, NVLink as above and NCCL's
#   Hopper NVLS efficiency 0.85;
# - 8 x B300 with NVLS: 845 GB/s (NVIDIA/nccl issue #2140), NVLink5 as
#   above and NCCL's Blackwell NVLS efficiency 0.74.
# - 8-byte AllReduce time within 15 %: 38.37 us on 4 servers of 8 x H100
#   (ZiyanIshani/vpbenchmarking, NCCL 2.24.3) and 61.98 us on 16 (NVIDIA/nccl
#   issue #1469, NCCL 2.20.5, in place), with NCCL's launch and LL step
#   latencies (docs/collectives.md, "Across servers").
# Usage: tests/cli/test_nccl_published.sh BNET
set -uo pipefail
source tests/cli/lib.sh
unset NCCL_ALGO NCCL_PROTO NCCL_MIN_NCHANNELS NCCL_MAX_NCHANNELS

# within NAME PUBLISHED PICK ARGS...: the 1 GiB row's busbw within 10 %
# of it, NCCL's model picking PICK
within() {
    local name=$1 want=$2 pick=$3
    shift 3
    $BNET all_reduce_perf -b 1G -e 1G --set coll.in_place=false --set coll.channels=16 "$@" \
        --json "$T/$name.json" >/dev/null || { ok "$name runs" 1; return; }
    jq -e --argjson w "$want" '.rows[0] | (.busbw_gbs / $w - 1 | fabs) <= 0.10
        and (.nccl.algo + "/" + .nccl.proto) == $p' --arg p "$pick" "$T/$name.json" >/dev/null
    local rc=$? # before the substitutions below reset $?
    ok "$name: busbw $(jq '.rows[0].busbw_gbs*100|round/100' "$T/$name.json") GB/s, published $want, NCCL's pick $(jq -r '.rows[0].nccl | .algo + "/" + .proto' "$T/$name.json")" $rc
}

# small NAME PUBLISHED_US ARGS...: the 8-byte row's time within 15 % of it
small() {
    local name=$1 want=$2
    shift 2
    $BNET all_reduce_perf -b 8 -e 8 --set coll.in_place=false "$@" --json "$T/$name.json" \
        >/dev/null || { ok "$name runs" 1; return; }
    jq -e --argjson w "$want" '.rows[0] | (.time_us / $w - 1 | fabs) <= 0.15' "$T/$name.json" \
        >/dev/null
    local rc=$?
    ok "$name: 8 B in $(jq '.rows[0].time_us*100|round/100' "$T/$name.json") us, published $want" $rc
}

small h100-4x8-8B 38.37 -N 4 -g 8
small h100-16x8-8B 61.98 -N 16 -g 8
within h100-8 368.76 Ring/Simple -g 8
within gb200-4 679.61 Ring/Simple -g 4 --set fabric=ib-xdr --set scale_up.rate_gbps=7200 \
    --set scale_up.efficiency=0.802
within h100-4x8 365.84 Ring/Simple -N 4 -g 8
within h100-8-nvls 480 NVLS/Simple -g 8 --set scale_up.nvls=true
within b300-8-nvls 845 NVLS/Simple -g 8 --set fabric=ib-xdr --set scale_up.rate_gbps=7200 \
    --set scale_up.efficiency=0.802 \
    --set scale_up.nvls=true --set scale_up.nvls_efficiency=0.74
finish
