#!/usr/bin/env bash
#
# Results say what was simulated: every JSON result carries the command
# (without its output options, so the same run gives the same file
# whatever it is written to) and the scenario as it ran, every key after
# presets and --set, so two results diff to the keys that differ. `bnet
# keys --json` and `bnet presets --json` list the registry and presets.
#
#   bash tests/cli/test_provenance.sh PATH_TO_BNET
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"$BNET" run --set topology.k=4 --json "$T/a.json" --quiet
"$BNET" run --quiet --set topology.k=4 --json="$T/b.json"
check "the command, without output options" "$T/a.json" '.command == "bnet run --set topology.k=4"'
check "the config: every key as it ran" "$T/a.json" \
    '.config["topology.k"] == 4 and .config["topology.kind"] == "fat_tree" and .config.seed == 1'
[ "$(jq -S .config "$T/a.json")" = "$(jq -S .config "$T/b.json")" ]
ok "the same run's config, whatever the flags' order" $?

"$BNET" run --set topology.k=4 --set link.rate_gbps=200 --json "$T/c.json" --quiet
diffs=$(jq -n --slurpfile a "$T/a.json" --slurpfile c "$T/c.json" \
    '[$a[0].config | to_entries[] | select(.value != $c[0].config[.key]) | .key] | join(",")')
[ "$diffs" = '"link.rate_gbps"' ]
ok "two results' configs differ in the key that was changed ($diffs)" $?

"$BNET" p2p -n 5 --set fabric=roce-400g --json "$T/p.json" >/dev/null
check "presets resolved: roce-400g's NIC keys" "$T/p.json" \
    '.config.fabric == "roce-400g" and .config["nic.encap"] == "roce" and .config["nic.tx_ns"] == 125'

"$BNET" run scenarios/fault_link_ib_sm.yaml --json "$T/f.json" --quiet
check "faults: one object per given fault" "$T/f.json" \
    '(.config.faults | length) >= 1 and (.config.faults[0] | has("kind") and has("at_us"))'

"$BNET" keys --json >"$T/keys.json"
n=$("$BNET" keys | tail -n +2 | wc -l)
check "keys --json: every key of bnet keys ($n)" "$T/keys.json" ".keys | length == $n"
check "keys --json: an enum key lists its choices" "$T/keys.json" \
    '.keys[] | select(.path == "host.memory") | .choices == ["host", "gpu"]'
"$BNET" presets --json "$T/presets.json"
check "presets --json: each preset with the keys it sets" "$T/presets.json" \
    '.presets[] | select(.name == "ib-ndr") | .sets["link.rate_gbps"] == "400"'

finish
