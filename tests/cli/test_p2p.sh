#!/usr/bin/env bash
#
# bnet p2p as perftest users read it: the table's column titles are
# perftest's, -a gives every power of two from 2 B to 8 MiB, --hosts takes
# indices or names and tests each pair, the JSON has a row per size with
# perftest's figures, and two runs give byte-identical JSON.
#
#   bash tests/cli/test_p2p.sh PATH_TO_BNET
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"$BNET" p2p -n 20 >"$T/lat.txt"
grep -q '^ #bytes #iterations    t_min\[usec\]    t_max\[usec\]  t_typical\[usec\]    t_avg\[usec\]    t_stdev\[usec\]   99% percentile\[usec\]   99.9% percentile\[usec\]$' "$T/lat.txt"
ok "latency columns are perftest's" $?

"$BNET" p2p --test write_bw -s 64K -n 50 --json "$T/bw.json" >"$T/bw.txt"
grep -q '^ #bytes     #iterations    BW peak\[MB/sec\]    BW average\[MB/sec\]   MsgRate\[Mpps\]$' "$T/bw.txt"
ok "bandwidth columns are perftest's, in MB/sec by default" $?
grep -q '^ 65536 ' "$T/bw.txt"
ok "-s takes K" $?
# perftest's MB/sec: bytes / 2^20 per second (its format_factor 0x100000)
mbs=$(awk '$1 == 65536 { print $4 }' "$T/bw.txt")
gbps=$(jq '.pairs[0].rows[0].bw_avg_gbps' "$T/bw.json")
awk -v m="$mbs" -v g="$gbps" 'BEGIN { d = m - g * 125e6 / 1048576; exit !(d < 0.01 && d > -0.01) }'
ok "MB/sec is the JSON's Gb/s x 125e6 / 2^20 ($mbs MB/sec, $gbps Gb/s)" $?
"$BNET" p2p --test write_bw -s 64K -n 50 --report_gbits >"$T/gb.txt"
grep -q '^ #bytes     #iterations    BW peak\[Gb/sec\]    BW average\[Gb/sec\]   MsgRate\[Mpps\]$' "$T/gb.txt"
ok "--report_gbits: Gb/sec, as perftest" $?
[[ $(awk '$1 == 65536 { print $4 }' "$T/gb.txt") == $(printf '%.2f' "$gbps") ]]
ok "... the JSON's figure" $?

# perftest's host-side flags: accepted, no effect on the figures
"$BNET" p2p --test write_bw -s 64K -n 50 -d mlx5_0 -x 3 -p 18515 -F -R --ib-dev=mlx5_1 \
    --gid-index 0 --port=1 --CPU-freq --rdma_cm --json "$T/host.json" >/dev/null
rc=$?
[[ $rc -eq 0 ]] && [[ $(jq -c .pairs "$T/host.json") == "$(jq -c .pairs "$T/bw.json")" ]]
ok "-d, -x, -p, -F, -R (host side): accepted, the same figures" $?
"$BNET" p2p --test write_bw -s 64K -n 50 --mtu 2048 --json "$T/mtu.json" >/dev/null
check "--mtu sets nic.mtu_bytes, modelled: a lower goodput bound" "$T/mtu.json" \
    '.config["nic.mtu_bytes"] == 2048 and .goodput_gbps < 397'
"$BNET" p2p -m 1024 --json "$T/m.json" >/dev/null
check "-m is --mtu" "$T/m.json" '.config["nic.mtu_bytes"] == 1024'
for f in -b --bidirectional "-D 5" "--duration 5"; do
    # shellcheck disable=SC2086
    "$BNET" p2p $f >"$T/ref.out" 2>"$T/ref.err"
    rc=$?
    [[ $rc -eq 2 && ! -s $T/ref.out && $(wc -l <"$T/ref.err") -eq 1 ]] && grep -q "not modelled" "$T/ref.err"
    ok "$f: refused, exit 2, saying it is not modelled" $?
done

# --no-seed-report: the tool's table, without the seed's figures after it
grep -q "seed's figures" "$T/bw.txt"
ok "the seed's figures follow the table by default" $?
"$BNET" p2p --test write_bw -s 64K -n 50 --no-seed-report >"$T/ns.txt"
! grep -q "seed's figures" "$T/ns.txt" && grep -q '^ 65536 ' "$T/ns.txt"
ok "--no-seed-report: the table without them" $?

"$BNET" p2p --test write_bw -a -n 10 --json "$T/a.json" >/dev/null
"$BNET" p2p --test write_bw -a -n 10 --json "$T/b.json" >/dev/null
cmp -s "$T/a.json" "$T/b.json"
ok "two runs give byte-identical JSON" $?
check "-a: 23 sizes, 2 B to 8 MiB, doubling" "$T/a.json" \
    '[.pairs[0].rows[].bytes] == [range(1; 24) | pow(2; .)]'
check "bandwidth rows: average within the goodput bound, rate x size x 8 = bandwidth" "$T/a.json" \
    '.goodput_gbps as $g | [.pairs[0].rows[] | (.bw_avg_gbps <= $g) and
     ((.msg_rate_mpps * .bytes * 8 / 1000 - .bw_avg_gbps) as $d
      | ($d * $d) < (1e-6 * .bw_avg_gbps) * (1e-6 * .bw_avg_gbps))] | all'

"$BNET" p2p --test read_lat --hosts host0,host1,2 -n 10 --json "$T/r.json" >/dev/null
check "--hosts by name or index: each pair" "$T/r.json" \
    '[.pairs[] | [.src, .dst]] == [[0, 1], [0, 2], [1, 2]]'
check "latency rows: min <= typical <= p99 <= p99.9 <= max" "$T/r.json" \
    '[.pairs[].rows[] | (.t_min_us <= .t_typical_us and .t_typical_us <= .t_p99_us and
      .t_p99_us <= .t_p999_us and .t_p999_us <= .t_max_us)] | all'

"$BNET" p2p scenarios/p2p_roce_400g.yaml -n 10 --json - >"$T/roce.json"
check "--json - writes the JSON alone to stdout" "$T/roce.json" '.test == "write_lat"'

finish
