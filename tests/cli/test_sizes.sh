#!/usr/bin/env bash
# Size suffixes, one convention everywhere (docs/scenario.md, "Sizes"):
# KiB, MiB, GiB, TiB (and Ki ... Ti) are powers of 1024, kB, KB, MB, GB, TB
# powers of 1000, in scenario keys, --set, --vary and the nccl-tests flags
# alike; a bare K, M, G, T is a power of 1000 in a key and a power of 1024
# in -b, -e and -i, as nccl-tests reads them.
# Usage: tests/cli/test_sizes.sh BNET
set -uo pipefail
source tests/cli/lib.sh

# key_is NAME KEY WANT -- ARGS...: bnet ARGS --json FILE, the config's KEY is WANT
key_is() {
    local name=$1 key=$2 want=$3
    shift 4
    "$BNET" "$@" --json "$T/out.json" >/dev/null 2>"$T/err" &&
        jq -e --arg k "$key" --argjson w "$want" '.config[$k] == $w' "$T/out.json" >/dev/null
    ok "$name" $?
}

SMALL=(--quiet --set topology.k=4)
# scenario keys by --set: both conventions, up to T (a key of 64 bits the
# default run does not use: its congestion control is none)
for v in 1KiB:1024 1Ki:1024 4MiB:4194304 1GiB:1073741824 1TiB:1099511627776 \
    1kB:1000 1KB:1000 1k:1000 2MB:2000000 1GB:1000000000 1TB:1000000000000 1T:1000000000000; do
    key_is "--set KEY=${v%%:*} is ${v#*:}" dcqcn.byte_counter_bytes "${v#*:}" -- \
        run "${SMALL[@]}" --set "dcqcn.byte_counter_bytes=${v%%:*}"
done

# a scenario file's keys
printf 'topology:\n  k: 4\nworkload:\n  message_bytes: 64KiB\ndcqcn:\n  byte_counter_bytes: 2TB\n' \
    >"$T/s.yaml"
key_is "a file's 64KiB is 65536" workload.message_bytes 65536 -- run "$T/s.yaml" --quiet
key_is "a file's 2TB is 2000000000000" dcqcn.byte_counter_bytes 2000000000000 -- \
    run "$T/s.yaml" --quiet

# nccl-tests' flags: bare letters binary in either case, suffixes as in keys
for v in 1K:1024 1k:1024 2M:2097152 2m:2097152 1G:1073741824 1KiB:1024 1MiB:1048576 \
    1kB:1000 1KB:1000 1MB:1000000 1GB:1000000000; do
    key_is "-b ${v%%:*} is ${v#*:}" coll.min_bytes "${v#*:}" -- \
        coll -g 4 -b "${v%%:*}" -e "${v%%:*}" -n 1 -w 0 --set sim.fidelity=flow
done
key_is "-e 2MB is 2000000" coll.max_bytes 2000000 -- \
    coll -g 4 -b 1MiB -e 2MB -n 1 -w 0 --set sim.fidelity=flow
# T: past the keys' bounds (coll.*_bytes stop at 1e12), refused by value, not as a letter
"$BNET" coll -g 4 -b 1T -e 1T 2>"$T/err" >/dev/null
[ $? -eq 2 ] && grep -q "1099511627776 is out of range" "$T/err"
ok "-b 1T is 2^40" $?
"$BNET" coll -g 4 -b 2TB -e 2TB 2>"$T/err" >/dev/null
[ $? -eq 2 ] && grep -q "2TB is out of range" "$T/err" # not "not an integer"
ok "-b 2TB is read (2e12, past the range)" $?
"$BNET" coll -g 4 -b 1TiB -e 1TiB 2>"$T/err" >/dev/null
[ $? -eq 2 ] && grep -q "1TiB is out of range" "$T/err"
ok "-b 1TiB is read (2^40, past the range)" $?
"$BNET" coll -g 4 -b 1Q -e 1M 2>"$T/err" >/dev/null
[ $? -eq 2 ] && grep -q "key 'coll.min_bytes'" "$T/err"
ok "-b 1Q is refused" $?

# --vary: the same parser
"$BNET" sweep -j 1 "${SMALL[@]}" --vary dcqcn.byte_counter_bytes=1MiB,1GB,1TiB,2TB --json "$T/sw.json" \
    >/dev/null 2>"$T/err" &&
    jq -e '[.points[].values["dcqcn.byte_counter_bytes"]] ==
        [1048576, 1000000000, 1099511627776, 2000000000000]' "$T/sw.json" >/dev/null
ok "--vary 1MiB,1GB,1TiB,2TB" $?

finish
