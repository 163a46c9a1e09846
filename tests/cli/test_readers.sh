#!/usr/bin/env bash
# Every text reader takes decimal numbers alone, as YAML scenarios, --set
# and flow files do, and refuses a NUL byte inside a line, each with exit
# status 2 and FILE:LINE (issue 53: the .topo, ns-3 and CDF readers took
# 0x190 as 400 and 0x1p3 as 8; a NUL in an AICB workload file cut the line,
# its `ga: 4` silently dropped). The shared parser is src/core/num.c.
. "$(dirname "$0")/lib.sh"
R=$(cd "$(dirname "$0")/../.." && pwd)

# refused NAME WANT ARGS...: exit 2, WANT on stderr, nothing on stdout
refused() {
    local name=$1 want=$2
    shift 2
    "$BNET" "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$want" "$T/err" && [ ! -s "$T/out" ]; then
        ok "$name" 0
    else
        echo "  rc=$rc stderr: $(head -c 300 "$T/err")"
        ok "$name" 1
    fi
}

# .topo: a hex rate, a hex-float length
sed 's/^link gpu0 leafA 400 2 copper/link gpu0 leafA 0x190 2 copper/' \
    "$R/tests/topo/data/small.topo" >"$T/hex_rate.topo"
refused ".topo: a hex rate" "hex_rate.topo:12:" topo --set topology.kind=file \
    --set topology.file="$T/hex_rate.topo"
sed 's/^link gpu0 leafA 400 2 copper/link gpu0 leafA 400 0x1p3 copper/' \
    "$R/tests/topo/data/small.topo" >"$T/hexf_len.topo"
refused ".topo: a hex-float length" "hexf_len.topo:12:" topo --set topology.kind=file \
    --set topology.file="$T/hexf_len.topo"
sed 's/^link gpu0 leafA 400 2 copper/link gpu0 leafA inf 2 copper/' \
    "$R/tests/topo/data/small.topo" >"$T/inf.topo"
refused ".topo: inf" "inf.topo:12:" topo --set topology.kind=file --set topology.file="$T/inf.topo"

# ns-3: a hex rate, a hex-float delay, a hex node id, a hex error rate
N=$R/tests/topo/data/ns3_two_tor.txt
sed '3s/100Gbps/0x64Gbps/' "$N" >"$T/ns3_rate.txt"
refused "ns-3: a hex rate" "ns3_rate.txt:3: RATE" topo --set topology.kind=ns3 \
    --set topology.file="$T/ns3_rate.txt"
sed '3s/0.001ms/0x1p-10ms/' "$N" >"$T/ns3_delay.txt"
refused "ns-3: a hex-float delay" "ns3_delay.txt:3: DELAY" topo --set topology.kind=ns3 \
    --set topology.file="$T/ns3_delay.txt"
sed '1s/^12 /0xc /' "$N" >"$T/ns3_nodes.txt"
refused "ns-3: a hex node count" "ns3_nodes.txt:1:" topo --set topology.kind=ns3 \
    --set topology.file="$T/ns3_nodes.txt"
sed '3s/ 0$/ 0x0/' "$N" >"$T/ns3_err.txt"
refused "ns-3: a hex error rate" "ns3_err.txt:3: ERROR_RATE" topo --set topology.kind=ns3 \
    --set topology.file="$T/ns3_err.txt"

# size CDFs: a hex size, a hex-float probability
printf '0 0\n0x2710 0.5\n20000 1\n' >"$T/hex.cdf"
refused "CDF: a hex size" "hex.cdf:2:" run --set topology.k=4 --set workload.kind=poisson \
    --set workload.size_cdf="$T/hex.cdf"
printf '0 0\n10000 0x1p-1\n20000 1\n' >"$T/hexf.cdf"
refused "CDF: a hex-float probability" "hexf.cdf:2:" run --set topology.k=4 \
    --set workload.kind=poisson --set workload.size_cdf="$T/hexf.cdf"

# flow files (bnet's, HPCC's): hex sizes and times
printf '0 1 0x1000 0\n' >"$T/hex.flows"
refused "flow file: a hex size" "hex.flows:1:" run --set topology.k=4 \
    --set workload.kind=flow_list --set workload.flow_file="$T/hex.flows"
printf '1\n0 1 3 100 4096 0x1p1\n' >"$T/hex_hpcc.txt"
refused "HPCC flow.txt: a hex-float start" "hex_hpcc.txt:2:" run --set topology.k=4 \
    --set workload.kind=flow_list --set workload.flow_file="$T/hex_hpcc.txt"

# AICB workload files: a NUL byte in the header (it used to cut `ga: 4`
# off), a hex number
W="HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1"
L='l0 -1 1000 NONE 0 1000 NONE 0 1000 ALLREDUCE 4096 0'
printf '%s\0 ga: 4 all_gpus: 16\n1\n%s\n' "$W" "$L" >"$T/w_nul.txt"
refused "AICB: a NUL byte in the header" "w_nul.txt:1:" job "$R/scenarios/default.yaml" \
    --set topology.k=4 --set "jobs.0.workload_file=$T/w_nul.txt"
grep -q "NUL" "$T/err"
ok "AICB: the NUL byte is named" $?
printf '%s ga: 4 all_gpus: 16\n1\n%s\0\n' "$W" "$L" >"$T/w_nul3.txt"
refused "AICB: a NUL byte in a layer line" "w_nul3.txt:3:" job "$R/scenarios/default.yaml" \
    --set topology.k=4 --set "jobs.0.workload_file=$T/w_nul3.txt"
printf '%s ga: 0x4 all_gpus: 16\n1\n%s\n' "$W" "$L" >"$T/w_hex.txt"
refused "AICB: a hex ga" "w_hex.txt:1:" job "$R/scenarios/default.yaml" \
    --set topology.k=4 --set "jobs.0.workload_file=$T/w_hex.txt"
# no all_gpus and no jobs[].gpus: said so, not "all_gpus 0"
printf '%s ga: 1\n1\n%s\n' "$W" "$L" >"$T/w_nogpus.txt"
refused "AICB: no all_gpus and no jobs[].gpus" "gives no all_gpus and jobs[0].gpus is not set" \
    job "$R/scenarios/default.yaml" --set topology.k=4 --set "jobs.0.workload_file=$T/w_nogpus.txt"
grep -q "all_gpus 0" "$T/err"
ok "AICB: no 'all_gpus 0' where the file gives none" $((!$?))
printf 'HYBRID_TRANSFORMER model_parallel_NPU_group: 3 ga: 1\n1\n%s\n' "$L" >"$T/w_split.txt"
refused "AICB: jobs[].gpus named when all_gpus is absent" \
    "jobs[].gpus (the file gives no all_gpus) 16 must be a multiple" job "$R/scenarios/default.yaml" \
    --set topology.k=4 --set jobs.0.gpus=16 --set "jobs.0.workload_file=$T/w_split.txt"

finish
