#!/usr/bin/env bash
# bnet coll as a drop-in for nccl-tests (docs/collectives.md): program names,
# every flag's long form, the rank count, NCCL's variables, and output that a
# script reading nccl-tests' fields by position reads: 13 fields per row
# (size count type redop root, then time algbw busbw #wrong out of place
# and in place), the header line and the two footer lines.
# Usage: tests/cli/test_nccl_tests.sh BNET
set -uo pipefail
source tests/cli/lib.sh
unset NCCL_ALGO NCCL_PROTO NCCL_MIN_NCHANNELS NCCL_MAX_NCHANNELS

# nccl-tests' rows as "size time algbw busbw wrong itime ialgbw ibusbw iwrong":
# fields by position, every non-comment line, refusing a row of another width
rows() {
    awk -v want="${2:-13}" '!/^#/ && NF { if (NF != want) { print "width " NF; exit 1 }
        print $1, $6, $7, $8, $9, $10, $11, $12, $13 }' "$1"
}

# A program name chooses the collective: bnet NAME, bnet coll NAME, a symlink
ln -s "$BNET" "$T/all_gather_perf"
"$T/all_gather_perf" -g 8 -b 1M -e 1M >"$T/ag.txt"
ok "a symlink named all_gather_perf runs" $?
grep -q "^# bnet coll: allgather, 8 ranks" "$T/ag.txt"
ok "  ... an AllGather on the 8 GPUs -g asked for" $?
grep -q '^# nThread 1 nGpus 8 minBytes 1048576 maxBytes 1048576 step: 2(factor) warmup iters: 0 iters: 1 agg iters: 1 validation: 1 graph: 0$' "$T/ag.txt"
ok "  ... nccl-tests' header line" $?
grep -q '^# Using devices$' "$T/ag.txt" && [[ $(grep -c '^#  Rank  *[0-9]* Group  0 Pid' "$T/ag.txt") -eq 8 ]]
ok "  ... a 'Using devices' line per rank" $?
grep -q '^# Out of bounds values : 0 OK$' "$T/ag.txt" && grep -q '^# Avg bus bandwidth    : [0-9.]* $' "$T/ag.txt"
ok "  ... nccl-tests' two footer lines" $?
$BNET broadcast_perf -g 4 -b 4K -e 4K --json "$T/bc.json" >/dev/null &&
    [[ $(jq -r .collective.op "$T/bc.json") == broadcast ]]
ok "bnet broadcast_perf runs a broadcast" $?
$BNET coll reduce_scatter_perf -g 4 -b 4K -e 4K --json "$T/rs.json" >/dev/null &&
    [[ $(jq -r .collective.op "$T/rs.json") == reducescatter ]]
ok "bnet coll reduce_scatter_perf runs a reduce-scatter" $?

# Long forms are the short ones
short=(-g 8 -b 1K -e 64K -f 4 -n 2 -w 1 -o max -d double -r 0 -c 1)
long=(--ngpus 8 --minbytes 1K --maxbytes 64K --stepfactor 4 --iters 2 --warmup_iters 1 --op max
      --datatype double --root 0 --check 1)
$BNET coll "${short[@]}" --json "$T/s.json" >"$T/s.txt" &&
    $BNET coll "${long[@]}" --json "$T/l.json" >"$T/l.txt"
ok "short and long flags run" $?
diff <(jq -S 'del(.command)' "$T/s.json") <(jq -S 'del(.command)' "$T/l.json") >/dev/null
ok "  ... the same results, key for key" $?

# Fields by position: 13 per row, busbw = algbw x 2(n-1)/n, in place too
rows "$T/s.txt" >"$T/s.rows"
ok "every row has nccl-tests' 13 fields" $?
awk '{ f = 2 * 7 / 8; if ($1 + 0 < 1) exit 1
       tol = 0.005 * f + 0.005 + 1e-9 # both printed to 2 decimals
       if (($4 - $3 * f) ^ 2 > tol ^ 2 || ($8 - $7 * f) ^ 2 > tol ^ 2) exit 1
       if ($5 != 0 || $9 != 0) exit 1 }' "$T/s.rows" && [[ $(wc -l <"$T/s.rows") -eq 4 ]]
ok "  ... busbw = algbw x 2(n-1)/n in both groups, #wrong 0, 1K..64K by 4: 4 rows" $?
jq -e --slurpfile t <(awk '{print "[" $1 "," $4 "," $8 "]"}' "$T/s.rows") \
    '[.rows[] | [.size, (.busbw_gbs*100|round/100), (.in_place.busbw_gbs*100|round/100)]] == $t' \
    "$T/s.json" >/dev/null
