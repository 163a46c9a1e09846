#!/usr/bin/env bash
# The JSON Schemas of docs/schema/: scenario.schema.json is what
# scripts/gen-schema.sh makes of this bnet's key registry (so it cannot
# drift), every shipped scenario is valid against it and a wrong key, type
# or choice is not; compare.schema.json holds a real bnet compare result.
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
import json, sys, yaml, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
check = jsonschema.Draft202012Validator(schema)
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

"$BNET" compare --set topology.kind=leaf_spine --set topology.k=4 -j 2 --json "$T/c.json" >/dev/null
validate docs/schema/compare.schema.json "$T/c.json" >"$T/c.out"
grep -q ' valid$' "$T/c.out" || cat "$T/c.out"
ok "a bnet compare result is valid against compare.schema.json" $?
jq '.fabrics[0].incast.victim.line_rate_pct = 120' "$T/c.json" >"$T/c_bad.json"
validate docs/schema/compare.schema.json "$T/c_bad.json" | grep -q invalid
ok "... and one with a victim above line rate is not" $?
finish
