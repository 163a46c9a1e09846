#!/usr/bin/env bash
# The JSON Schemas of docs/schema/: scenario.schema.json is what
# scripts/gen-schema.sh makes of this bnet's key registry (so it cannot
# drift), every shipped scenario is valid against it and a wrong key, type
# or choice is not; each command's schema holds real results of it (small
# runs of each kind) and refuses a broken one.
# Validated with Debian's python3-jsonschema (Draft 2020-12).
# Usage: tests/scenario/test_schema.sh BNET
set -uo pipefail
source tests/cli/lib.sh
PY=/usr/bin/python3
"$PY" -c 'import jsonschema, yaml' 2>/dev/null ||
  { echo "FAIL  no python3-jsonschema or python3-yaml: scripts/need-packages.sh python3-jsonschema python3-yaml"; exit 1; }

scripts/gen-schema.sh "$BNET" >"$T/scenario.schema.json"
diff -q docs/schema/scenario.schema.json "$T/scenario.schema.json" >/dev/null
ok "docs/schema/scenario.schema.json is scripts/gen-schema.sh's output (regenerate it)" $?

# validate SCHEMA FILE...: one line per file, "valid" or its first error
validate() {
  "$PY" - "$@" <<'PY'
import glob, json, os, sys, yaml, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
# a schema may refer to another of its folder ("run.schema.json#/$defs/summary")
store = {s["$id"]: s for s in (json.load(open(f)) for f in
         glob.glob(os.path.join(os.path.dirname(sys.argv[1]), "*.schema.json")))}
check = jsonschema.Draft202012Validator(
    schema, resolver=jsonschema.RefResolver.from_schema(schema, store=store))
for path in sys.argv[2:]:
    doc = yaml.safe_load(open(path))
    err = next(iter(sorted(check.iter_errors(doc), key=lambda e: list(e.path))), None)
    print(path, "valid" if err is None else "invalid: %s: %s" % (list(err.path), err.message[:120]))
PY
}

