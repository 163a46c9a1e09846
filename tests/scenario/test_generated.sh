#!/usr/bin/env bash
# The files generated from the key registry are what their scripts make of
# this bnet: scenarios/default.yaml and its embedded copy
# (scripts/gen-default-scenario.sh), docs/scenario.md's key table
# (scripts/gen-scenario-doc.sh). (The JSON Schema: test_schema.sh.) A
# failure names the script to run: scripts/gen-all.sh regenerates all.
# Usage: tests/scenario/test_generated.sh BNET
set -uo pipefail
source tests/cli/lib.sh

same() { # NAME FILE SCRIPT ARGS...: FILE is SCRIPT's output
  local name=$1 file=$2
  shift 2
  bash "$@" >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" -eq 0 ] || cat "$T/err"
  diff -u "$file" "$T/out" >"$T/diff"
  drc=$?
  [ "$drc" -eq 0 ] || head -n 20 "$T/diff"
  ok "$name is $1's output (scripts/gen-all.sh)" $((rc | drc))
}

same "scenarios/default.yaml" scenarios/default.yaml scripts/gen-default-scenario.sh "$BNET" yaml
same "src/scenario/default_scenario.c" src/scenario/default_scenario.c \
  scripts/gen-default-scenario.sh "$BNET" c
same "docs/scenario.md" docs/scenario.md scripts/gen-scenario-doc.sh "$BNET"

# A key the registry has and the files do not gets its line and its row;
# one they have and the registry lacks is gone (a stand-in bnet whose keys
# --json drops topology.k and whose --markdown adds a key).
cat >"$T/bnet" <<SH
#!/usr/bin/env bash
if [ "\$2" = --json ]; then
  "$BNET" keys --json | jq '.keys |= (map(select(.path != "topology.k")) + [{path: "sharp.extra", type: "string", unit: "", default: "a b", doc: "x"}])'
else
  "$BNET" keys --markdown
  echo '| \`sharp.extra\` | int | - | \`0\` | Made up. Choices: \`x\`. |'
fi
SH
chmod +x "$T/bnet"
bash scripts/gen-default-scenario.sh "$T/bnet" yaml >"$T/y" 2>&1
grep -q '^  k: ' "$T/y"
[ $? -ne 0 ] && tail -n 1 "$T/y" | grep -qx '  extra: "a b"'
ok "a key added to the registry gets its line, one removed loses it" $?
bash scripts/gen-scenario-doc.sh "$T/bnet" >"$T/d" 2>&1
grep -qx '| `sharp.extra` | int | - | `0` | Made up. Choices: `x`. |' "$T/d"
ok "a key added to the registry gets its row in docs/scenario.md" $?
# The lists' commented examples in scenarios/default.yaml are kept by hand
# (the generator keeps their lines): each list's "kind" comment names every
# choice of its registry, and no other (a kind added to src/fault or to the
# jobs' kinds must be named there, and in docs/scenario.md's row).
for list in faults jobs; do
  want=$("$BNET" keys --json | jq -r --arg p "$list[].kind" '.keys[] | select(.path == $p) | .choices[]' | sort)
  got=$(awk -v l="$list" '
    $1 == l":" { on = 1; next }
    on && /^  # - kind:/ { sub(/^[^#]*#[^#]*# */, ""); print; more = 1; next }
    on && more && /^  #  +# / { sub(/^[^#]*#[^#]*# */, ""); print; next }
    on { more = 0 }
    /^[a-z]/ { on = 0 }' scenarios/default.yaml | tr '|' '\n' | tr -d ' ' | grep -v '^$' | sort)
  [ -n "$want" ] && [ "$want" = "$got" ]
  ok "scenarios/default.yaml's $list[].kind comment names the registry's kinds" $?
  row=$(grep -F "| \`$list[].kind\` |" docs/scenario.md | sed 's/Choices:.*//')
  missing=0
  for k in $want; do grep -qw -- "$k" <<<"$row" || { echo "  docs/scenario.md's $list[].kind row: no $k"; missing=1; }; done
  ok "docs/scenario.md's $list[].kind row tells of every kind" $missing
done
finish
