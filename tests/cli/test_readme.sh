#!/usr/bin/env bash
#
# The README's "Using it" block works as written on a fresh build: every
# command calls build/bnet (plain 'bnet' is not on PATH after
# scripts/run.sh), and each help or listing command it shows succeeds.
#
#   bash tests/cli/test_readme.sh PATH_TO_BNET
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BNET=$1
block=$(awk '/^## Using it/ { on = 1 } on && /^```sh/ { inside = 1; next }
             inside && /^```/ { exit } inside { print }' "$ROOT/README.md")
fail=0
if [ -z "$block" ]; then
    echo "FAIL  no \`\`\`sh block under '## Using it' in README.md"
    exit 1
fi
while IFS= read -r line; do
    [ -n "$line" ] || continue
    case $line in
    "build/bnet"|"build/bnet "*) ;;
    *) echo "FAIL  README command does not call build/bnet: $line"; fail=1 ;;
    esac
done <<<"$block"
# the listing and help commands run as shown (the others simulate)
for args in "keys" "presets" "help coll" "help run" "help p2p" "help compare" "help topo" "help keys" "help presets"; do
    # shellcheck disable=SC2086
    if ! "$BNET" $args >/dev/null 2>&1; then
        echo "FAIL  bnet $args"
        fail=1
    fi
done
[ "$fail" -eq 0 ] && echo "README 'Using it' block: ok"
exit "$fail"
