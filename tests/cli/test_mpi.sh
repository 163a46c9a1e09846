#!/usr/bin/env bash
# bnet sweep, coll and compare under mpirun (docs/sweep.md): the points
# (rows, fabrics) spread over 2 ranks, gathered on rank 0, give the same JSON and CSV,
# byte for byte, as one process; bad input is one message and exit 2 (no
# hang); a command that does not spread is refused (bnet run's parts:
# test_mpi_partition.sh); a bnet built without MPI refuses an mpirun
# launch rather than run the study twice.
# Usage: tests/cli/test_mpi.sh BNET
set -uo pipefail
source tests/cli/lib.sh
# CI runs as root in a container: OpenMPI asks for consent
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi=(mpirun --oversubscribe -np 2)
args=(--set topology.k=4 --set observe.sample_us=0 --vary workload.message_bytes=100KB,400KB
      --seeds 1-3)

# (not `ldd | grep -q`: under pipefail, grep leaving early fails the pipe)
if [[ $(ldd "$BNET") != *libmpi* ]]; then # the sanitized build, the Debian package: no MPI
  if command -v mpirun >/dev/null; then
    "${mpi[@]}" "$BNET" sweep "${args[@]}" --quiet 2>"$T/e0"
    [[ $? -ne 0 ]] && grep -q "built without MPI" "$T/e0"
    ok "built without MPI: an mpirun launch is refused" $?
  else
    echo "ok    built without MPI, and no mpirun here: nothing to launch"
  fi
  finish
  exit
fi
if ! command -v mpirun >/dev/null; then
  echo "FAIL  built with MPI but no mpirun: scripts/need-packages.sh openmpi-bin"
  exit 1
fi

$BNET sweep "${args[@]}" -j 1 --json "$T/one.json" --csv "$T/one" --quiet
ok "one process" $?
"${mpi[@]}" "$BNET" sweep "${args[@]}" -j 1 --json "$T/two.json" --csv "$T/two" >"$T/two.txt" 2>"$T/two.err"
ok "mpirun -np 2 exits 0" $?
cmp -s "$T/one.json" "$T/two.json"
ok "JSON byte-identical to one process" $?
cmp -s "$T/one-sweep.csv" "$T/two-sweep.csv"
ok "CSV byte-identical to one process" $?
[[ $(grep -cE '^ +[0-5] ' "$T/two.txt") -eq 6 ]] && grep -q "on each of 2 MPI ranks" "$T/two.txt"
ok "one table, from rank 0, a row per point" $?
"${mpi[@]}" "$BNET" sweep "${args[@]}" -j 2 --json "$T/four.json" --quiet 2>/dev/null &&
  cmp -s "$T/one.json" "$T/four.json"
ok "2 ranks x 2 workers: the same bytes" $?

timeout 60 "${mpi[@]}" "$BNET" sweep "${args[@]}" --vary topology.k=4,5 --quiet 2>"$T/e1"
st=$?
[[ $st -eq 2 && $(grep -c "sweep point" "$T/e1") -eq 1 ]]
ok "a bad grid: exit 2, one message, no hang (exit $st)" $?
# bnet coll: rows i on rank i % 2
cargs=(-g 8 -b 1K -e 4M -f 4 --set coll.in_place=false)
$BNET coll "${cargs[@]}" -j 1 --json "$T/c1.json" -F "$T/c1.csv" >/dev/null
ok "coll: one process" $?
"${mpi[@]}" "$BNET" coll "${cargs[@]}" -j 1 --json "$T/c2.json" -F "$T/c2.csv" >"$T/c2.txt" \
  2>"$T/c2.err"
ok "coll: mpirun -np 2 exits 0" $?
cmp -s "$T/c1.json" "$T/c2.json" && cmp -s "$T/c1.csv" "$T/c2.csv"
ok "coll: JSON and CSV byte-identical to one process" $?
[[ $(grep -cE '^ +[0-9]+ +[0-9]+ +float' "$T/c2.txt") -eq 7 &&
   $(grep -c "^# nThread" "$T/c2.txt") -eq 1 ]]
ok "coll: one table, from rank 0, every row once" $?
timeout 60 "${mpi[@]}" "$BNET" coll -g 8 -b 1K -e 1K --algo nvls 2>"$T/e3"
st=$?
[[ $st -eq 2 && $(grep -c "without scale_up.nvls" "$T/e3") -eq 1 ]]
ok "coll: bad input under mpirun: exit 2, one message, no hang (exit $st)" $?

# bnet compare: column c on rank c % 2
pargs=(--set topology.kind=leaf_spine --set topology.k=4 --fabrics ib-ndr,roce-400g,uec-800g -j 1)
$BNET compare "${pargs[@]}" --json "$T/p1.json" >/dev/null
ok "compare: one process" $?
"${mpi[@]}" "$BNET" compare "${pargs[@]}" --json "$T/p2.json" >"$T/p2.txt" 2>"$T/p2.err" &&
  cmp -s "$T/p1.json" "$T/p2.json"
ok "compare: mpirun -np 2, JSON byte-identical to one process" $?

timeout 60 "${mpi[@]}" "$BNET" p2p --quiet 2>"$T/e2"
st=$?
[[ $st -eq 2 && $(grep -c "only bnet run and job (their parts), sweep, coll and compare spread" \
    "$T/e2") -eq 1 ]]
ok "bnet p2p under mpirun -np 2: refused once (exit $st)" $?
finish
