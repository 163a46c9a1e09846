#!/usr/bin/env bash
# One bnet run's (and each bnet coll row's) parts on MPI ranks
# (docs/parallel.md): mpirun -np 2 (and 3) cuts the fabric into a part per
# rank, each rank runs its part's events, frames and flow-control signals
# crossing the cut travel as MPI messages at each window's end, and rank
# 0's JSON is the one-process partitioned run's, byte for byte: lossy
# go-back-N, PFC with DCQCN and pauses across the cut, HPCC (telemetry in
# the frames), InfiniBand credits with IB CC, a preset with its host model,
# the default's time series, a run cut short by sim.max_time_us; ring,
# SHARP CollNet, hierarchical (NVLink), tree AllReduce and a ring on a
# 16-host fat-tree rows. Bad requests are one message and exit 2; a rank
# that dies ends the job.
# Usage: tests/cli/test_mpi_partition.sh BNET
set -uo pipefail
source tests/cli/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

if [[ $(ldd "$BNET") != *libmpi* ]] || ! command -v mpirun >/dev/null; then
  echo "ok    built without MPI (or no mpirun): test_mpi.sh checks the refusal"
  finish
  exit
fi

# same NP NAME ARGS...: one process in NP parts against mpirun -np NP
same() {
    local np=$1 name=$2
    shift 2
    local a=(--set observe.sample_us=0 --partitions "$np" --reproducible --quiet)
    "$BNET" run "$@" "${a[@]}" --json "$T/one.json" || { ok "$name: one process" 1; return; }
    timeout 120 mpirun --oversubscribe -np "$np" "$BNET" run "$@" "${a[@]}" --json "$T/mpi.json" \
        >"$T/out" 2>"$T/err" || { ok "$name: mpirun -np $np" 1; cat "$T/err"; return; }
    cmp -s "$T/one.json" "$T/mpi.json"
    ok "$name: $np ranks byte-identical to one process" $?
    check "$name: frames crossed between the ranks" "$T/mpi.json" '.partition.cut_frames > 0'
}

same 2 "lossy go-back-N" --set topology.k=8 --set workload.message_bytes=300KB
same 2 "PFC head-of-line blocking" scenarios/hol_pfc.yaml
check "PFC pauses crossed between the ranks" "$T/mpi.json" '.partition.cut_signals > 0'
same 2 "HPCC, its telemetry in the frames" --set nic.congestion_control=hpcc \
    --set workload.message_bytes=200KB
same 2 "credits + IB CC incast" scenarios/incast_credit_ib_cc.yaml --set workload.message_bytes=100KB
check "credits crossed between the ranks" "$T/mpi.json" '.partition.cut_signals > 0'
same 3 "roce-400g preset with its host model, 3 ranks" --set fabric=roce-400g \
    --set topology.k=8 --set workload.message_bytes=100KB
# each rank writes only its ports and their peers (sim/ranks.c, bn_ranks_place)
same 2 "1024-host permutation, a rank holding its ports" --set topology.k=16 \
    --set workload.message_bytes=50KB
same 3 "1024-host permutation, 3 ranks" --set topology.k=16 --set workload.message_bytes=50KB
# the default's time series: every part reads its own, rank 0 adds them up
same2() {
    local name=$1
    shift
    local a=(--partitions 2 --reproducible --quiet)
    "$BNET" run "$@" "${a[@]}" --json "$T/one.json" || { ok "$name: one process" 1; return; }
    timeout 120 mpirun --oversubscribe -np 2 "$BNET" run "$@" "${a[@]}" --json "$T/mpi.json" \
        >"$T/out" 2>"$T/err" || { ok "$name: mpirun -np 2" 1; cat "$T/err"; return; }
    cmp -s "$T/one.json" "$T/mpi.json"
    ok "$name: 2 ranks byte-identical to one process" $?
}
same2 "time series (the default's, with link rows)" --set observe.max_samples=8 \
    --set observe.link_rows=16 --set workload.message_bytes=300KB
check "the series was sampled and halved" "$T/mpi.json" \
    '(.series.t_us | length) > 2 and .series.decimations > 0 and
     (.series.links[0].utilization | max) > 0 and (.series.queues | length) > 0'
