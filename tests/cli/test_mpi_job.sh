#!/usr/bin/env bash
# bnet job's parts on MPI ranks (docs/parallel.md, "Jobs on ranks"): two
# jobs at once (tensor and data parallel; pipeline and data parallel, two
# iterations) on a fat-tree cut into a part per rank, byte-identical to
# one process in as many parts and to the one loop (the keyed order) at 2,
# 3 and 4 ranks, with a send the instant a collective lands and with
# background flows too; a step latency under the lookahead is refused,
# exit 2, naming its key, and so is a bad partition; a rank killed or
# stopped mid-run ends the job within seconds, failing, saying so, with no
# rank left behind.
# Usage: tests/cli/test_mpi_job.sh BNET
set -uo pipefail
source tests/cli/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

if [[ $(ldd "$BNET") != *libmpi* ]] || ! command -v mpirun >/dev/null; then
  echo "ok    built without MPI (or no mpirun): test_mpi.sh checks the refusal"
  finish
  exit
fi

cp tests/data/jobs/two_jobs.yaml "$T/jobs.yaml"

# same NP NAME ARGS...: one process in NP parts, and the one loop in the
# keyed order (but for the command and the echoed keys), against mpirun -np NP
same() {
    local np=$1 name=$2
    shift 2
    local a=("$T/jobs.yaml" --set sim.partitions="$np" --quiet "$@")
    "$BNET" job "${a[@]}" --json "$T/one.json" || { ok "$name: one process" 1; return; }
    "$BNET" job "$T/jobs.yaml" --set sim.event_order=keyed --quiet "$@" --json "$T/loop.json" ||
        { ok "$name: one loop" 1; return; }
    timeout 120 mpirun --oversubscribe -np "$np" "$BNET" job "${a[@]}" --json "$T/mpi.json" \
        >"$T/out" 2>"$T/err" || { ok "$name: mpirun -np $np" 1; cat "$T/err"; return; }
    cmp -s "$T/one.json" "$T/mpi.json"
    ok "$name: $np ranks byte-identical to one process" $?
    cmp -s <(jq -S 'del(.command, .config)' "$T/loop.json") \
        <(jq -S 'del(.command, .config)' "$T/mpi.json")
    ok "$name: $np ranks byte-identical to the one loop" $?
    check "$name: the jobs ran on the fabric" "$T/mpi.json" \
        '(.jobs | length) >= 2 and .sim.backend_tx_bytes > 0 and
         all(.jobs[]; .iteration_us > 0 or .kind == "background") and all(.jobs[]; .failed | not)'
}

same 2 "two jobs, lossy go-back-N"
check "frames were lost and sent again" "$T/mpi.json" '.sim.retransmits > 0'
check "both jobs ran their iterations" "$T/mpi.json" '.jobs[1].iterations == 2'
same 3 "two jobs, 3 ranks"
same 4 "two jobs, 4 ranks"
same 2 "two jobs, PFC" --set link.flow_control=pfc
check "PFC: nothing dropped" "$T/mpi.json" '.sim.pkts_dropped == 0'
same 2 "a send the instant a collective lands (tp with pp)" --set jobs.1.tp=2 --set jobs.1.dp=2
same 2 "background flows beside two jobs" --set jobs.2.kind=background --set jobs.2.gpus=4 \
    --set topology.k=6
# a job run again alone for its slowdown, the other starting later, and
# the trace's timeline: rank 0's, the same bytes
"$BNET" job "$T/jobs.yaml" --set sim.partitions=2 --set jobs.0.alone=true \
    --set jobs.1.start_us=300 --quiet --json "$T/a1.json" --trace "$T/t1.json" &&
    timeout 120 mpirun --oversubscribe -np 2 "$BNET" job "$T/jobs.yaml" --set sim.partitions=2 \
        --set jobs.0.alone=true --set jobs.1.start_us=300 --quiet --json "$T/a2.json" \
        --trace "$T/t2.json" 2>"$T/err" && cmp -s "$T/a1.json" "$T/a2.json" &&
    cmp -s "$T/t1.json" "$T/t2.json"