ok "  ... fields 1, 8 and 12 are the JSON's size and busbw" $?
$BNET coll "${short[@]}" --bnet-columns >"$T/b.txt"
rows "$T/b.txt" 18 >"$T/b.rows"
ok "--bnet-columns adds five fields (18)" $?
cmp -s "$T/s.rows" "$T/b.rows"
ok "  ... and fields 1-13 stay where they were" $?

# -c 0: #wrong as N/A; -f 1 steps by -i; coll.in_place false: '-' in place
$BNET coll -g 4 -b 1K -e 3K -f 1 -i 1K -c 0 >"$T/c.txt"
[[ $(rows "$T/c.txt" | awk '{print $1, $5, $9}' | tr '\n' ' ') == "1024 N/A N/A 2048 N/A N/A 3072 N/A N/A " ]]
ok "-f 1 -i 1K steps by 1 KiB; -c 0 prints N/A" $?
grep -q 'step: 1024(bytes)' "$T/c.txt" && grep -q 'validation: 0' "$T/c.txt"
ok "  ... and the header says so" $?
$BNET coll -g 4 -b 1K -e 1K --set coll.in_place=false --json "$T/np.json" >"$T/np.txt" &&
    [[ $(rows "$T/np.txt" | awk '{print $6 $7 $8 $9}') == "----" ]] &&
    jq -e '.rows[0] | has("in_place") | not' "$T/np.json" >/dev/null
ok "coll.in_place false: in-place columns '-', no in_place in the JSON" $?

# -d all -o all: each type, each reduction, each size, as nccl-tests runs them
$BNET all_reduce_perf -g 4 -b 1K -e 4K -d all -o all --json "$T/all.json" >"$T/all.txt" &&
    jq -e '(.collective.datatype == "all") and (.collective.redop == "all") and (.rows | length == 150)
           and ([.rows[] | .count * ({"int8":1,"uint8":1,"half":2,"bfloat16":2,"float":4,"double":8,
                 "int32":4,"uint32":4,"int64":8,"uint64":8}[.type]) == .size] | all)
           and ([.rows[].redop] | unique | length == 5) and (.rows[0].type == "int8")
           and (.rows[149] | .type == "uint64" and .redop == "avg")' "$T/all.json" >/dev/null &&
    [[ $(rows "$T/all.txt" | wc -l) -eq 150 ]]
ok "-d all -o all: 10 types x 5 reductions x 3 sizes, count = size / the type's bytes" $?

# The rank count: -t x -g x -N, or --nranks; impossible counts name the nearest
$BNET coll -N 4 -g 8 -b 1M -e 1M --json "$T/n.json" >/dev/null &&
    jq -e '.collective.nranks == 32 and .topology.hosts == 32 and .collective.gpus_per_server == 8' \
    "$T/n.json" >/dev/null
ok "-N 4 -g 8: 32 GPUs in servers of 8" $?
$BNET coll --nranks 512 -b 8 -e 8 --json "$T/r.json" >/dev/null &&
    jq -e '.collective.nranks == 512 and .topology.hosts == 512' "$T/r.json" >/dev/null
ok "--nranks 512: two scalable units" $?
for n in 3 5 7; do # one server of an odd count: its rail leaves fill one spine
    $BNET coll --nranks $n -b 1M -e 1M --json "$T/o.json" >/dev/null &&
        jq -e ".collective.nranks == $n and .rows[0].wrong == 0" "$T/o.json" >/dev/null
    ok "--nranks $n: one server of $n GPUs" $?
done
$BNET coll --nranks 12 >/dev/null 2>"$T/e1"
[[ $? -eq 2 ]] && grep -q "nearest that do: 8 or 16" "$T/e1" && [[ $(wc -l <"$T/e1") -eq 1 ]]
ok "--nranks 12: exit 2 naming 8 or 16" $?
$BNET coll -g 8 -N 40 >/dev/null 2>"$T/e2"
[[ $? -eq 2 ]] && grep -q "256 or 512" "$T/e2"
ok "-g 8 -N 40 (320): exit 2 naming 256 or 512" $?
$BNET coll --nranks 16 -g 8 >/dev/null 2>"$T/e3"
[[ $? -eq 2 ]] && grep -q "not both" "$T/e3"
ok "--nranks with -g: exit 2" $?
$BNET coll -g 0 >/dev/null 2>"$T/e4"
[[ $? -eq 2 ]] && grep -q "option '-g'" "$T/e4"
ok "-g 0: exit 2" $?