# its tail is sparse: windows jump past the next sample unless it counts
same2 "PFC + DCQCN incast, with its time series" scenarios/incast_pfc_dcqcn.yaml \
    --set observe.link_rows=8
# each rank's peak memory, in the JSON that is not reproducible
timeout 120 mpirun --oversubscribe -np 2 "$BNET" run --set topology.k=8 --set observe.sample_us=0 \
    --set workload.message_bytes=50KB --quiet --json "$T/rss.json" 2>"$T/err"
rc=$?
[[ $rc -eq 0 ]] && jq -e '.sim.ranks_rss.ranks == 2 and (.sim.ranks_rss.peak_rss_bytes | length) == 2
    and all(.sim.ranks_rss.peak_rss_bytes[]; . > 1000000) and
    .sim.ranks_rss.peak_rss_max >= .sim.ranks_rss.peak_rss_min' "$T/rss.json" >/dev/null
ok "each rank's peak memory in the JSON (exit $rc)" $?
check "no ranks' memory in reproducible JSON" "$T/mpi.json" '.sim.ranks_rss == null'
same 2 "stopped by sim.max_time_us" --set sim.max_time_us=7 --set switch.load_balancing=spray_rr
check "stopped early, frames left in flight" "$T/mpi.json" \
    '.sim.stopped_early == true and .summary.packets.in_flight > 0'

# same_coll NAME ARGS...: bnet coll, each row's fabric in 2 parts, one
# process against 2 ranks (the rows' JSON, wall times aside)
same_coll() {
    local name=$1
    shift
    "$BNET" coll -n 1 -w 0 "$@" --partitions 2 --json "$T/c1.json" >/dev/null ||
        { ok "$name: one process" 1; return; }
    timeout 120 mpirun --oversubscribe -np 2 "$BNET" coll -n 1 -w 0 "$@" --partitions 2 \
        --json "$T/c2.json" \
        >"$T/c2.txt" 2>"$T/err" || { ok "$name: mpirun -np 2" 1; cat "$T/err"; return; }
    local strip='del(.wall_s, .peak_rss_bytes, .rows[].wall_s)'
    cmp -s <(jq -S "$strip" "$T/c1.json") <(jq -S "$strip" "$T/c2.json")
    ok "$name: 2 ranks byte-identical to one process" $?
    check "$name: frames crossed, every element right" "$T/c2.json" \
        'all(.rows[]; .partition.cut_frames > 0 and .wrong == 0)'
}

same_coll "ring AllReduce" -b 64K -e 1M -f 4
[[ $(grep -cE '^ +[0-9]+ +[0-9]+ +float' "$T/c2.txt") -eq 3 ]]
ok "ring AllReduce: one table, from rank 0" $?
same_coll "SHARP CollNet AllReduce" -b 1M -e 1M --algo collnet --set sharp.enabled=true
same_coll "hierarchical AllReduce over NVLink domains" -b 4M -e 4M --algo hier
same_coll "tree AllReduce, warm-up and 2 iterations" -b 1M -e 1M --algo tree -n 2 -w 1
# a 16-host fat-tree: an iteration's last delivery lands in one part while
# the other's delivery that completes it comes in later, at the exchange
same_coll "ring AllReduce on a 16-host fat-tree" -b 128K -e 256K --algo ring \
    --set topology.kind=fat_tree --set topology.k=4

# refused once, exit 2, no hang: NAME PATTERN ARGS...
refused() {
    local name=$1 pat=$2
    shift 2
    timeout 60 mpirun --oversubscribe -np 2 "$BNET" run "$@" --quiet 2>"$T/e"
    local st=$?
    [[ $st -eq 2 && $(grep -c "$pat" "$T/e") -eq 1 ]]
    ok "$name: exit 2, one message, no hang (exit $st)" $?
}
refused "3 parts on 2 ranks" "key 'sim.partitions': 3 parts, but mpirun started 2" \
    --set observe.sample_us=0 --partitions 3
refused "a time series sampled within the lookahead" "key 'observe.sample_us'" \
    --set observe.sample_us=0.01
