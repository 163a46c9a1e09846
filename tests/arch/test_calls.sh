#!/usr/bin/env bash
# The layers hold at link time too: no object file of a layer calls (or
# reads) a symbol another layer defines unless that layer lies below it
# (docs/architecture.md). test_layers.sh reads #include lines; this reads
# the built objects with nm, so a call through a public header (a model
# layer asking the scenario layer for a key's file and line, say) shows.
# Usage: tests/arch/test_calls.sh BNET   (the objects are beside it, in
# CMakeFiles/bnet_objects.dir/src/LAYER/)
set -uo pipefail
source tests/cli/lib.sh
objs=$(dirname "$BNET")/CMakeFiles/bnet_objects.dir/src

# the layers each may call, lowest first
declare -A below=(
  [core]=""
  [link]="core"
  [topo]="core"
  [coll]="core"
  [workload]="core"
  [calib]="core"
  [nic]="core link"
  [switch]="core link topo"
  [job]="core coll"
  [fault]="core link topo nic switch"
  [flow]="core link topo nic switch"
  [scenario]="core link topo nic switch coll workload fault"
  [sim]="core link topo nic switch fault flow scenario"
  [driver]="core link topo nic switch coll workload calib job fault flow scenario sim"
  [study]="core link topo nic switch coll workload calib job fault flow scenario sim driver"
  [report]="core scenario driver study"
)

test -d "$objs"
ok "the library's objects are built ($objs)" $?
# symbol -> the layer defining it
for dir in "$objs"/*/; do
  layer=$(basename "$dir")
  find "$dir" -name '*.o' -exec nm --defined-only {} + 2>/dev/null | awk -v l="$layer" 'NF == 3 && $2 ~ /^[TDBRC]$/ {print $3, l}'
done | sort -u >"$T/defs"
test -s "$T/defs"
ok "symbols defined: $(wc -l <"$T/defs")" $?

bad=0 calls=0
for dir in "$objs"/*/; do
  layer=$(basename "$dir")
  if [[ -z ${below[$layer]+set} ]]; then
    echo "FAIL  src/$layer: a folder this test does not place"
    bad=1
    continue
  fi
  for o in $(find "$dir" -name '*.o' | sort); do
    while read -r sym def; do
      calls=$((calls + 1))
      [[ $def == "$layer" || " ${below[$layer]} " == *" $def "* ]] && continue
      echo "FAIL  src/${o#"$objs"/} calls $sym of $def/ (src/$layer may call: ${below[$layer]})"
      bad=1
    done < <(nm -u "$o" | awk '{print $2}' | sort -u | join - "$T/defs")
  done
done
ok "no call from a lower layer into a higher one ($calls calls between objects)" $bad
finish
