#!/usr/bin/env bash
#
# The memory estimate holds a run to the address-space limit (ulimit -v)
# as well as to MemAvailable (docs/limits.md, "Resources"): a fabric or a
# flow file that cannot fit is refused at once, exit 2, naming the key,
# instead of failing minutes later (issue 53: k=200 under ulimit -v 8 GB
# ran 26 s, then exit 1 naming no key). The cgroup limits: tests/core/test_memlimit.c.
#
#   bash tests/cli/test_memlimit.sh PATH_TO_BNET
set -u
# ASan/UBSan builds reserve more address space than any limit here
[ -n "${BNET_SANITIZED:-}" ] && { echo "skipped: sanitizer build"; exit 77; }
. "$(dirname "$0")/lib.sh"

# limited CMD...: run under an 8 GB address-space limit, at most 60 s
limited() { (ulimit -v "$LIMIT_KB" && exec timeout 60 "$@"); }

LIMIT_KB=8000000
start=$SECONDS
limited "$BNET" topo --set topology.k=200 >"$T/out" 2>"$T/err"
rc=$?
ok "topo k=200 under ulimit -v 8 GB: refused, exit 2 (got $rc)" $([ "$rc" -eq 2 ]; echo $?)
grep -q "key 'topology.k'.*ulimit -v" "$T/err"
ok "... naming topology.k and the limit" $?
ok "... at once ($((SECONDS - start)) s)" $([ $((SECONDS - start)) -le 5 ]; echo $?)
[ ! -s "$T/out" ]
ok "... nothing on stdout" $?

# 3 million lines of flows: counted before they are read
awk 'BEGIN { for (i = 0; i < 3000000; i++) printf "%d %d 1000000 %d\n", i % 128, (i + 1) % 128, i }' \
    >"$T/big.flows"
LIMIT_KB=2000000
start=$SECONDS
limited "$BNET" run --quiet --set workload.kind=flow_list --set "workload.flow_file=$T/big.flows" \
    >"$T/out" 2>"$T/err"
rc=$?
ok "3 M-line flow file under ulimit -v 2 GB: refused, exit 2 (got $rc)" $([ "$rc" -eq 2 ]; echo $?)
grep -q "key 'workload.flow_file'.*3000000 lines" "$T/err"
ok "... naming workload.flow_file and its lines" $?
ok "... at once ($((SECONDS - start)) s)" $([ $((SECONDS - start)) -le 5 ]; echo $?)

# a run that fits is not refused under a limit
LIMIT_KB=2000000
limited "$BNET" run --quiet >/dev/null 2>"$T/err"
ok "the default run under ulimit -v 2 GB still runs" $?
finish