# the memory estimate per rank: each holds the model (but for bn_run's
# switch ports of other parts) and MPI's own, against its share of the
# machine (sim.memory_limit_bytes: the machine's)
refused "over a rank's share of the machine" "at most 1 rank fits per machine: spread the 2" \
    --set observe.sample_us=0 --set sim.memory_limit_bytes=15000000
refused "no rank count fits" "key 'sim.partitions'.*no rank count fits" \
    --set observe.sample_us=0 --set sim.memory_limit_bytes=8000000
# 8192 hosts: 2 ranks need 55 MB each, 4 ranks on 4 machines hold fewer ports
refused "more ranks, one a machine, would fit" "key 'sim.partitions'.*4 ranks, one a machine, would fit" \
    --set topology.k=32 --set observe.sample_us=0 --set sim.memory_limit_bytes=53000000
refused "faults" "faults and link impairments are not run across" \
    scenarios/fault_link_local.yaml --set observe.sample_us=0

# a cut the fabric cannot make: 3 ranks, 2 leaves (units no cut splits)
timeout 60 mpirun --oversubscribe -np 3 "$BNET" run --set topology.kind=leaf_spine \
    --set topology.k=2 --set observe.sample_us=0 --quiet 2>"$T/e"
st=$?
[[ $st -eq 2 && $(grep -c "key 'sim.partitions': 3 parts, but the fabric holds 2 units" "$T/e") -eq 1 ]]
ok "a bad partition on 3 ranks: exit 2, one message, no hang (exit $st)" $?

timeout 60 mpirun --oversubscribe -np 2 "$BNET" coll -b 1M -e 1M --partitions 2 --proto simple \
    2>"$T/e" >/dev/null
st=$?
[[ $st -eq 2 && $(grep -c "key 'coll.proto'" "$T/e") -eq 1 ]]
ok "coll with a protocol's slots: exit 2, one message, no hang (exit $st)" $?

# a rank that stops (SIGSTOP: alive, silent) mid-run: the other's wait at
# the window's exchange times out (sim.window_timeout_s), saying so, and
# mpirun ends the job
mpirun --oversubscribe -np 2 "$BNET" run --set topology.k=16 --set observe.sample_us=0 \
    --set workload.message_bytes=50MB --set sim.window_timeout_s=2 --quiet >/dev/null \
    2>"$T/stop.err" &
job=$!
pid=
for _ in $(seq 100); do
    pid=$(pgrep -P "$job" -f "bnet run" | tail -1)
    [[ -n $pid ]] && break
    sleep 0.1
done
sleep 1.5
[[ -n $pid ]] && kill -STOP "$pid"
st=0
timeout 60 tail --pid="$job" -f /dev/null || st=1
[[ -n $pid ]] && kill -CONT "$pid" 2>/dev/null
kill -9 "$job" 2>/dev/null
wait "$job"
rc=$?
[[ -n $pid && $st -eq 0 && $rc -ne 0 ]] &&
    grep -q "no word from the other ranks for 2 s at an exchange (sim.window_timeout_s)" "$T/stop.err"
ok "a rank stopped mid-run: the window's wait times out, saying so (exit $rc)" $?

# a rank that dies mid-run ends the job
mpirun --oversubscribe -np 2 "$BNET" run --set topology.k=16 --set observe.sample_us=0 \
    --set workload.message_bytes=50MB --quiet >/dev/null 2>"$T/kill.err" &
job=$!
pid=
for _ in $(seq 100); do # mpirun's own children: never another run's
    pid=$(pgrep -P "$job" -f "bnet run" | tail -1)
    [[ -n $pid ]] && break
    sleep 0.1
done
sleep 1
[[ -n $pid ]] && kill -9 "$pid"
st=0
timeout 60 tail --pid="$job" -f /dev/null || st=1
kill -9 "$job" 2>/dev/null
wait "$job"
rc=$?
[[ -n $pid && $st -eq 0 && $rc -ne 0 ]] && grep -q "exited on signal 9" "$T/kill.err"
ok "a rank killed mid-run: the job ends, failing, naming the rank's signal (no hang)" $?
finish
