#!/usr/bin/env bash
# bnet report's page in a real browser: Debian's chromium, headless, driven
# by python3-selenium through chromium-driver (tests/cli/browser_check.py).
# One page with a run (FCT CDF, link utilization), a sweep (busbw against
# size) and a job (timeline): it loads with no console warning or error,
# fetches nothing, and every plot is an SVG laid out with an area and
# shapes drawn in it. A page with a script error, a fetch and an empty
# plot must fail the same check (the check can see): the failed fetch
# as a console error, the one that worked as a resource the page loaded. Skipped (77) only
# when chromium, chromedriver or selenium is not installed, and never in
# CI, which installs them (scripts/test.sh); a browser that is installed
# but does not start fails.
# Usage: tests/cli/test_report_browser.sh BNET
set -uo pipefail
source tests/cli/lib.sh
missing=()
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || missing+=(chromium)
[ -x "${CHROMEDRIVER:-/usr/bin/chromedriver}" ] || missing+=(chromium-driver)
/usr/bin/python3 -c 'import selenium' 2>/dev/null || missing+=(python3-selenium)
if ((${#missing[@]})); then
    echo "no ${missing[*]}: scripts/need-packages.sh ${missing[*]}"
    [[ ${CI:-} == true ]] && { echo "FAIL  CI installs them (scripts/test.sh)"; exit 1; }
    exit 77
fi
command -v gnuplot >/dev/null || { echo "FAIL  no gnuplot: scripts/need-packages.sh gnuplot-nox"; exit 1; }
export HOME=$T # chromium's profile and crash folders: scratch

SMALL=(--set topology.kind=leaf_spine --set topology.k=4 --set scale_up.domain_gpus=0)
"$BNET" run --quiet --set topology.k=4 --set workload.message_bytes=64KB --set observe.link_rows=16 \
    --json "$T/run.json" &&
    "$BNET" coll "${SMALL[@]}" -b 1K -e 64K -f 8 --json "$T/coll.json" >/dev/null &&
    "$BNET" job --fidelity flow --json "$T/job.json" >/dev/null &&
    "$BNET" report "$T"/{run,coll,job}.json -o "$T/page.html"
ok "a page of a run, a sweep and a job" $?

/usr/bin/python3 tests/cli/browser_check.py "$T/page.html" "$T/page.png" >"$T/check" 2>&1
rc=$?
cat "$T/check"
[ $rc -ne 3 ]
ok "the browser starts" $?
[ $rc -eq 0 ]
ok "the page loads with no console message, fetches nothing, every plot drawn" $?
summary=$(grep '^plots ' "$T/check")
n=$(awk '{print $2}' <<<"$summary") drawn=$(awk '{print $4}' <<<"$summary")
[[ ${n:-0} -ge 4 && $n == "$drawn" ]]
ok "each of the plots drawn ($drawn of $n)" $?
for want in plot-0-flows-fct-cdf plot-0-links-utilization plot-1-busbw plot-2-job-timeline; do
    grep -q "^plot $want: svg [1-9][0-9]*x[1-9]" "$T/check"
    ok "$want laid out as an SVG with an area" $?
done
[ -s "$T/page.png" ]
ok "a screenshot taken" $?

# the check itself: a page that errs, fetches and draws nothing must fail
cat >"$T/bad.html" <<'EOF'
<!DOCTYPE html>
<html><head><title>bad</title></head><body>
<figure class="plot" id="plot-empty"><svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"></svg></figure>
<img src="missing.png" alt=""><img src="there.svg" alt="">
<script>no_such_function();</script>
</body></html>
EOF
printf '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>' >"$T/there.svg"
/usr/bin/python3 tests/cli/browser_check.py "$T/bad.html" >"$T/bad" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "problem: plot plot-empty is empty" "$T/bad" &&
    grep -q "problem: console SEVERE: .*no_such_function" "$T/bad" && grep -q "problem: console SEVERE: .*missing.png" "$T/bad" &&
    grep -q "problem: fetched .*there.svg" "$T/bad"
ok "a page with a script error, a fetch and an empty plot fails the check" $?
cat "$T/bad"
finish
