#!/usr/bin/env bash
# Fuzz bnet's input readers and a tiny end-to-end run with libFuzzer
# (harnesses in fuzz/, docs/testing.md).
#
#   scripts/fuzz.sh [-j N] [SECONDS] [HARNESS...]   replay, then fuzz each for SECONDS (60)
#   scripts/fuzz.sh --replay [HARNESS...]           replay only
#
# Installs clang and libFuzzer's runtime if missing, builds the harnesses
# with ASan + UBSan in build-fuzz/ (BNET_FUZZ=ON), then:
#  - replay: runs every input of fuzz/regressions/HARNESS/ (findings fixed
#    since) and the seeds once; any crash, sanitizer report, leak or
#    timeout fails;
#  - fuzz: runs each harness for SECONDS with its seeds and dictionary, N
#    harnesses at a time (-j, default 1); the corpus grows in
#    build-fuzz/corpus/HARNESS/ and carries over to the next run.
# Harnesses: scenario_yaml scenario_set topo_file ibnetdiscover ns3_topo
# flow_file workload_file chakra_et calib_file e2e (default: all). Exit
# status 1 on any finding, each named with the file that reproduces it:
# build-fuzz/fuzz/fuzz_HARNESS FILE runs it again.
# BNET_JOBS caps the build's parallel jobs (default: the number of cores).
# BNET_FUZZ_TIMEOUT: seconds an input may take (10); raise it on a loaded
# machine, where a niced harness runs many times slower than alone.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$root/build-fuzz
all=(scenario_yaml scenario_set topo_file ibnetdiscover ns3_topo flow_file workload_file chakra_et calib_file e2e)
per_input_timeout=${BNET_FUZZ_TIMEOUT:-10} # seconds; a slower input is a finding (a hang)

usage() {
    sed -n '4,5p' "$0" | sed 's/^# *//' >&2
    exit 2
}

replay_only=0
parallel=1
seconds=60
while (($#)); do
    case $1 in
    --replay) replay_only=1 ;;
    -j) [ $# -ge 2 ] || usage; parallel=$2; shift ;;
    -h | --help) usage ;;
    -*) usage ;;
    *) break ;;
    esac
    shift
done
if ((!replay_only)) && [[ ${1:-} =~ ^[0-9]+$ ]]; then
    seconds=$1
    shift
fi
harnesses=("$@")
((${#harnesses[@]})) || harnesses=("${all[@]}")
for h in "${harnesses[@]}"; do
    [ -f "fuzz/fuzz_$h.c" ] || { echo "fuzz.sh: no harness '$h' (${all[*]})" >&2; exit 2; }
done
[[ $parallel =~ ^[1-9][0-9]*$ ]] || usage

# Longest input per harness: a few times the largest seed, small enough
# that one input stays fast.
max_len() {
    case $1 in
    scenario_yaml) echo 16384 ;;
    ibnetdiscover | topo_file | ns3_topo) echo 8192 ;;
    calib_file) echo 16384 ;;
    e2e) echo 1024 ;;
    *) echo 4096 ;;
    esac
}

build() {
    scripts/need-packages.sh build-essential cmake pkg-config libyaml-dev libjansson-dev libprotobuf-c-dev protobuf-c-compiler \
        libcmocka-dev libcminpack-dev libssl-dev clang libclang-rt-dev llvm
    local log=$out/build.log
    mkdir -p "$out"
    if ! { cmake -S . -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
        -DBNET_FUZZ=ON && cmake --build "$out" --target fuzz -j"${BNET_JOBS:-$(nproc)}"; } \
        >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        echo "fuzz.sh: build failed (full log: $log)" >&2
        exit 1
    fi
}

