#!/usr/bin/env bash
# The peers' own example files (tests/data/peers/, SOURCES says where each
# comes from), each fed as its project's docs say: it runs with a sensible
# result, or it is refused with FILE:LINE and what is missing (issue 55).
. "$(dirname "$0")/lib.sh"
D=$(cd "$(dirname "$0")/../data/peers" && pwd)

# ---- HPCC (alibaba-edu/High-Precision-Congestion-Control) ----
H=$D/hpcc
# topology.txt: 66 nodes, switch 0 first, 65 links declared and 256 listed,
# then a note on the format; flow.txt: 2 flows declared, 256 listed. ns-3
# reads the declared counts; the flows name ns-3 node ids: 2->1 and 3->1
# are hosts 1->0 and 2->0 (node 0 is the switch).
"$BNET" run --set topology.kind=ns3 --set topology.file="$H/topology.txt" \
    --set workload.kind=flow_list --set workload.flow_file="$H/flow.txt" \
    --json "$T/hpcc.json" >/dev/null 2>"$T/hpcc.err"
ok "hpcc: topology.txt + flow.txt run" $?
check "hpcc: 65 hosts, 1 switch" "$T/hpcc.json" '.topology.hosts == 65 and .topology.switches == 1'
check "hpcc: the 2 declared flows, on ns-3's node ids" "$T/hpcc.json" \
    '(.flows | length) == 2 and .flows[0].src == 1 and .flows[0].dst == 0 and
     .flows[1].src == 2 and .flows[1].dst == 0 and all(.flows[]; .done)'
grep -q "topology.txt:68: ignored from here on: the first line declares 65 links" "$T/hpcc.err"
ok "hpcc: the links past the count are ignored with a warning" $?
grep -q "flow.txt:4: ignored from here on: the first line declares 2 flows" "$T/hpcc.err"
ok "hpcc: the flows past the count are ignored with a warning" $?

# a flow naming the switch's node id is refused, not sent from host 0
printf '1\n0 1 3 100 1000 2\n' >"$T/to_switch.txt"
"$BNET" run --set topology.kind=ns3 --set topology.file="$H/topology.txt" \
    --set workload.kind=flow_list --set workload.flow_file="$T/to_switch.txt" \
    >/dev/null 2>"$T/sw.err"
rc=$?
[ $rc -eq 2 ] && grep -q "to_switch.txt:2: field 'src': node 0 is a switch" "$T/sw.err"
ok "hpcc: a flow from the switch's node id refused with file:line" $?

# fat.txt: a 320-host three-tier fat-tree with 400G uplinks
"$BNET" topo --set topology.kind=ns3 --set topology.file="$H/fat.txt" --json "$T/fat.json" \
    >/dev/null 2>&1
ok "hpcc: fat.txt imports" $?
check "hpcc: fat.txt has 320 hosts, 56 switches in 3 tiers, 480 links" "$T/fat.json" \
    '.topology.hosts == 320 and .topology.switches == 56 and (.topology.tiers | length) == 3 and
     .topology.links == 480'

# its traffic generator's CDFs, as Poisson traffic on fat.txt
for c in WebSearch_distribution FbHdp_distribution AliStorage2019; do
    "$BNET" run --set topology.kind=ns3 --set topology.file="$H/fat.txt" \
        --set workload.kind=poisson --set workload.size_cdf="$H/$c.txt" \
        --set workload.duration_us=10 --json "$T/$c.json" >/dev/null 2>&1
    ok "hpcc: $c.txt as workload.size_cdf runs" $?
    check "hpcc: $c.txt: every flow completes" "$T/$c.json" \
        '(.flows | length) > 0 and all(.flows[]; .done)'
done

