#!/usr/bin/env bash
#
# bnet compare: a column per fabric, each figure the one bnet's own tools
# give on that fabric's scenario (the AllReduce busbw is bnet coll's row,
# the latency bnet p2p's), the same JSON and CSV whether the fabrics ran
# one at a time or in parallel (-j), and its errors.
#
#   bash tests/cli/test_compare.sh PATH_TO_BNET
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# 4 GPUs on a k=4 leaf-spine, no NVLink: small enough for CI
SMALL=(--set topology.kind=leaf_spine --set topology.k=4 --set scale_up.domain_gpus=0)
"$BNET" compare "${SMALL[@]}" --fabrics ib-ndr,roce-400g -j 1 --json "$T/a.json" \
    --csv "$T/a" >"$T/a.txt" || { echo "FAIL  bnet compare"; exit 1; }
"$BNET" compare "${SMALL[@]}" --fabrics ib-ndr,roce-400g -j 2 --json "$T/b.json" \
    --csv "$T/b" >/dev/null
cmp -s "$T/a.json" "$T/b.json"
ok "-j 1 and -j 2 give byte-identical JSON" $?
cmp -s "$T/a-compare.csv" "$T/b-compare.csv"
ok "... and CSV" $?
[ "$(head -n 1 "$T/a-compare.csv")" = "figure,ib-ndr,roce-400g" ] &&
    [ "$(wc -l <"$T/a-compare.csv")" -eq 25 ]
ok "CSV: a column per fabric, a row per figure" $?
grep -q '^port rate (Gb/s) *400 *400$' "$T/a.txt"
ok "the table's rows" $?

"$BNET" coll "${SMALL[@]}" --set fabric=roce-400g -b 64M -e 64M --json "$T/c.json" >/dev/null
want=$(jq '.rows[0].busbw_gbs' "$T/c.json")
got=$(jq '.fabrics[1].allreduce[1].busbw_gbs' "$T/a.json")
[ -n "$want" ] && [ "$want" = "$got" ]
ok "AllReduce 64 MiB busbw is bnet coll's on that fabric ($got = $want)" $?

"$BNET" p2p scenarios/cluster128.yaml "${SMALL[@]}" --set fabric=ib-ndr --hosts 0,1 -n 100 \
    --json "$T/p.json" >/dev/null
want=$(jq '.pairs[0].rows[0].t_typical_us' "$T/p.json")
got=$(jq '.fabrics[0].latency.p50_us' "$T/a.json")
[ -n "$want" ] && [ "$want" = "$got" ]
ok "the latency is bnet p2p's write_lat ($got = $want)" $?

"$BNET" compare "${SMALL[@]}" --fabrics ib-ndr,fddi -j 1 >/dev/null 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "key 'compare.fabrics': 'fddi' is not a preset" "$T/err"
ok "an unknown fabric: exit 2, naming the key" $?
"$BNET" compare -j 0 >/dev/null 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "'-j'" "$T/err"
ok "-j 0: exit 2" $?

finish