# NCCL's variables, under the flags
NCCL_ALGO=Ring $BNET coll -g 8 -b 1K -e 1K --json "$T/ring.json" >/dev/null &&
    [[ $(jq -r '.rows[0].algo' "$T/ring.json") == ring ]]
ok "NCCL_ALGO=Ring forces the ring" $?
NCCL_ALGO=Ring $BNET coll -g 8 -b 1K -e 1K --algo tree --json "$T/tree.json" >/dev/null &&
    [[ $(jq -r '.rows[0].algo' "$T/tree.json") == tree ]]
ok "  ... and --algo has the last word" $?
NCCL_ALGO=NVLS $BNET coll -g 8 -b 1K -e 1K --set scale_up.nvls=true --json "$T/nvls.json" \
    >/dev/null && [[ $(jq -r '.rows[0] | .algo + " " + .nccl.algo' "$T/nvls.json") == "nvls NVLS" ]]
ok "NCCL_ALGO=NVLS runs NVLS (with scale_up.nvls), NCCL's model on it" $?
NCCL_ALGO=NVLS $BNET coll -g 8 -b 1K -e 1K >/dev/null 2>"$T/e6"
[[ $? -eq 2 ]] && grep -q "without scale_up.nvls" "$T/e6"
ok "NCCL_ALGO=NVLS without scale_up.nvls: exit 2 saying so" $?
NCCL_ALGO=Tree $BNET coll -N 2 -g 8 -b 1M -e 1M --json "$T/t2.json" >/dev/null &&
    [[ $(jq -r '.rows[0] | .algo + " " + .nccl.algo' "$T/t2.json") == "tree Tree" ]]
ok "NCCL_ALGO=Tree across servers runs NCCL's tree (chains and a tree), NCCL's model picking the protocol" $?
NCCL_ALGO=PAT $BNET coll -g 8 >/dev/null 2>"$T/e5"
[[ $? -eq 2 ]] && grep -q "NCCL_ALGO 'PAT'" "$T/e5"
ok "NCCL_ALGO=PAT: exit 2 naming it" $?
NCCL_PROTO=LL128 $BNET coll -g 8 -b 1K -e 1K --bnet-columns --json "$T/p.json" >"$T/p.txt" &&
    [[ $(jq -r '.rows[0].proto' "$T/p.json") == ll128 ]] && [[ $(rows "$T/p.txt" 18 | wc -l) -eq 1 ]] &&
    awk '!/^#/ && NF { exit $16 != "ll128" }' "$T/p.txt"
ok "NCCL_PROTO=LL128: the row ran LL128, shown in field 16" $?
NCCL_PROTO=LL $BNET coll -g 8 -b 1K -e 1K --proto simple --json "$T/p2.json" >/dev/null &&
    [[ $(jq -r '.rows[0].proto' "$T/p2.json") == simple ]]
ok "  ... and --proto has the last word" $?
NCCL_PROTO=LL,Simple $BNET coll -g 8 >/dev/null 2>"$T/e9"
[[ $? -eq 2 ]] && grep -q "NCCL_PROTO 'LL,Simple'" "$T/e9"
ok "NCCL_PROTO with a list: exit 2 naming it" $?
NCCL_MAX_NCHANNELS=1 $BNET coll -g 8 -b 1M -e 1M --algo ring --json "$T/c1.json" >/dev/null &&
    [[ $(jq '.rows[0].channels' "$T/c1.json") -eq 1 ]]
ok "NCCL_MAX_NCHANNELS=1: one channel" $?
NCCL_MIN_NCHANNELS=24 $BNET coll -g 8 -b 1M -e 1M --algo ring --json "$T/c4.json" >/dev/null &&
    [[ $(jq '.rows[0].channels' "$T/c4.json") -eq 24 ]]
ok "NCCL_MIN_NCHANNELS=24: 24 channels, above NCCL's 16 for 8 NICs" $?
NCCL_MIN_NCHANNELS=4 $BNET coll -g 8 -b 1M -e 1M --algo ring --json "$T/c16.json" >/dev/null &&
    [[ $(jq '.rows[0].channels' "$T/c16.json") -eq 16 ]]
