#!/usr/bin/env bash
# Regenerate every file made from the key registry, in place: the JSON
# Schema, scenarios/default.yaml and its embedded copy, docs/scenario.md's
# key table. Run it after adding, removing or changing a key (build first);
# tests/scenario/test_generated.sh and test_schema.sh fail until then.
# Usage: scripts/gen-all.sh [BNET]   (default build/bnet)
set -euo pipefail
cd "$(dirname "$0")/.."
bnet=$(realpath "${1:-build/bnet}")
# FILE SCRIPT ARGS...: SCRIPT's output (it may read FILE) replaces FILE
gen() {
  local file=$1 tmp
  shift
  tmp=$(mktemp)
  bash "$@" >"$tmp" && mv "$tmp" "$file" || { rm -f "$tmp"; exit 2; }
}
gen docs/schema/scenario.schema.json scripts/gen-schema.sh "$bnet"
gen scenarios/default.yaml scripts/gen-default-scenario.sh "$bnet" yaml
gen src/scenario/default_scenario.c scripts/gen-default-scenario.sh "$bnet" c
gen docs/scenario.md scripts/gen-scenario-doc.sh "$bnet"
echo "regenerated; rebuild (the embedded default scenario is compiled in)" >&2