# ---- htsim (Broadcom/csg-htsim) ----
# sim/EXAMPLES: 432-host permutation and 64-to-1 incast, every flow "size 0"
# (sending until the run ends, htsim's -end): on htsim's 432-host fat-tree
# (k = 12), for 20 us. A permutation's flows share 100G links (ECMP
# collisions); the incast's 64 share one 100G link.
X=$D/htsim
run_cm() { # NAME FILE K ARGS...: bnet run of an htsim connection matrix
    local name=$1 f=$2 k=$3
    shift 3
    "$BNET" run --set topology.k="$k" --set workload.kind=flow_list \
        --set workload.flow_file="$f" "$@" --json "$T/$name.json" >/dev/null 2>"$T/$name.err"
}
run_cm perm "$X/permutation.cm" 12 --set sim.max_time_us=20
ok "htsim: EXAMPLES/permutation runs (size 0 until sim.max_time_us)" $?
check "htsim: permutation: 432 flows sending at the end, 1..100 Gb/s each" "$T/perm.json" \
    '(.flows | length) == 432 and all(.flows[]; .done == false and .throughput_gbps > 0 and
     .throughput_gbps <= 100)'
run_cm incast "$X/incast.cm" 12 --set sim.max_time_us=20
ok "htsim: EXAMPLES/collateral incast runs" $?
check "htsim: incast: the 64 flows share host 0's 100G link (70..100 Gb/s in all)" \
    "$T/incast.json" '(.flows | length) == 64 and
     ([.flows[].throughput_gbps] | add) > 70 and ([.flows[].throughput_gbps] | add) <= 100'
run_cm perm0 "$X/permutation.cm" 12
rc=$?
[ $rc -eq 2 ] && grep -q "permutation.cm:3: 'size 0' sends until the simulation ends" "$T/perm0.err"
ok "htsim: size 0 without sim.max_time_us refused with file:line" $?
# connection_matrices/gen_allreduce.py (ring, send_done_trigger chains) and
# gen_allreduce_butterfly.py (recv_done_trigger): the ring runs; the
# butterfly with 4-host groups leaves its last trigger undefined (htsim
# itself stops on it: "Mismatch in trigger count"), refused naming it; with
# 2-host groups it has no trigger and runs.
run_cm ring "$X/gen_allreduce_16n_8c_8g_64KiB.cm" 4
ok "htsim: gen_allreduce.py's ring runs" $?
check "htsim: ring: 120 flows of 64 KiB, all done" "$T/ring.json" \
    '(.flows | length) == 120 and all(.flows[]; .done and .bytes == 65536)'
run_cm bf4 "$X/gen_allreduce_butterfly_16n_4g_4s_64KiB.cm" 4
rc=$?
[ $rc -eq 2 ] && grep -q "4s_64KiB.cm:31: trigger 16 is used here but no 'trigger id 16' line" "$T/bf4.err"
ok "htsim: gen_allreduce_butterfly.py's undefined trigger refused, named" $?
run_cm bf2 "$X/gen_allreduce_butterfly_16n_8g_2s_64KiB.cm" 4
ok "htsim: gen_allreduce_butterfly.py with pairs runs" $?
check "htsim: butterfly pairs: 16 flows done" "$T/bf2.json" \
    '(.flows | length) == 16 and all(.flows[]; .done)'

# ---- SimAI (aliyun/SimAI) and AICB (aliyun/aicb) workload files ----
# fed as jobs[0].workload_file to `bnet job`, at flow level (the packet
# level takes 10..110 s on these); AICB's files give no all_gpus (SimAI is
# told the count on its command line): refused naming it, then run with
# jobs.0.gpus. Sensible: the iteration is at least the busiest GPU's
# compute, and every collective the file names ran.
job() { # NAME FILE ARGS...
    local name=$1 f=$2
    shift 2
    "$BNET" job --set sim.fidelity=flow --set jobs.0.workload_file="$f" "$@" \
        --json "$T/$name.json" >/dev/null 2>"$T/$name.err"
}
job simai_micro "$D/simai/microAllReduce.txt"
ok "SimAI: example/microAllReduce.txt runs (tp 8 on NVLink)" $?
check "SimAI: microAllReduce: 556 us of compute, one 512 MiB all-reduce" "$T/simai_micro.json" \
    '.jobs[0].gpus == 8 and .jobs[0].tp == 8 and (.jobs[0].compute_us | floor) == 556 and
     .jobs[0].iteration_us > 556 and (.jobs[0].collectives | length) == 1 and
     .jobs[0].collectives[0].op == "allreduce" and .jobs[0].collectives[0].size == 536870912'
