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

"$BNET" p2p --test write_bw -s 64K -n 50 >"$T/bw.txt"
grep -q '^ #bytes     #iterations    BW peak\[Gb/sec\]    BW average\[Gb/sec\]   MsgRate\[Mpps\]$' "$T/bw.txt"
ok "bandwidth columns are perftest's (--report_gbits)" $?
grep -q '^ 65536 ' "$T/bw.txt"
ok "-s takes K" $?

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
