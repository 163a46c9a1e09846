#!/usr/bin/env bash
# The Slurm batch example (examples/slurm/partitioned-run.sbatch,
# docs/parallel.md) as sbatch would read it and as a plain script: its
# #SBATCH lines come before any command (sbatch stops reading them at the
# first), and run outside Slurm on 2 ranks at a small radix it writes rank
# 0's JSON of a 2-part run with every rank's peak memory.
# Usage: tests/cli/test_slurm_example.sh BNET
set -uo pipefail
source tests/cli/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
job=examples/slurm/partitioned-run.sbatch

# the first line that is neither blank nor a comment comes after the last #SBATCH
last=$(grep -n '^#SBATCH' "$job" | tail -1 | cut -d: -f1)
first=$(grep -nvE '^(#|$)' "$job" | head -1 | cut -d: -f1)
[[ -n $last && -n $first && $last -lt $first ]]
ok "every #SBATCH line before the first command ($last < $first)" $?
bash -n "$job"
ok "the batch script parses" $?

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
finish