validate docs/schema/scenario.schema.json scenarios/*.yaml >"$T/shipped"
bad=$(grep -v ' valid$' "$T/shipped")
[[ -z $bad ]] || echo "$bad"
ok "every shipped scenario is valid ($(grep -c ' valid$' "$T/shipped") files)" $([[ -z $bad ]] && echo 0 || echo 1)

printf 'topology:\n  kk: 4\n' >"$T/unknown.yaml"
printf 'link:\n  flow_control: magic\n' >"$T/choice.yaml"
printf 'switch:\n  trim: 7\n' >"$T/type.yaml"
printf 'nic:\n  mtu_bytes: "4096"\n' >"$T/quoted.yaml"
printf 'faults:\n  - kind: link_down\n    when: 5\n' >"$T/item.yaml"
printf 'workload:\n  message_bytes: 1MiB\n  messages: 4\n  start_us: 2.5e1\nsim:\n  prefetch: off\n' >"$T/good.yaml"
validate docs/schema/scenario.schema.json "$T"/{unknown,choice,type,quoted,item,good}.yaml >"$T/cases"
for f in unknown choice type quoted item; do
  grep -q "$f.yaml invalid" "$T/cases"
  ok "$f.yaml is invalid, as bnet refuses it" $?
  "$BNET" run "$T/$f.yaml" --quiet >/dev/null 2>&1
  [[ $? -eq 2 ]]
  ok "... and bnet run refuses it (exit 2)" $?
done
grep -q "good.yaml valid" "$T/cases" && "$BNET" topo "$T/good.yaml" >/dev/null 2>&1
ok "suffixed sizes and YAML's off are valid, for bnet too" $?

# results: NAME SCHEMA ARGS...: bnet ARGS --json NAME.json, valid against SCHEMA
SMALL=(--set topology.kind=leaf_spine --set topology.k=4 --set scale_up.domain_gpus=0)
result() {
  local name=$1 schema=$2
  shift 2
  "$BNET" "$@" --json "$T/$name.json" >/dev/null 2>"$T/$name.err" || { cat "$T/$name.err"; return 1; }
  validate "docs/schema/$schema.schema.json" "$T/$name.json" >"$T/$name.out"
  grep -q ' valid$' "$T/$name.out" || { cat "$T/$name.out"; return 1; }
}
J=jobs
JOBS=(--set topology.kind=fat_tree --set topology.k=4 --set topology.gpus_per_server=4
      --set scale_up.domain_gpus=4 --set $J.0.tp=4 --set $J.0.dp=2 --set $J.0.layers=2
      --set $J.0.hidden=1024 --set $J.0.ffn_hidden=4096 --set $J.0.heads=16 --set $J.0.seq_len=512
      --set $J.0.vocab=8192 --set $J.0.global_batch=0 --set $J.0.alone=true
      --set $J.1.kind=inference --set $J.1.tp=2 --set $J.1.dp=2 --set $J.1.layers=2
      --set $J.1.hidden=1024 --set $J.1.ffn_hidden=4096 --set $J.1.heads=16 --set $J.1.seq_len=256
      --set $J.1.vocab=8192 --set $J.1.iterations=3
      --set $J.2.kind=background --set $J.2.gpus=4 --set $J.2.bytes=100000)
cases=(
  "run1 run run --quiet --set topology.k=4"
  "run2 run run scenarios/leaf_spine_incast.yaml --quiet --set topology.k=4 --set workload.incast_senders=4"
  "run3 run run scenarios/fault_link_local.yaml --quiet"
  "topo1 topo topo"
  "topo2 topo topo scenarios/cluster128.yaml --paths 0,8 --set cost.switch_usd=1000"
  "coll1 coll coll ${SMALL[*]} -b 1K -e 1M -f 4"
  "coll2 coll coll ${SMALL[*]} --coll alltoall -b 1K -e 64K"
  "p2p1 p2p p2p"
  "p2p2 p2p p2p --test write_bw -s 4096 -n 100"
  "job1 job job ${JOBS[*]}"
  "compare1 compare compare ${SMALL[*]} -j 2"
  "sweep1 sweep sweep --set topology.k=4 --vary workload.message_bytes=10KB,20KB --seeds 1-2"
)
for c in "${cases[@]}"; do
  read -r name schema args <<<"$c"
  # shellcheck disable=SC2086
  result $c
  ok "bnet ${args:0:70}: valid against $schema.schema.json" $?
done

# a comparison a signal cut short: its columns not measured have 0 figures
jq '.interrupted = true | .fabrics[1] |= (.interrupted = true | .port_gbps = 0)' \
  "$T/compare1.json" >"$T/cut.json"
[[ $(validate docs/schema/compare.schema.json "$T/cut.json") == *" valid" ]]
ok "an interrupted compare result, a column not measured, is valid" $?

# broken results are refused
jq '.fabrics[0].incast.victim.line_rate_pct = 120' "$T/compare1.json" >"$T/bad1.json"
jq '.summary.flows = -1' "$T/run1.json" >"$T/bad2.json"
jq 'del(.rows[0].busbw_gbs)' "$T/coll1.json" >"$T/bad3.json"
jq '.topology.hosts = "16"' "$T/topo1.json" >"$T/bad4.json"
jq '.points[1].summary.flows = -1' "$T/sweep1.json" >"$T/bad5.json"
jq '.fabrics[0].port_gbps = 0' "$T/compare1.json" >"$T/bad6.json" # measured, not interrupted
for b in compare:bad1 run:bad2 coll:bad3 topo:bad4 sweep:bad5 compare:bad6; do
  [[ $(validate "docs/schema/${b%%:*}.schema.json" "$T/${b#*:}.json") == *invalid* ]]
  ok "a broken ${b%%:*} result is invalid" $?
done
finish
