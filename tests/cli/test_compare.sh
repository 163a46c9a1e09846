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
    [ "$(wc -l <"$T/a-compare.csv")" -eq 26 ]
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

# the incast's victim: from the last host to the latency row's peer under
# host 0's leaf, a flow of its own at the end of the incast run
check "the victim flow: last host -> host 1, 0 < throughput <= line rate" "$T/a.json" \
    '.fabrics | all(.incast.victim.src == 7 and .incast.victim.dst == 1 and
                    .incast.victim.line_rate_pct > 0 and .incast.victim.line_rate_pct <= 100)'
"$BNET" run "${SMALL[@]}" --set fabric=roce-400g --set workload.kind=incast \
    --set workload.incast_senders=5 --set workload.incast_victim=7,1 \
    --set workload.message_bytes=1000000 --json "$T/v.json" --quiet
check "workload.incast_victim: the last flow of the run is the victim" "$T/v.json" \
    '(.flows | length) == 6 and .flows[5].src == 7 and .flows[5].dst == 1 and
     ([.flows[:5][] | .dst] | unique) == [0] and ([.flows[:5][] | .src] | index(7, 1)) == null'
want=$(jq '.flows[5].throughput_gbps / 4' "$T/v.json")
got=$(jq '.fabrics[1].incast.victim.line_rate_pct' "$T/a.json")
[ -n "$want" ] && jq -en "(($want - $got) | fabs) < 1e-6 * $want" >/dev/null
ok "compare's victim row is that run's victim ($got % of 400 Gb/s)" $?

# a scale-up preset is a column when one domain holds the cluster: auto
# adds nvlink5 for 8 GPUs; its rows run over NVLink at 7200 Gb/s (flow
# level here and below: the columns' choice, in a second, not 15)
"$BNET" compare --set topology.kind=leaf_spine --set topology.k=4 -j 2 --fidelity flow \
    --json "$T/n.json" \
    >"$T/n.txt" 2>&1
check "auto: ib-ndr, roce-400g, uec-800g and nvlink5" "$T/n.json" \
    '[.fabrics[].fabric] == ["ib-ndr", "roce-400g", "uec-800g", "nvlink5"] and
     ([.fabrics[].scale_up] == [false, false, false, true])'
# NVLS (the preset's): busbw at most 2(n-1)/(n+1) x 0.74 of the line rate
check "nvlink5: NVLink's port rate and latency, AllReduce through NVLS within its bound" \
    "$T/n.json" '.fabrics[3] | .link_layer == "nvlink" and .port_gbps == 7200 and
     .latency.p50_us < 1 and .allreduce[-1].algo == "nvls" and
     (.allreduce | all(.line_rate_pct > 0 and .line_rate_pct <= 100 * 14 / 9 * 0.74))'
"$BNET" compare --fabrics ib-ndr,nvlink5 -j 1 >/dev/null 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "key 'compare.fabrics': 'nvlink5' is a scale-up domain" "$T/err"
ok "nvlink5 for 128 GPUs in domains of 72: exit 2, naming the key" $?
"$BNET" compare "${SMALL[@]}" -j 2 --fidelity flow --json "$T/d.json" >/dev/null
check "auto without NVLink domains (scale_up.domain_gpus=0 set): no nvlink5" "$T/d.json" \
    '[.fabrics[].fabric] == ["ib-ndr", "roce-400g", "uec-800g"]'

"$BNET" compare "${SMALL[@]}" --fabrics ib-ndr,fddi -j 1 >/dev/null 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "key 'compare.fabrics': 'fddi' is not a preset" "$T/err"
ok "an unknown fabric: exit 2, naming the key" $?
"$BNET" compare -j 0 >/dev/null 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "'-j'" "$T/err"
ok "-j 0: exit 2" $?

finish