ok "run alone, a later start, the trace: 2 ranks byte-identical to one process" $?
check "the slowdown was measured" "$T/a2.json" '.jobs[0].alone_us > 0 and .jobs[1].start_us == 300'
# an inference job beside the training one
"$BNET" job "$T/jobs.yaml" --set sim.partitions=2 --set jobs.1.kind=inference \
    --set jobs.1.pp=1 --set jobs.1.tp=2 --quiet --json "$T/i1.json" &&
    timeout 120 mpirun --oversubscribe -np 2 "$BNET" job "$T/jobs.yaml" --set sim.partitions=2 \
        --set jobs.1.kind=inference --set jobs.1.pp=1 --set jobs.1.tp=2 --quiet \
        --json "$T/i2.json" 2>"$T/err" && cmp -s "$T/i1.json" "$T/i2.json"
ok "training beside inference: 2 ranks byte-identical to one process" $?

# refused once, exit 2, no hang: NAME PATTERN ARGS...
refused() {
    local name=$1 pat=$2
    shift 2
    timeout 60 mpirun --oversubscribe -np 2 "$BNET" job "$T/jobs.yaml" "$@" --quiet 2>"$T/e"
    local st=$?
    [[ $st -eq 2 && $(grep -c "$pat" "$T/e") -eq 1 ]]
    ok "$name: exit 2, one message, no hang (exit $st)" $?
}
refused "3 parts on 2 ranks" "key 'sim.partitions': 3 parts, but mpirun started 2" \
    --set sim.partitions=3
refused "a step latency under the lookahead" "key 'coll.step_latency_us': 0.01 us is under" \
    --set coll.step_latency_us=0.01

# a cut the fabric cannot make: 5 ranks, 4 pods
timeout 60 mpirun --oversubscribe -np 5 "$BNET" job "$T/jobs.yaml" --set sim.partition=pods \
    --quiet 2>"$T/e"
st=$?
[[ $st -eq 2 && $(grep -c "key 'sim.partitions': 5 parts, but the fabric holds 4 pods" "$T/e") -eq 1 ]]
ok "a bad partition on 5 ranks: exit 2, one message, no hang (exit $st)" $?

# hurt SIGNAL PATTERN WITHIN ARGS...: a long job on 2 ranks, one of them
# sent SIGNAL a second in; mpirun must end, failing, within WITHIN seconds
# of it, its stderr matching PATTERN, and leave no rank behind
hurt() {
    local sig=$1 pat=$2 within=$3
    shift 3
    mpirun --oversubscribe -np 2 "$BNET" job "$T/jobs.yaml" --set jobs.1.iterations=400 \
        "$@" --quiet >/dev/null 2>"$T/hurt.err" &
    local job=$! pid= ranks=
    for _ in $(seq 100); do # mpirun's own children: never another run's
        ranks=$(pgrep -P "$job" -f "bnet job")
        pid=$(tail -1 <<<"$ranks")
        [[ $(wc -w <<<"$ranks") -eq 2 ]] && break
        sleep 0.1
    done
    sleep 1
    [[ -n $pid ]] && kill "-$sig" "$pid"
    local t0=$SECONDS st=0
    timeout $((within + 30)) tail --pid="$job" -f /dev/null || st=1
    local took=$((SECONDS - t0))
    [[ -n $pid ]] && kill -CONT "$pid" 2>/dev/null
    kill -9 "$job" 2>/dev/null
    wait "$job"
    local rc=$? left=0
    for _ in $(seq 50); do # mpirun's last signals to its ranks take a moment
        left=0
        for r in $ranks; do kill -0 "$r" 2>/dev/null && left=$((left + 1)); done
        [[ $left -eq 0 ]] && break
        sleep 0.1
    done
    [[ -n $pid && $st -eq 0 && $rc -ne 0 && $took -le $within && $left -eq 0 ]] &&
        grep -q "$pat" "$T/hurt.err"
    ok "a rank sent SIG$sig mid-job: the job ends in $took s (at most $within), failing (exit $rc), no rank left ($left)" $?
}
# killed: mpirun notices and ends the other rank, naming the signal
hurt KILL "exited on signal 9" 15
# stopped (alive, silent): the other's wait at the window's exchange
# times out (sim.window_timeout_s), saying so
hurt STOP "no word from the other ranks for 2 s at an exchange (sim.window_timeout_s)" 20 \
    --set sim.window_timeout_s=2
finish
