#!/usr/bin/env bash
# The include rules of docs/architecture.md: each folder of src/ may include
# only the layers listed for it (and the public include/bnet/ headers), so
# no layer reaches the engine and the CLI sees only the library's API.
# Usage: tests/arch/test_layers.sh [ignored]   (ctest passes the bnet binary)
set -euo pipefail
cd "$(dirname "$0")/../.."

declare -A allowed=(
  [core]="core"
  [link]="core link"
  [topo]="core topo"
  [nic]="core link nic"
  [switch]="core link topo switch"
  [coll]="core coll"
  [fault]="core link topo nic switch fault"
  [workload]="core workload"
  [calib]="core calib"
  [job]="core coll job"
  [report]="report"
  [scenario]="core link topo nic switch coll workload fault scenario"
  [flow]="core link topo nic switch flow"
  [sim]="core link topo nic switch fault flow sim"
  [driver]="core link topo nic switch coll workload fault job calib flow sim driver"
  [study]="core link topo nic switch coll workload fault job calib flow sim driver study"
  [plot]="plot"
  [cli]="cli plot"
)

passed=0 failed=0
for dir in src/*/; do
  layer=$(basename "$dir")
  if [[ -z ${allowed[$layer]+set} ]]; then
    echo "FAIL  src/$layer: a folder docs/architecture.md does not place"
    failed=$((failed + 1))
    continue
  fi
  bad=0
  while IFS=: read -r file line inc; do
    target=${inc#*\"}
    target=${target%%/*}
    [[ $target == bnet ]] && continue
    if [[ " ${allowed[$layer]} " != *" $target "* ]]; then
      echo "FAIL  $file:$line includes $target/ (src/$layer may include: ${allowed[$layer]})"
      bad=1
    fi
  done < <(grep -rnE '^#include "[a-z_]+/' "$dir" | sed -E 's/^([^:]+):([0-9]+):(.*)$/\1:\2:\3/')
  if ((bad)); then failed=$((failed + 1)); else passed=$((passed + 1)); fi
done
# include/bnet/ is the public API: it includes nothing but itself
if grep -nE '^#include "' include/bnet/*.h | grep -v '"bnet/'; then
  echo "FAIL  include/bnet/ includes a private header"
  failed=$((failed + 1))
else
  passed=$((passed + 1))
fi
echo "$passed passed, $failed failed"
((failed == 0))