ok "NCCL_MIN_NCHANNELS=4: NCCL's own 16 stand" $?
NCCL_MIN_NCHANNELS=8 NCCL_MAX_NCHANNELS=4 $BNET coll -g 8 >/dev/null 2>"$T/e6"
[[ $? -eq 2 ]] && grep -q "NCCL_MIN_NCHANNELS 8 is above NCCL_MAX_NCHANNELS 4" "$T/e6"
ok "min above max: exit 2" $?

# coll.tuner: NCCL's model picks and runs; or bnet's pick with NCCL's beside it
$BNET coll -N 2 -g 8 -b 1K -e 64M -f 256 --set coll.tuner=nccl --json "$T/tn.json" >/dev/null &&
    jq -e '[.rows[] | (.nccl.algo | test("^(Tree|Ring)$")) and (.proto == (.nccl.proto | ascii_downcase))
            and ((.nccl.algo == "Ring" and .algo == "ring") or (.nccl.algo == "Tree" and .algo == "tree"))]
           | all' "$T/tn.json" >/dev/null
ok "coll.tuner nccl: each row runs NCCL's pick (its Ring and Tree across servers, its protocol)" $?
$BNET coll -N 2 -g 8 -b 64K -e 64K --set coll.tuner=both --json "$T/tb.json" >/dev/null &&
    jq -e '.rows[0] | (.nccl.time_us > 0) and (has("proto") | not)' "$T/tb.json" >/dev/null
ok "coll.tuner both: bnet's pick ran, NCCL's measured beside it" $?

# -F: the rows as CSV, the JSON's numbers
$BNET coll "${short[@]}" -F "$T/rows.csv" --json "$T/f.json" >/dev/null
ok "-F PATH writes" $?
python3 - "$T/rows.csv" "$T/f.json" <<'EOF'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
js = json.load(open(sys.argv[2]))["rows"]
assert len(rows) == len(js) == 4
for c, j in zip(rows, js):
    assert int(c["size"]) == j["size"] and c["algo"] == j["algo"]
    assert abs(float(c["busbw_gbs"]) - j["busbw_gbs"]) < 1e-6 * j["busbw_gbs"]
    assert abs(float(c["inplace_time_us"]) - j["in_place"]["time_us"]) < 1e-6 * j["in_place"]["time_us"]
EOF
ok "  ... a row per size, the JSON's figures" $?

# The old --op COLL still works, with a warning; host-side flags are counts
$BNET coll -g 4 --op broadcast -b 1K -e 1K --json "$T/op.json" >/dev/null 2>"$T/w" &&
    [[ $(jq -r .collective.op "$T/op.json") == broadcast ]] && grep -q "now --coll broadcast" "$T/w"
ok "--op broadcast: the collective, with a deprecation warning" $?
$BNET coll -g 4 -b 1K -e 1K -z 1 -G 0 -C 1 -a 1 -p 0 -y 0 -T 10 -R 0 -t 1 -m 1 >/dev/null
ok "-z -G -C -a -p -y -T -R -t -m are accepted" $?
$BNET coll -z yes >/dev/null 2>"$T/e7"
[[ $? -eq 2 ]] && grep -q "option '-z': 'yes' is not a count" "$T/e7"
ok "-z yes: exit 2" $?
$BNET coll -m 4 >/dev/null 2>"$T/e8"
[[ $? -eq 2 ]] && grep -q "option '-m'" "$T/e8"
ok "-m 4 (grouped launches, not modelled): exit 2" $?

# --no-seed-report: the table ends with nccl-tests' footer and bnet's bounds,
# no seed's figures after them (a parser reading to the end meets no table)
$BNET coll -g 4 -b 1K -e 1K >"$T/seed.txt" && grep -q "seed's figures" "$T/seed.txt"
ok "the seed's figures follow the table by default" $?
$BNET coll -g 4 -b 1K -e 1K --no-seed-report >"$T/noseed.txt"
rc=$?
[[ $rc -eq 0 ]] && ! grep -q "seed's figures" "$T/noseed.txt" && grep -q "^# Avg bus bandwidth" "$T/noseed.txt" &&
    [[ $(grep -vc '^#' "$T/noseed.txt") -eq $(grep -vc '^#' "$T/seed.txt") ]]
ok "--no-seed-report: the same table and footer, without them" $?
$BNET all_reduce_perf -g 4 -b 1K -e 1K --no-seed-report >"$T/noseed2.txt" &&
    cmp -s <(grep -v '^# simulated in' "$T/noseed.txt") <(grep -v '^# simulated in' "$T/noseed2.txt")
ok "... as all_reduce_perf too" $?
finish
