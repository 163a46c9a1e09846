#!/usr/bin/env bash
# The progress line (src/cli/progress.c): a run over a second shows one
# line on stderr, rewritten in place, with the simulated time, the units
# done (flows, a collective's transfers, a job's tasks), the share and an
# ETA, when stderr is a terminal (a pseudo-terminal here, util-linux's
# script(1)); nothing in a pipe or a file, nothing with --quiet.
# Usage: tests/cli/test_progress.sh BNET
set -uo pipefail
source tests/cli/lib.sh
# The line is drawn the same in every build: checked in the release build only
# (64 s under the sanitizers, CI's 20 minutes).
[[ ${BNET_SANITIZED:-0} == 1 ]] && { echo "skip: sanitizer build"; exit 77; }
command -v script >/dev/null || { echo "SKIP  no script(1) (util-linux)"; exit 77; }

# on_tty OUT ARGS...: bnet ARGS with stderr a terminal (stdout to a file);
# what the terminal got into OUT, carriage returns as new lines
on_tty() {
  local out=$1
  shift
  script -qec "$(printf '%q ' "$BNET" "$@") >$T/stdout" /dev/null | tr '\r' '\n' >"$out"
  return "${PIPESTATUS[0]}"
}

# a line with the fields wanted: the name, simulated time, units, share, ETA
has_line() { grep -aqE "^\[bnet\] $2:.*simulated [0-9.]+ us \| $3 [0-9]+/[0-9]+ \| [0-9.]+ % .*ETA " "$1"; }

on_tty "$T/run" run --set topology.k=20 --json "$T/run.json"
st=$?
ok "bnet run on a terminal: exit 0" $st
has_line "$T/run" run flows
ok "bnet run: simulated time, flows done, share and ETA" $?
grep -q '"flows_completed"' "$T/run.json"
ok "bnet run: the JSON is whole" $?
grep -qa '\[bnet\]' "$T/stdout"
ok "bnet run: nothing of it on stdout" $((!$?))

on_tty "$T/coll" coll -b 32M -e 32M -j 1
st=$?
ok "bnet coll -j 1 on a terminal: exit 0" $st
grep -aqE '^\[bnet\] coll: row 1/1 \| simulated' "$T/coll" && has_line "$T/coll" coll transfers
ok "bnet coll: the row, transfers done, share and ETA" $?
grep -q '33554432' "$T/stdout"
ok "bnet coll: its table on stdout" $?

on_tty "$T/job" job --set jobs.0.dp=8
st=$?
ok "bnet job on a terminal: exit 0" $st
has_line "$T/job" job tasks
ok "bnet job: tasks done, share and ETA" $?

on_tty "$T/quiet" run --set topology.k=20 --quiet
grep -aq '\[bnet\]' "$T/quiet"
ok "--quiet: no progress line on the terminal" $((!$?))

"$BNET" run --set topology.k=20 >/dev/null 2>"$T/pipe"
ok "stderr a file: exit 0" $?
grep -aq '\[bnet\]' "$T/pipe"
ok "stderr a file: no progress line" $((!$?))
"$BNET" coll -b 32M -e 32M -j 1 2>&1 >/dev/null | cat >"$T/pipe2"
grep -aq '\[bnet\]' "$T/pipe2"
ok "stderr a pipe: no progress line" $((!$?))
finish
