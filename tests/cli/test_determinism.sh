#!/usr/bin/env bash
# Determinism audit (issue 53): every shipped scenario in scenarios/, with
# the command it is for, gives byte-identical JSON
#  - run twice (bnet run with --reproducible: its wall-clock figures are
#    zero; the other commands' JSON holds none);
#  - across -j where the command takes it (coll's sizes, compare's fabrics,
#    sweep's cells run in worker processes): -j 1, 2 and 4;
#  - with sim.event_order keyed, cut into 1 to 4 partitions (bnet run; the
#    JSON less its partition section and the command and config that name
#    it), each run cut short at 200 simulated us, where a longer run costs
#    seconds in windows; a fabric with fewer units than parts says so and
#    is cut into what it holds;
#  - in the sanitizer build (BNET_SANITIZED=1), against the release
#    build's bnet (BNET_RELEASE, else build/bnet, which scripts/test.sh
#    builds first): the same files, byte for byte. Only this comparison
#    runs there (the sanitizer build is 3-10 times slower).
# Shrunk, with the reason: lb_spray_go_back_n (go-back-N under spraying
# retransmits for 6.6 s whole) stops at 1000 us; superpod_b200's sweep is
# one 64 KiB size (1 s); job_llama70b_16k runs 4 of its 256 data-parallel
# replicas; cluster_131k and job_llama70b_131k are left out (13 s of
# routing tables for 131,072 GPUs, timed in test_sizes.sh). About 40 s in the normal
# build on 2 cores.
# Usage: tests/cli/test_determinism.sh BNET
set -uo pipefail
source tests/cli/lib.sh

# args_for NAME FILE: the command line the scenario is for, into A
args_for() {
    local b=$1 f=$2
    case $b in
        p2p_*) A=(p2p "$f" -s 4096 -n 50) ;;
        job_llama70b_131k|cluster_131k) A=() ;;
        job_llama70b_*) A=(job "$f" --quiet --set jobs.0.dp=4 --set jobs.0.global_batch=32) ;;
        hybrid_jobs*) A=(job "$f" --quiet) ;; # a job as the hybrid region: bnet job only
        job_*|jobs_*) A=(job "$f" --fidelity flow --quiet) ;;
        superpod*) A=(coll "$f" -b 64K -e 64K) ;;
        cluster*) A=(coll "$f" -b 64K -e 1M -f 4) ;;
        lb_spray_go_back_n) A=(run "$f" --quiet --reproducible --set sim.max_time_us=1000) ;;
        *) A=(run "$f" --quiet --reproducible) ;;
    esac
}

# same NAME FILE1 FILE2: byte-identical, else the first lines that differ
same() {
    cmp -s "$2" "$3"
    local st=$?
    ok "$1" $st
    [ $st -eq 0 ] || diff <(jq -S . "$2") <(jq -S . "$3") | head -6
}

if [[ ${BNET_SANITIZED:-0} == 1 ]]; then
    REL=${BNET_RELEASE:-$PWD/build/bnet}
    if [[ ! -x $REL || $REL -ef $BNET ]]; then
        echo "no release build's bnet at $REL (set BNET_RELEASE): nothing to compare with"
        [[ ${CI:-} == true ]] && { echo "FAIL  CI builds build/ first (scripts/test.sh)"; exit 1; }
        exit 77
    fi
    for f in scenarios/*.yaml; do
        b=$(basename "$f" .yaml)
        args_for "$b" "$f"
        ((${#A[@]})) || continue
        [[ ${A[0]} == run ]] && A+=(--set sim.max_time_us=200)
        "$BNET" "${A[@]}" --json "$T/$b.san.json" >/dev/null 2>"$T/$b.err"
        rc=$?
        "$REL" "${A[@]}" --json "$T/$b.rel.json" >/dev/null 2>&1
        [[ $rc -eq 0 || $rc -eq 3 ]] || { ok "$b: sanitized run (exit $rc: $(tail -1 "$T/$b.err"))" 1; continue; }
        same "$b: sanitizer build's JSON is the release build's" "$T/$b.rel.json" "$T/$b.san.json"
    done
    finish
    exit
fi

# repeated runs, every scenario
for f in scenarios/*.yaml; do
    b=$(basename "$f" .yaml)
    args_for "$b" "$f"
    ((${#A[@]})) || { echo "skip  $b: 131,072 GPUs' routing tables take 13 s (test_sizes.sh)"; continue; }
    for i in 1 2; do
        "$BNET" "${A[@]}" --json "$T/$b.$i.json" >/dev/null 2>"$T/$b.err"
        rc=$?
        # 3: faults made some work fail, which is the scenario's result
        [[ $rc -eq 0 || $rc -eq 3 ]] || break
    done
    [[ $rc -eq 0 || $rc -eq 3 ]] || { ok "$b: bnet ${A[*]} (exit $rc: $(tail -1 "$T/$b.err"))" 1; continue; }
    same "$b: two runs, the same JSON" "$T/$b.1.json" "$T/$b.2.json"
done

# -j: worker processes take the sizes, fabrics and cells in another order
workers() { # NAME ARGS...: -j 1, 2, 4 give one JSON
    local name=$1 j
    shift
    for j in 1 2 4; do
        "$BNET" "$@" -j $j --json "$T/j$j.json" >/dev/null 2>"$T/j.err" ||
            { ok "$name -j $j (exit $?: $(tail -1 "$T/j.err"))" 1; return; }
    done
    cmp -s "$T/j1.json" "$T/j2.json" && cmp -s "$T/j1.json" "$T/j4.json"
    ok "$name: -j 1, 2 and 4 give the same JSON" $?
}
workers "coll cluster128" coll scenarios/cluster128.yaml -b 64K -e 1M -f 4
workers "compare" compare --set topology.kind=leaf_spine --set topology.k=4 --set scale_up.domain_gpus=0 \
    --fidelity flow
workers "sweep" sweep scenarios/leaf_spine_incast.yaml --quiet --vary nic.congestion_control=dcqcn,hpcc,swift \
    --seeds 1-2

# keyed order, 1..4 partitions: every run scenario
for f in scenarios/*.yaml; do
    b=$(basename "$f" .yaml)
    args_for "$b" "$f"
    [[ ${A[0]:-} == run ]] || continue
    [[ $b == hybrid_* ]] && continue # flows are not partitioned (test_hybrid.sh refuses it)
    parts=0
    for n in 1 2 3 4; do
        "$BNET" "${A[@]}" --set sim.max_time_us=200 --set sim.event_order=keyed --set sim.partitions=$n \
            --json "$T/p$n.json" >/dev/null 2>"$T/p.err"
        rc=$?
        if [[ $rc -eq 2 ]] && grep -q "units that no cut splits" "$T/p.err"; then
            echo "      $b: $(grep -o '[0-9]* units that no cut splits' "$T/p.err"): $parts parts at most"
            break
        fi
        [[ $rc -eq 0 || $rc -eq 3 ]] || { ok "$b: $n parts (exit $rc: $(tail -1 "$T/p.err"))" 1; continue 2; }
        jq -S 'del(.partition, .command, .config)' "$T/p$n.json" >"$T/n$n.json"
        parts=$n
    done
    st=$((parts < 2))
    for ((n = 2; n <= parts; n++)); do
        cmp -s "$T/n1.json" "$T/n$n.json" || { st=1; diff "$T/n1.json" "$T/n$n.json" | head -4; }
    done
    ok "$b: keyed order, 1..$parts partitions, the same JSON" $st
done
finish
