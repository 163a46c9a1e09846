#!/usr/bin/env bash
# The Slurm batch examples (examples/slurm/partitioned-run.sbatch and
# partitioned-job.sbatch, docs/parallel.md) as sbatch would read them and
# as plain scripts: their #SBATCH lines come before any command (sbatch
# stops reading them at the first), they parse, name an output path and
# load no modules; run outside Slurm on 2 ranks on a small fabric each
# writes rank 0's JSON (the run's with every rank's peak memory; the jobs'
# byte-identical to one process in 2 parts), and the jobs example's own
# command line is valid at its full size.
# Usage: tests/cli/test_slurm_example.sh BNET
set -uo pipefail
source tests/cli/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
job=examples/slurm/partitioned-run.sbatch

# header FILE: the first line that is neither blank nor a comment comes
# after the last #SBATCH, the script parses, its output has a path, and
# it loads no modules (a fresh node's login shell may have none)
header() {
    local f=$1
    local last first
    last=$(grep -n '^#SBATCH' "$f" | tail -1 | cut -d: -f1)
    first=$(grep -nvE '^(#|$)' "$f" | head -1 | cut -d: -f1)
    [[ -n $last && -n $first && $last -lt $first ]]
    ok "$f: every #SBATCH line before the first command ($last < $first)" $?
    bash -n "$f"
    ok "$f: the batch script parses" $?
    grep -q '^#SBATCH --output=' "$f" && ! grep -qE '^[^#]*\bmodule (load|add)' "$f"
    ok "$f: an output path, no module loads" $?
}
header "$job"
header examples/slurm/partitioned-job.sbatch

if [[ $(ldd "$BNET") != *libmpi* ]] || ! command -v mpirun >/dev/null; then
  echo "ok    built without MPI (or no mpirun): the run itself is not tried"
  finish
  exit
fi
NP=2 MPIRUN_FLAGS=--oversubscribe BNET="$BNET" BNET_K=8 BNET_BYTES=50KB BNET_OUT="$T/run.json" \
    timeout 120 bash "$job" >"$T/out" 2>"$T/err"
rc=$?
ok "run outside Slurm on 2 ranks (exit $rc)" $rc
check "rank 0's JSON: 2 parts, both ranks' peak memory" "$T/run.json" \
    '.partition.parts == 2 and .sim.ranks_rss.ranks == 2 and .summary.flows_completed == .summary.flows'
grep -q "^2 parts on 2 ranks: " "$T/out"
ok "its one line of summary" $?

# the jobs example: its own command line (scenario, keys) is valid at its
# full size, stopped at its first simulated microsecond in one process
# (set-up, placement and the refusals of what ranks cannot run all pass
# before it), then run as a script on 2 ranks on a smaller fabric, rank
# 0's JSON cmp-identical to one process in 2 parts
jobs=examples/slurm/partitioned-job.sbatch
timeout 120 mpirun --oversubscribe -np 4 "$BNET" job examples/slurm/two-jobs.yaml \
    --set sim.partitions=4 --set sim.window_timeout_s=600 --set sim.max_time_us=1 --quiet \
    2>"$T/dry.err"
st=$?
[[ $st -eq 2 && $(grep -c "key 'sim.max_time_us': the jobs did not finish within 1 us" \
    "$T/dry.err") -eq 1 ]]
ok "$jobs: its bnet job line is valid at full size on 4 ranks (stopped at 1 us, exit $st)" $?
small="--set topology.k=4 --set jobs.0.tp=2 --set jobs.0.dp=4 --set jobs.1.pp=2
    --set jobs.1.dp=4 --set jobs.1.iterations=1"
for j in 0 1; do
    small+=" --set jobs.$j.layers=$((j + 1)) --set jobs.$j.seq_len=128 --set jobs.$j.hidden=512
        --set jobs.$j.ffn_hidden=1024 --set jobs.$j.heads=8 --set jobs.$j.vocab=4096"
done
NP=2 MPIRUN_FLAGS=--oversubscribe BNET="$BNET" BNET_SETS="$small" BNET_OUT="$T/jobs.json" \
    timeout 300 bash "$jobs" >"$T/jout" 2>"$T/jerr"
rc=$?
ok "$jobs: run outside Slurm on 2 ranks (exit $rc)" $rc
# shellcheck disable=SC2086 # $small: --set words
"$BNET" job examples/slurm/two-jobs.yaml --set sim.partitions=2 --set sim.window_timeout_s=600 \
    $small --json "$T/jobs1.json" >/dev/null && cmp -s "$T/jobs.json" "$T/jobs1.json"
ok "$jobs: rank 0's JSON is one process's in 2 parts, byte for byte" $?
[[ $(grep -c " us an iteration, " "$T/jout") -eq 2 ]]
ok "$jobs: a line per job" $?
finish
