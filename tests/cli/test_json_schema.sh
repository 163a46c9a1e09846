#!/usr/bin/env bash
# Every command's --json against its schema in docs/schema/, validated by
# Debian's python3-jsonschema: each shipped scenario with the command it is
# for (cut short: sim.max_time_us, flow fidelity for jobs, one size for
# clusters) and its topo, every congestion control and workload kind, the
# imported fabrics (ns-3, ibnetdiscover, bnet's file), every collective and
# the tuners, every perftest test, compare, sweep, keys and presets. A
# result that its own schema refuses is a broken promise to its readers.
# Usage: tests/cli/test_json_schema.sh BNET
set -uo pipefail
source tests/cli/lib.sh
/usr/bin/python3 -c 'import jsonschema' 2>/dev/null ||
  { echo "FAIL  no python3-jsonschema: scripts/need-packages.sh python3-jsonschema"; exit 1; }

n=0
files=()
# res SCHEMA ARGS...: bnet ARGS --json FILE; exit 0 or 3 (faults made work fail)
res() {
  local schema=$1
  shift
  n=$((n + 1))
  "$BNET" "$@" --json "$T/$n.json" >/dev/null 2>"$T/$n.err"
  local rc=$?
  if [[ $rc -ne 0 && $rc -ne 3 ]]; then
    ok "bnet $* (exit $rc: $(tail -1 "$T/$n.err"))" 1
    return
  fi
  files+=("$schema=$T/$n.json")
  echo "$*" >"$T/$n.cmd"
}

SHORT=(--set sim.max_time_us=300)
for f in scenarios/*.yaml; do
  b=$(basename "$f" .yaml)
  [[ $b == cluster_131k || $b == *_131k ]] || res topo topo "$f"  # 131k: 7 s of routing, in test_sizes
  case $b in
    p2p_*) res p2p p2p "$f" -s 4096 -n 50 ;;
    job_llama70b_16k) res job job "$f" --set jobs.0.dp=4 --set jobs.0.global_batch=32 ;;
    hybrid_jobs*) res job job "$f" ;;  # a job as the hybrid region: bnet job only
    job_*|jobs_*) [[ $b == *_131k ]] || res job job "$f" --fidelity flow ;;
    cluster_131k) ;;
    cluster*|superpod*) res coll coll "$f" -b 1M -e 1M ;;
    *) res run run "$f" --quiet "${SHORT[@]}" ;;
  esac
done

K4=(--quiet --set topology.k=4 --set workload.message_bytes=64KB)
for cc in $("$BNET" keys --json | jq -r '.keys[] | select(.path == "nic.congestion_control") | .choices[]'); do
  res run run "${K4[@]}" --set nic.congestion_control="$cc"
done
for w in poisson incast all_to_all permutation; do
  res run run "${K4[@]}" --set workload.kind=$w
done
NS3=(--set topology.kind=ns3 --set topology.file=tests/topo/data/ns3_two_tor.txt)
IB=(--set topology.kind=ibnetdiscover --set topology.file=tests/topo/data/ib_two_leaf.ibnet)
for t in NS3 IB; do
  declare -n fab=$t
  res run run --quiet "${fab[@]}"
  res topo topo "${fab[@]}"
done
res run run scenarios/from_file.yaml --quiet --set nic.congestion_control=hpcc --set workload.kind=poisson \
  "${SHORT[@]}"

SMALL=(--set topology.kind=leaf_spine --set topology.k=4 --set scale_up.domain_gpus=0 -b 1K -e 64K -f 8)
for op in allreduce reducescatter allgather broadcast reduce alltoall sendrecv; do
  res coll coll "${SMALL[@]}" --coll $op
done
for a in ring tree rhd; do res coll coll "${SMALL[@]}" --algo $a; done
res coll coll "${SMALL[@]}" --set coll.tuner=both --bnet-columns
res coll coll -b 1M -e 1M --algo collnet --set sharp.enabled=true
res coll coll -b 1M -e 1M --algo htree
res coll coll -N 1 -g 8 -b 1M -e 1M --set scale_up.nvls=true --set coll.tuner=nccl
res coll coll "${SMALL[@]}" -d all -o all -n 2 -w 1

for t in write_bw write_lat send_bw send_lat read_bw read_lat atomic_bw atomic_lat; do
  res p2p p2p --test $t -s 4096 -n 50
done
res p2p p2p -a -n 20 --set fabric=roce-400g

res compare compare --set topology.kind=leaf_spine --set topology.k=4 --set scale_up.domain_gpus=0 \
  --fidelity flow -j 2
res sweep sweep --set topology.k=4 --set workload.kind=poisson "${SHORT[@]}" -j 2 \
  --vary nic.congestion_control=hpcc,swift,eqds,dctcp,timely --seeds 1-2
res job job --fidelity flow
res job job "${NS3[@]}" --fidelity flow --set jobs.0.tp=4 --set jobs.0.dp=2 --set topology.gpus_per_server=4 \
  --set scale_up.domain_gpus=4

"$BNET" keys --json "$T/keys.json" && files+=("keys=$T/keys.json")
"$BNET" presets --json "$T/presets.json" && files+=("presets=$T/presets.json")

/usr/bin/python3 tests/cli/schema_check.py docs/schema "${files[@]}" >"$T/valid"
while read -r path schema verdict; do
  i=$(basename "$path" .json)
  cmd=$(cat "$T/$i.cmd" 2>/dev/null || echo "$i --json")
  [[ $verdict == valid ]] || echo "      $verdict"
  ok "bnet ${cmd:0:90}: valid against $schema.schema.json" $([[ $verdict == valid ]] && echo 0 || echo 1)
done <"$T/valid"
[[ $(wc -l <"$T/valid") -eq ${#files[@]} ]]
ok "every result was checked (${#files[@]})" $?
finish
