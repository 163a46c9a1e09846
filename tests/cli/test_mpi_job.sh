#!/usr/bin/env bash
# bnet job's parts on MPI ranks (docs/parallel.md, "Jobs on ranks"): two
# jobs at once (tensor and data parallel; pipeline and data parallel, two
# iterations) on a fat-tree cut into a part per rank, byte-identical to
# one process in as many parts (the keyed order) at 2 and 3 ranks; what
# cannot run apart is refused, exit 2, naming its key; a rank killed
# mid-run ends the others within seconds, saying so.
# Usage: tests/cli/test_mpi_job.sh BNET
set -uo pipefail
source tests/cli/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

if [[ $(ldd "$BNET") != *libmpi* ]] || ! command -v mpirun >/dev/null; then
  echo "ok    built without MPI (or no mpirun): test_mpi.sh checks the refusal"
  finish
  exit
fi

cat >"$T/jobs.yaml" <<'YAML'
topology:
  kind: fat_tree
  k: 4
jobs:
  - name: tpdp
    tp: 2
    dp: 4
    layers: 1
    seq_len: 128
    hidden: 512
    ffn_hidden: 1024
    heads: 8
    vocab: 4096
  - name: ppdp
    tp: 1
    pp: 2
    dp: 4
    layers: 2
    seq_len: 128
    hidden: 512
    ffn_hidden: 1024
    heads: 8
    vocab: 4096
    iterations: 2
YAML

# same NP NAME ARGS...: one process in NP parts against mpirun -np NP
same() {
    local np=$1 name=$2
    shift 2
    local a=("$T/jobs.yaml" --set sim.partitions="$np" --quiet "$@")
    "$BNET" job "${a[@]}" --json "$T/one.json" || { ok "$name: one process" 1; return; }
    timeout 120 mpirun --oversubscribe -np "$np" "$BNET" job "${a[@]}" --json "$T/mpi.json" \
        >"$T/out" 2>"$T/err" || { ok "$name: mpirun -np $np" 1; cat "$T/err"; return; }
    cmp -s "$T/one.json" "$T/mpi.json"
    ok "$name: $np ranks byte-identical to one process" $?
    check "$name: both jobs ran their iterations on the fabric" "$T/mpi.json" \
        '(.jobs | length) == 2 and .jobs[1].iterations == 2 and .sim.backend_tx_bytes > 0 and
         all(.jobs[]; .iteration_us > 0 and (.failed | not))'
}

same 2 "two jobs, lossy go-back-N"
check "frames were lost and sent again" "$T/mpi.json" '.sim.retransmits > 0'
same 3 "two jobs, 3 ranks"
same 2 "two jobs, PFC" --set link.flow_control=pfc
check "PFC: nothing dropped" "$T/mpi.json" '.sim.pkts_dropped == 0'

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
refused "a send right after a collective (tp with pp)" \
    "key 'jobs\[1\]': job 'ppdp' posts a send (task [0-9]*) the instant a transfer lands" \
    --set jobs.1.tp=2 --set jobs.1.dp=2
refused "background flows" "key 'jobs\[2\].kind': background flows are posted again" \
    --set jobs.2.kind=background --set jobs.2.gpus=4 --set topology.k=6
refused "a step latency under the lookahead" "key 'coll.step_latency_us': 0.01 us is under" \
    --set coll.step_latency_us=0.01

# a rank killed mid-run: the others end, failing, within seconds, and
# mpirun names the rank's signal
mpirun --oversubscribe -np 2 "$BNET" job "$T/jobs.yaml" --set jobs.1.iterations=400 --quiet \
    >/dev/null 2>"$T/kill.err" &
job=$!
pid=
for _ in $(seq 100); do # mpirun's own children: never another run's
    pid=$(pgrep -P "$job" -f "bnet job" | tail -1)
    [[ -n $pid ]] && break
    sleep 0.1
done
sleep 1
[[ -n $pid ]] && kill -9 "$pid"
t0=$SECONDS
st=0
timeout 30 tail --pid="$job" -f /dev/null || st=1
kill -9 "$job" 2>/dev/null
wait "$job"
rc=$?
[[ -n $pid && $st -eq 0 && $rc -ne 0 ]] && grep -q "exited on signal 9" "$T/kill.err"
ok "a rank killed mid-job: the job ends within $((SECONDS - t0)) s, failing (exit $rc)" $?
finish