# example/workload_analytical.txt, as SimAI's README runs it
# (SimAI_analytical -g 9216 -g_p_s 8): a 9216-GPU MoE job (tp 2, ep 16,
# pp 12, ga 24, 1789 layers). On the default 128-GPU cluster it is refused
# at line 1 naming all_gpus; on a 9826-host fat-tree (k = 34) at line 2,
# its task graph (1789 layers x 24 micro-batches x 384 pipelines x 12
# stages) above bnet's 50 million tasks
W=$D/simai/workload_analytical.txt
job simai_analytical "$W"
rc=$?
[ $rc -eq 2 ] && grep -q "workload_analytical.txt:1: key 'jobs\[0\].workload_file': all_gpus 9216 is more than the cluster's 128 GPUs" \
    "$T/simai_analytical.err"
ok "SimAI: example/workload_analytical.txt on 128 GPUs: refused at :1, all_gpus 9216" $?
job simai_analytical_9k "$W" --set topology.kind=fat_tree --set topology.k=34
rc=$?
[ $rc -eq 2 ] && grep -q "workload_analytical.txt:2: key 'jobs\[0\].workload_file': 1789 layers x ga 24 on 384 pipelines x 12 stages would make more than 50000000 tasks" \
    "$T/simai_analytical_9k.err" && [ ! -s "$T/simai_analytical_9k.json" ]
ok "SimAI: example/workload_analytical.txt on 9826 hosts: refused at :2, its task count" $?
A=$D/aicb
job aicb_nogpus "$A/all_reduce.txt"
rc=$?
[ $rc -eq 2 ] && grep -q "all_reduce.txt:1: key 'jobs\[0\].workload_file': the file gives no all_gpus" \
    "$T/aicb_nogpus.err"
ok "AICB: a file without all_gpus, no jobs[].gpus: refused with file:line" $?
for f in all_reduce all_gather all_to_all; do
    job "aicb_$f" "$A/$f.txt" --set topology.kind=fat_tree --set topology.k=4 --set jobs.0.gpus=16
    ok "AICB: micro_test/$f.txt runs on 16 GPUs" $?
    check "AICB: $f: 19 sizes, 4 KiB .. 1 GiB, on dp 16" "$T/aicb_$f.json" \
        '.jobs[0].dp == 16 and (.jobs[0].collectives | length) == 19 and
         ([.jobs[0].collectives[].size] | min) == 4096 and
         ([.jobs[0].collectives[].size] | max) == 1073741824'
done
job aicb_muti "$A/muti_all_reduce.txt" --set topology.kind=fat_tree --set topology.k=4 \
    --set jobs.0.gpus=16
ok "AICB: micro_test/muti_all_reduce.txt runs (tp 8 x dp 2)" $?
check "AICB: muti_all_reduce: 19 sizes on dp 2, 8 groups each" "$T/aicb_muti.json" \
    '.jobs[0].tp == 8 and .jobs[0].dp == 2 and (.jobs[0].collectives | length) == 19 and
     all(.jobs[0].collectives[]; .count == 8)'
# model workloads: Megatron tp 2 and tp 8, DeepSpeed ZeRO-3. tp 2 on 4 GPUs
# in NVLink pairs puts its 13.5 GB reduce-scatter on the fabric (dp 16
# takes 35 s at flow level: the ring's steps)
job aicb_tp2 "$A/L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt" --set topology.kind=fat_tree \
    --set topology.k=4 --set scale_up.domain_gpus=2 --set jobs.0.gpus=4
ok "AICB: Llama 7B Megatron tp 2 runs" $?
check "AICB: tp 2: 64 layers of compute, the DP reduce-scatter near 400G line rate" "$T/aicb_tp2.json" \
    '.jobs[0].tp == 2 and .jobs[0].dp == 2 and .jobs[0].iteration_us > .jobs[0].compute_us and
     ([.jobs[0].collectives[] | select(.dim == "dp")][0].busbw_gbs) > 40'
job aicb_tp8 "$A/G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt" --set jobs.0.gpus=16
ok "AICB: GPT 13B Megatron tp 8 runs (tp on NVLink, dp 2 on the rails)" $?
check "AICB: tp 8: tp and dp collectives, iteration above compute" "$T/aicb_tp8.json" \
    '.jobs[0].tp == 8 and .jobs[0].dp == 2 and .jobs[0].iteration_us > .jobs[0].compute_us and
     any(.jobs[0].collectives[]; .dim == "dp" and .op == "reducescatter")'
