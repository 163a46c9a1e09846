#!/usr/bin/env bash
# bnet report: one self-contained HTML page of saved results. It parses
# as HTML with every element closed (python3's html.parser,
# tests/cli/html_check.py), fetches nothing (no src=, no link to a file or
# the network: the SVGs are inline), its ids are unique though every
# gnuplot SVG names its definitions alike, and it holds what each result
# has: busbw against size (coll, compare), the FCT CDF and link
# utilization over time (run), a job timeline (job), the seed's table,
# the configuration. Bad input: exit 2. The page in a real browser:
# test_report_browser.sh.
# Usage: tests/cli/test_report.sh BNET
set -uo pipefail
source tests/cli/lib.sh
command -v gnuplot >/dev/null || { echo "FAIL  no gnuplot: scripts/need-packages.sh gnuplot-nox"; exit 1; }

SMALL=(--set topology.kind=leaf_spine --set topology.k=4 --set scale_up.domain_gpus=0)
"$BNET" run --quiet --set topology.k=4 --set workload.message_bytes=64KB --set observe.link_rows=16 \
  --json "$T/run.json" &&
  "$BNET" coll "${SMALL[@]}" -b 1K -e 64K -f 8 --json "$T/coll.json" >/dev/null &&
  "$BNET" job --fidelity flow --json "$T/job.json" >/dev/null &&
  "$BNET" p2p -n 20 --json "$T/p2p.json" >/dev/null &&
  "$BNET" compare "${SMALL[@]}" --fidelity flow -j 2 --json "$T/compare.json" >/dev/null
ok "results to report on" $?

"$BNET" report "$T"/{run,coll,job,p2p,compare}.json -o "$T/page.html" >"$T/out" 2>"$T/err"
ok "bnet report FILE... -o PAGE" $?
python3 tests/cli/html_check.py "$T/page.html" >"$T/check"
st=$?
grep '^problem' "$T/check" | head -5
ok "the page parses, every element closed, unique ids, nothing fetched" $st
figs=$(sed -n 's/^figures: //p' "$T/check")
for want in plot-0-flows-fct-cdf plot-0-links-utilization plot-1-busbw plot-2-job-timeline plot-4-busbw; do
  [[ " $figs " == *" $want "* ]]
  ok "it shows $want" $?
done
n=$(grep -c '<svg' "$T/page.html")
[[ $n -ge 8 ]]
ok "the plots are inline SVG ($n)" $?
grep -q "The seed's figures" "$T/page.html" && grep -q "AllReduce busbw / NIC bound" "$T/page.html"
ok "the seed's table" $?
grep -q '<details><summary>every scenario key' "$T/page.html" && grep -q '<th>topology.kind</th>' "$T/page.html"
ok "the configuration" $?
grep -q '<th>busbw_gbs</th>' "$T/page.html" && grep -q '<th>iteration_us</th>' "$T/page.html"
ok "the figures: coll's rows, the jobs' times" $?
! grep -qiE '<(script|link|iframe)\b|src=' "$T/page.html"
ok "no script, link or src" $?
ls "${TMPDIR:-/tmp}" | grep -q "^bnet-report\." && ok "no scratch folder left" 1 || ok "no scratch folder left" 0

"$BNET" report "$T/run.json" -o - >"$T/stdout.html" && cmp -s <(head -c 15 "$T/stdout.html") <(printf '<!DOCTYPE html>')
ok "-o - writes the page to stdout" $?
echo '{"a": 1}' >"$T/other.json"
"$BNET" report "$T/other.json" -o "$T/x.html" 2>"$T/e1"
[[ $? -eq 2 ]] && grep -q "not a result of bnet" "$T/e1"
ok "a JSON that is no result: exit 2" $?
"$BNET" report "$T/run.json" -o "$T/no/x.html" 2>"$T/e2"
[[ $? -eq 2 ]] && grep -q "its folder does not exist" "$T/e2"
ok "a page in a missing folder: exit 2, before drawing" $?
"$BNET" report 2>"$T/e3"
[[ $? -eq 2 ]]
ok "no file: exit 2" $?
finish
