#!/usr/bin/env bash
# Write the man page bnet.1 from the command's own help texts: help2man reads
# `bnet --help`; each command's `bnet help CMD` becomes a subsection of
# COMMANDS. Usage: packaging/gen-man.sh BNET VERSION DATADIR OUT
set -euo pipefail
bnet=$1 version=$2 datadir=$3 out=$4
inc=$(mktemp)
trap 'rm -f "$inc"' EXIT

roff() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }   # text as roff literals
{
  printf '[SYNOPSIS]\n.B bnet\n[\\fICOMMAND\\fR] [\\fIFILE.yaml\\fR] [\\fIOPTIONS\\fR]\n\n'
  printf '[COMMANDS]\n'
  for cmd in run coll job compare sweep p2p topo calibrate plot keys presets; do
    printf '.SS "bnet %s"\n.nf\n' "$cmd"
    "$bnet" help "$cmd" | roff
    printf '.fi\n'
  done
  printf '\n[FILES]\n'
  printf '.TP\n.I %s/bnet/scenarios/\nThe shipped scenarios (YAML), e.g. cluster128.yaml, the default of bnet coll.\n' "$datadir"
  printf '.TP\n.I %s/doc/bnet/\nThe manual: scenario keys (scenario.md), results (results.md), models.\n' "$datadir"
  printf '\n[EXIT STATUS]\n0 on success; 2 for bad input (a scenario, flag or file; the message names\n'
  printf 'file, line and key) or output that cannot be written; 1 for a failed run.\n'
  printf '\n[SEE ALSO]\n.BR ib_write_bw (1),\n.BR all_reduce_perf (1)\n'
} > "$inc"
help2man --no-info --no-discard-stderr --version-string="$version" \
  --name="simulate the backend network of AI clusters" --include="$inc" --output="$out" "$bnet"
