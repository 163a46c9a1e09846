#!/usr/bin/env bash
# What the command says when it is used wrongly: output paths (--json,
# --trace, --csv, -F, --dot) are checked before anything runs (exit 2,
# nothing simulated, no summary on stdout); a value --set gave that a check
# refuses names --set, not the embedded scenario; unknown keys, commands,
# options and help topics get a "did you mean" one typo away; help for
# each nccl-tests program name (bnet help all_reduce_perf).
# Usage: tests/cli/test_cli_hints.sh BNET
set -uo pipefail
source tests/cli/lib.sh

# refuses RUN... with exit 2, nothing on stdout, one line on stderr matching PATTERN
refuses() {
  local name=$1 pattern=$2
  shift 2
  "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  [[ $rc -eq 2 && ! -s $T/out && $(wc -l <"$T/err") -eq 1 ]] && grep -q -- "$pattern" "$T/err"
  local st=$?
  [[ $st -eq 0 ]] || { echo "      exit $rc: $(head -c 300 "$T/err")"; }
  ok "$name" $st
}

# outputs, before the run: a 10 s job would run first if they were not
JOB=(job --set jobs.0.iterations=50)
refuses "--json in a missing folder: refused before the run" \
  "option '--json': cannot write '$T/no/r.json': its folder does not exist" \
  "$BNET" run --json "$T/no/r.json"
refuses "--json naming a folder" "it is a folder" "$BNET" run --json "$T"
refuses "--trace in a missing folder, before the job runs" "option '--trace'" \
  "$BNET" "${JOB[@]}" --trace "$T/no/t.json"
refuses "--csv PREFIX in a missing folder" "cannot write '$T/no/p-\*.csv'" \
  "$BNET" run --csv "$T/no/p"
refuses "-F in a missing folder" "option '-F'" "$BNET" coll -b 1K -e 1K -F "$T/no/x.csv"
refuses "--dot in a missing folder" "option '--dot'" "$BNET" topo --dot "$T/no/x.dot"
mkdir "$T/ro" && touch "$T/ro/r.json" && chmod 555 "$T/ro" && chmod 444 "$T/ro/r.json"
if [[ $(id -u) -ne 0 ]]; then
  refuses "--json on a read-only file" "option '--json'" "$BNET" run --json "$T/ro/r.json"
  refuses "--json in a read-only folder" "folder is not writable" "$BNET" run --json "$T/ro/new.json"
fi
chmod 755 "$T/ro"
"$BNET" topo --json "$T/ok.json" >/dev/null && [[ -s $T/ok.json ]]
ok "a writable path is written" $?

# --set named in the checks that refuse its value
refuses "--set topology.k=3: the check names --set" "^bnet: --set topology.k: key 'topology.k': must be even" \
  "$BNET" run --set topology.k=3
refuses "--set nic.mtu_bytes=100000: names --set" "^bnet: --set nic.mtu_bytes:" \
  "$BNET" run --set nic.mtu_bytes=100000
refuses "--set workload.kind=flow_list: names the --set that made flow_file matter" \
  "^bnet: --set workload.kind: key 'workload.flow_file'" "$BNET" run --set workload.kind=flow_list
refuses "a flag's value: names the flag's key" "^bnet: <cluster128>, a flag (coll.min_bytes)" \
  "$BNET" coll -b 4K -e 1K
refuses "--set jobs.0.tp=3: names --set jobs.0.tp" "^bnet: --set jobs.0.tp:" "$BNET" job --set jobs.0.tp=3
printf 'topology:\n  k: 3\n' >"$T/k3.yaml"
refuses "a file's value: still its file and line" "k3.yaml:2: key 'topology.k'" "$BNET" run "$T/k3.yaml"

# did you mean
refuses "--set topology.kk: did you mean topology.k" "did you mean 'topology.k'?" \
  "$BNET" run --set topology.kk=4
refuses "--set topolgy.k: did you mean topology.k" "did you mean 'topology.k'?" \
  "$BNET" run --set topolgy.k=4
printf 'nic:\n  congestion_contrl: dcqcn\n' >"$T/typo.yaml"
refuses "a file's nic.congestion_contrl: its line, did you mean" \
  "typo.yaml:2: key 'nic.congestion_contrl': unknown key; did you mean 'nic.congestion_control'?" \
  "$BNET" run "$T/typo.yaml"
refuses "--set nic.zzzzzz: no suggestion when nothing is near" "unknown key (valid keys in 'nic'" \
  "$BNET" run --set nic.zzzzzz=1
refuses "command cole: did you mean coll" "unknown command 'cole' (did you mean 'coll'?)" "$BNET" cole
refuses "command all_reduce_pref: did you mean all_reduce_perf" "did you mean 'all_reduce_perf'?" \
  "$BNET" all_reduce_pref
refuses "command xyz: no suggestion" "unknown command 'xyz' (see" "$BNET" xyz
refuses "option --jsn: did you mean --json" "unknown option '--jsn' (did you mean '--json'?)" \
  "$BNET" run --jsn x.json
refuses "option --report-gbits (p2p): did you mean --report_gbits" "did you mean '--report_gbits'?" \
  "$BNET" p2p --report-gbits
refuses "help cll: did you mean coll" "no help for 'cll' (did you mean 'coll'?)" "$BNET" help cll

# help for the drop-ins
for p in all_reduce_perf reduce_scatter_perf all_gather_perf broadcast_perf reduce_perf \
         alltoall_perf sendrecv_perf; do
  "$BNET" help $p >"$T/help" 2>&1 && grep -q "^usage: bnet coll" "$T/help" && grep -q -- "-b, --minbytes" "$T/help"
  ok "bnet help $p: bnet coll's help, with nccl-tests' flags" $?
done
"$BNET" help p2p | grep -q -- "--report_gbits"
ok "bnet help p2p lists --report_gbits" $?
finish
