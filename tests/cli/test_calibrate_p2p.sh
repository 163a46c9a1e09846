#!/usr/bin/env bash
# bnet calibrate on published perftest outputs (tests/data/calib/SOURCES):
# the rows run as bnet p2p (docs/calibration.md, "perftest rows"). Fit
# nic.msg_rate_mpps on ib_write_bw -a (2 to 8 B, one QP, NDR: 2.64 M
# messages a second), then predict another cluster's ib_read_bw -a rows
# (2 to 128 B, one QP: 2.45 to 2.56 M/s) with that calibration. Uncalibrated,
# bnet's NIC posts at its 330 M/s ceiling and the rows run 83 to 95 %
# faster than measured; the host's one posting thread sets the real rate.
# Then a latency row fitted to the PCIe term and cross-checked on READ.
# Usage: tests/cli/test_calibrate_p2p.sh BNET
set -uo pipefail
source tests/cli/lib.sh
D=tests/data/calib

(cd "$T" && $BNET calibrate "$OLDPWD/$D/perftest-write-bw-ndr.txt" --fit nic.msg_rate_mpps \
    --out w.yaml --json w.json --quiet)
rc=$?
ok "fit nic.msg_rate_mpps on ib_write_bw rows" $rc
check "every row ran as bnet p2p" "$T/w.json" '[.rows[] | select(.algo == "p2p")] | length == 3'
check "uncalibrated, the rows run over 80 % fast (NIC ceiling, not the host)" "$T/w.json" \
    '[.rows[] | .before_us / .measured_us - 1 | select(. < -0.8)] | length == 3'
rate=$(sed -n 's/^  nic.msg_rate_mpps: \([^ ]*\).*/\1/p' "$T/w.yaml")
awk -v r="$rate" 'BEGIN { exit !(r > 2.5 && r < 2.8) }'
ok "fitted message rate $rate M/s (measured 2.64), not at a bound" $?
! grep -q "at a bound" "$T/w.yaml"
ok "the calibration does not mark the rate at a bound" $?
check "fitted rows within 2 %" "$T/w.json" \
    '[.rows[] | .after_us / .measured_us - 1 | fabs | select(. > 0.02)] | length == 0'

$BNET calibrate --calibration "$T/w.yaml" --no-fit "$D/perftest-read-bw-mb.txt" --json "$T/r.json" \
    --quiet >/dev/null
rc=$?
ok "predict ib_read_bw rows with it" $rc
err=$(jq '[.rows[] | (.after_us / .measured_us - 1 | fabs)] | add / length * 1000 | round / 10' \
    "$T/r.json")
awk -v e="$err" 'BEGIN { exit !(e <= 10) }'
ok "ib_read_bw predicted: mean |error| $err % (stated 8.3 %, margin to 10 %)" $?

# Latency: ib_write_lat, 2 B inline (220, its header's "Max inline data"),
# ConnectX-3 FDR10: 0.98 us. Uncalibrated bnet (NDR's 210 ns a PCIe
# crossing) runs it in 0.82 us (-16.5 %; without the header's inline size
# it ran 1.66 us, +69 %). Fit host.pcie_ns on it, then cross-check what the
# fitted NIC says of a READ against a published pair (perftest #131, one
# mlx5 host pair: ib_read_lat 1.91 us, inline ib_write_lat 0.93 us, 2.05 x).
(cd "$T" && $BNET calibrate "$OLDPWD/$D/perftest-write-lat-fdr.txt" --fit host.pcie_ns \
    --out l.yaml --json l.json --quiet)
rc=$?
ok "fit host.pcie_ns on an ib_write_lat row" $rc
check "uncalibrated 16.5 % fast with the header's inline size" "$T/l.json" \
    '.rows[0].before_us / .rows[0].measured_us - 1 | . < -0.15 and . > -0.18'
check "fitted row within 1 %" "$T/l.json" '.rows[0].after_us / .rows[0].measured_us - 1 | fabs < 0.01'
pcie=$(sed -n 's/^  host.pcie_ns: \([^ ]*\).*/\1/p' "$T/l.yaml")
awk -v p="$pcie" 'BEGIN { exit !(p > 250 && p < 330) }'
ok "fitted PCIe crossing $pcie ns (NDR preset 210; SIGCOMM 2018's 0.4-1.5 us round trips)" $?
lat() { $BNET p2p --test "$1" -s 2 -I 220 --set host.pcie_ns="$pcie" --quiet --json - |
    jq '.pairs[0].rows[0].t_typical_us'; }
w=$(lat write_lat) r=$(lat read_lat)
awk -v w="$w" -v r="$r" 'BEGIN { q = r / w / (1.91 / 0.93); exit !(q > 0.95 && q < 1.05) }'
ok "cross-check: read_lat / write_lat $r / $w us within 5 % of perftest #131's 2.05" $?

# perftest and nccl-tests rows in one fit: the p2p rows count in the cost
(cd "$T" && $BNET calibrate "$OLDPWD/$D/perftest-write-bw-ndr.txt" \
    "$OLDPWD/$D/perftest-read-bw-mb.txt" --fit nic.msg_rate_mpps,nic.tx_ns --json both.json \
    --out both.yaml --quiet)
rc=$?
ok "two perftest files, two keys: fit runs" $rc
check "both files' rows in the fit" "$T/both.json" '(.rows | length) == 10 and .rms_after < .rms_before'
finish