# The repo's own inputs as seeds, in $out/seeds/HARNESS (made afresh):
# scenario, topology and flow files, the files tests/cli/test_errors.sh
# writes with printf, and every --set assignment in tests/, docs/, README.
seeds() {
    local s=$out/seeds
    rm -rf "$s"
    mkdir -p "$s"/{scenario_yaml,scenario_set,topo_file,ibnetdiscover,ns3_topo,flow_file,workload_file,calib_file,e2e,errors}
    cp scenarios/*.yaml "$s/scenario_yaml/"
    cp scenarios/*.topo tests/topo/data/*.topo "$s/topo_file/"
    cp tests/topo/data/*.ibnet "$s/ibnetdiscover/"
    cp tests/topo/data/ns3_*.txt "$s/ns3_topo/"
    cp scenarios/*.flows tests/workload/data/* "$s/flow_file/"
    cp scenarios/*.txt "$s/workload_file/"
    # published nccl-tests and perftest outputs; Chakra traces: fuzz/corpus/chakra_et
    cp tests/data/calib/*.txt "$s/calib_file/"
    # test_errors.sh's one-command printf lines (continuations joined), run
    # with S pointing at the seed folder
    sed -e ':a' -e '/\\$/{N;s/\\\n *//;ba' -e '}' tests/cli/test_errors.sh |
        grep -E "^printf (-- )?'[^']*' >\"\\\$S/[a-z0-9_]+\.[a-z]+\"$" |
        while IFS= read -r line; do S=$s/errors eval "$line"; done
    local f
    for f in "$s"/errors/*; do
        case $f in
        *.yaml) mv "$f" "$s/scenario_yaml/" ;;
        *.topo) mv "$f" "$s/topo_file/" ;;
        *.ibnet) mv "$f" "$s/ibnetdiscover/" ;;
        *.flows) mv "$f" "$s/flow_file/" ;;
        *.txt) mv "$f" "$s/workload_file/" ;;
        esac
    done
    rm -rf "$s/errors"
    local i=0 a
    grep -rhoE -- "--set[ =]'?[a-z][a-z0-9_.]*=[^' \`)]*" tests docs README.md |
        sed -E "s/^--set[ =]'?//" | sort -u |
        while IFS= read -r a; do
            i=$((i + 1))
            printf '%s\n' "$a" >"$s/scenario_set/set-$i"
            printf '%s\n' "$a" >"$s/e2e/set-$i"
        done
}

# Dictionaries in $out/dict/HARNESS.dict: numbers, the harness's syntax, and
# for scenarios the keys and enum values as `bnet keys` lists them now.
dicts() {
    local d=$out/dict keys=$out/keys.txt
    mkdir -p "$d"
    "$out/bnet" keys >"$keys"
    local paths enums
    paths=$(awk 'NR > 1 { print $1 }' "$keys")
    enums=$(sed -n 's/.*(\([a-z0-9_|-]*\))$/\1/p' "$keys" | tr '|' '\n' | sort -u)
    {
        cat fuzz/dict/numbers.dict fuzz/dict/yaml.dict
        echo "# keys and enum values from bnet keys"
        printf '%s\n' "$paths" | sed 's/\[\]//' | tr '.' '\n' | sort -u | sed 's/.*/"&: "/'
        printf '%s\n' "$enums" | sed 's/.*/"&"/'
    } >"$d/scenario_yaml.dict"
    {
        cat fuzz/dict/numbers.dict
        echo "# keys and enum values from bnet keys"
        printf '%s\n' "$paths" | sed 's/\[\]/.0/; s/.*/"&="/'
        printf '%s\n' "$enums" | sed 's/.*/"&"/'
    } >"$d/scenario_set.dict"
    cat "$d/scenario_set.dict" fuzz/dict/e2e.dict >"$d/e2e.dict"
    local h
    for h in topo_file ibnetdiscover ns3_topo flow_file workload_file chakra_et calib_file; do
        cat fuzz/dict/numbers.dict "fuzz/dict/$h.dict" >"$d/$h.dict"
    done
}

# Exit 0 if `log` shows no finding; else print what and where.
report() {
    local h=$1 rc=$2 log=$3 findings=$out/findings/$h
    local files
    files=$(find "$findings" -type f 2>/dev/null | sort)
    if [ "$rc" -eq 0 ] && [ -z "$files" ]; then
        return 0
    fi
    echo "FINDING in $h (exit $rc; log $log):" >&2
    grep -E 'ERROR: |SUMMARY: |runtime error|fuzz: finding' "$log" | head -n 5 | sed 's/^/  /' >&2
    local f
    for f in $files; do
        echo "  input: $f   (replay: $out/fuzz/fuzz_$h $f)" >&2
    done
    return 1
}

# Each regression input and seed once: the bugs they found stay fixed.
replay() {
    local h=$1 log=$out/logs/$h-replay.log rc=0
    local inputs=()
    local dir
    for dir in "fuzz/regressions/$h" "fuzz/corpus/$h" "$out/seeds/$h"; do
        [ -d "$dir" ] || continue
        while IFS= read -r f; do inputs+=("$f"); done < <(find "$dir" -type f | sort)
    done
    ((${#inputs[@]})) || return 0
    mkdir -p "$out/findings/$h"
    "$out/fuzz/fuzz_$h" -timeout=$per_input_timeout -artifact_prefix="$out/findings/$h/" \
        "${inputs[@]}" >"$log" 2>&1 || rc=$?
    report "$h" "$rc" "$log" || return 1
    echo "replay $h: ${#inputs[@]} inputs, no finding" >&2
}

# libFuzzer for `seconds`; new inputs go to the first corpus folder only.
fuzz_one() {
    local h=$1 log=$out/logs/$h.log rc=0
    local corpora=("$out/corpus/$h")
    local dir
    for dir in "$out/seeds/$h" "fuzz/corpus/$h" "fuzz/regressions/$h"; do
        [ -d "$dir" ] && corpora+=("$dir")
    done
    mkdir -p "$out/corpus/$h" "$out/findings/$h"
    "$out/fuzz/fuzz_$h" -max_total_time="$seconds" -timeout=$per_input_timeout \
        -max_len="$(max_len "$h")" -dict="$out/dict/$h.dict" -print_final_stats=1 \
        -artifact_prefix="$out/findings/$h/" "${corpora[@]}" >"$log" 2>&1 || rc=$?
    report "$h" "$rc" "$log" || return 1
    local runs speed units
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    units=$(find "$out/corpus/$h" -type f | wc -l)
    echo "fuzz $h: ${seconds}s, ${runs:-?} executions (${speed:-?}/s), corpus $units, no finding" >&2
}

build
seeds
dicts
rm -rf "$out/findings"
mkdir -p "$out/logs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

failed=0
for h in "${harnesses[@]}"; do
    replay "$h" || failed=1
done
if ((!replay_only && !failed)); then
    # N harnesses at a time; each leaves HARNESS.failed behind on a finding
    rm -f "$out"/logs/*.failed
    for h in "${harnesses[@]}"; do
        while (($(jobs -rp | wc -l) >= parallel)); do
            wait -n || true
        done
        { fuzz_one "$h" || touch "$out/logs/$h.failed"; } &
    done
    wait
    ! compgen -G "$out/logs/*.failed" >/dev/null || failed=1
fi
exit $failed
