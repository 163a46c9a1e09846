#!/usr/bin/env bash
# bnet coll -j (docs/collectives.md): rows measured in worker processes give
# the same JSON, byte for byte, and the same table (but its wall-time line)
# as one after another; a bad count, or rows that would not fit in memory
# together, are refused before any runs.
# Usage: tests/cli/test_coll_jobs.sh BNET
set -uo pipefail
source tests/cli/lib.sh
args=(-b 16K -e 4M -f 4) # 5 rows; the 16 MiB one would double the time

$BNET coll "${args[@]}" -j 1 --json "$T/a.json" >"$T/a.txt"
ok "coll -j 1 exits 0" $?
$BNET coll "${args[@]}" -j 2 --json "$T/b.json" >"$T/b.txt"
ok "coll -j 2 exits 0" $?
cmp -s "$T/a.json" "$T/b.json"
ok "JSON byte-identical for -j 1 and -j 2" $?
diff <(grep -v ' s wall' "$T/a.txt") <(grep -v ' s wall' "$T/b.txt") >/dev/null
ok "table identical but for the wall time" $?
[[ $(jq '.rows|length' "$T/b.json") -eq 5 ]]
ok "every row measured (16K to 4M by 4: 5)" $?
$BNET coll "${args[@]}" --json "$T/c.json" >/dev/null && cmp -s "$T/a.json" "$T/c.json"
ok "the default (as many as fit) gives the same bytes" $?

$BNET coll "${args[@]}" -j 0 >/dev/null 2>"$T/e1"
[[ $? -eq 2 ]] && grep -q "option '-j'" "$T/e1"
ok "-j 0: exit 2" $?
est=$($BNET topo scenarios/cluster128.yaml --set coll.min_bytes=65536 --set coll.max_bytes=16777216 \
  --json - | jq '[..|objects|.coll_bytes?|numbers][0]')
$BNET coll -b 64K -e 16M -f 4 -j 2 --set sim.memory_limit_bytes=$((est * 3 / 2)) \
  >/dev/null 2>"$T/e2"
[[ $? -eq 2 ]] && grep -q "lower -j" "$T/e2"
ok "two rows at once beyond the memory limit: exit 2" $?
finish