job aicb_z3 "$A/L7B-D1-C02_Llama7B_deepspeed_zero3_A100.txt" --set topology.kind=fat_tree \
    --set topology.k=4 --set scale_up.domain_gpus=2 --set jobs.0.gpus=4
ok "AICB: Llama 7B DeepSpeed ZeRO-3 runs (its mixed tabs and blanks read)" $?
check "AICB: ZeRO-3: 12 layers, the 1.9 GB gradient reduce-scatter on dp 4" "$T/aicb_z3.json" \
    '.jobs[0].tp == 1 and .jobs[0].dp == 4 and
     any(.jobs[0].collectives[]; .dim == "dp" and .size == 1889785610)'

# ---- ASTRA-sim (astra-sim/astra-sim) analytical network configs ----
# not a bnet scenario (bnet's topologies are built from topology.*): each is
# refused at its npus_count line, named as ASTRA-sim's, saying what bnet
# needs instead; as a topology file, at its first line
for f in Ring_4npus Ring_16npus HGX-H100-validated; do
    "$BNET" run "$D/astra-sim/$f.yml" >"$T/astra.out" 2>"$T/astra.err"
    rc=$?
    [ $rc -eq 2 ] && grep -q "$f.yml:2: key 'npus_count': an ASTRA-sim analytical network configuration.*give the fabric as topology" \
        "$T/astra.err" && [ ! -s "$T/astra.out" ] && [ "$(wc -l <"$T/astra.err")" -eq 1 ]
    ok "ASTRA-sim: examples/network/analytical/$f.yml refused with file:line, named" $?
    "$BNET" topo --set topology.kind=file --set topology.file="$D/astra-sim/$f.yml" \
        >"$T/astra.out" 2>"$T/astra.err"
    rc=$?
    [ $rc -eq 2 ] && grep -q "$f.yml:1: 'topology:' opens an ASTRA-sim analytical network" \
        "$T/astra.err" && [ ! -s "$T/astra.out" ]
    ok "ASTRA-sim: $f.yml as topology.file refused at :1, named" $?
done

# its htsim backend's topology file (htsim's fat-tree description, -topo):
# bnet's .topo reader refuses it at its first line, naming the format
"$BNET" topo --set topology.kind=file --set topology.file="$D/astra-sim/8nodes.topo" \
    >"$T/htsim_topo.out" 2>"$T/htsim_topo.err"
rc=$?
[ $rc -eq 2 ] && grep -q "8nodes.topo:1: 'Nodes' opens htsim's fat-tree description" "$T/htsim_topo.err" &&
    [ ! -s "$T/htsim_topo.out" ]
ok "ASTRA-sim: examples/htsim/8nodes.topo refused at :1, named as htsim's fat-tree file" $?

# ---- the ibnetdiscover(8) manual page's example (linux-rdma/rdma-core) ----
# 2 switches, 4 CAs (one with both ports cabled: 2 hosts), 7 links, two of
# them stated 4xSDR at one end and 1xSDR at the other
M=$D/rdma-core/ibnetdiscover_man_example.ibnet
"$BNET" topo --set topology.kind=ibnetdiscover --set topology.file="$M" --json "$T/man.json" \
    >/dev/null 2>"$T/man.err"
ok "ibnetdiscover(8): the manual's example imports" $?
check "ibnetdiscover(8): 5 hosts, 2 switches, 7 links: 5 at 4xSDR, 2 at 1xSDR" "$T/man.json" \
    '.topology.hosts == 5 and .topology.switches == 2 and .topology.links == 7 and
     .topology.links_by_rate == [{"gbps": 10, "links": 5}, {"gbps": 2.5, "links": 2}]'
[ "$(grep -c 'the link is taken at the slower, 2.5 Gb/s' "$T/man.err")" -eq 2 ]
ok "ibnetdiscover(8): both width disagreements warned of" $?
grep -q 'man_example.ibnet:50: CA "H-0008f10403960558" has 2 cabled ports' "$T/man.err"
ok "ibnetdiscover(8): the dual-port CA warned of" $?

finish
