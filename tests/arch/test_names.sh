#!/usr/bin/env bash
# No code outside a registry compares a module's name (docs/architecture.md,
# "Names are resolved once"): a string compare (strcmp, strncmp, strcasecmp,
# strstr, memcmp) in src/ may not name a module, algorithm, workload kind,
# flow format, topology builder, fault or job kind, collective or preset
# (the choices of the module keys and every ops table's .name), nor compare
# what a registry's name function returns. What callers need is a flag or
# field on the ops. The exceptions are the lookups themselves, listed below
# as file:function.
# Usage: tests/arch/test_names.sh BNET
set -uo pipefail
source tests/cli/lib.sh

# the registries' lookups, the scenario parser's, and readers of other
# tools' files, whose words are theirs (nccl-tests' redop "none")
allowed=(
  src/scenario/keys.c:bn_scn_item_field
  src/calib/nccl_tests_log.c:op_of_factor
)

# The names: every module key's choices ("auto" is no module), every .name
module_keys='fabric topology.kind link.flow_control switch.load_balancing nic.encap nic.transport
  nic.congestion_control workload.kind workload.flow_format routing.control_plane faults[].kind
  jobs[].kind coll.op coll.algo coll.proto coll.tuner'
"$BNET" keys --json >"$T/keys.json"
ok "bnet keys --json" $?
jq -r --arg keys "$module_keys" '($keys | split("\\s+"; null)) as $k
  | .keys[] | select(.path as $p | $k | index($p)) | .choices[]' "$T/keys.json" >"$T/names"
grep -rhoE '\.name = "[A-Za-z0-9_-]+"' src | sed -E 's/.*"(.*)"/\1/' >>"$T/names"
sort -u "$T/names" | grep -vx auto >"$T/names.u"
test "$(wc -l <"$T/names.u")" -gt 50
ok "module names known ($(wc -l <"$T/names.u"))" $?
names=$(sed 's/-/\\-/g' "$T/names.u" | paste -sd'|')

# file:line:function:text of each compare that names one; the function is the
# last definition opening at column 0 above it
for f in $(find src -name '*.c' -not -path 'src/cli/*' -not -path 'src/plot/*' | sort); do
  awk -v f="$f" -v names="$names" '
    /^[a-z].*[ *]\**[a-z_][a-z0-9_]*\(/ && !/;[ \t]*$/ {
      fn = $0; sub(/\(.*/, "", fn); sub(/.*[ *]/, "", fn) }
    /(^|[^a-z0-9_])(strn?(case)?cmp|strstr|memcmp)\(/ {
      if ($0 ~ "\"(" names ")\"" || $0 ~ /(^|[^a-z0-9_])bn_[a-z0-9_]*_name\(/) print f ":" NR ":" fn ":" $0 }
  ' "$f"
done >"$T/found"

bad=0
while IFS=: read -r file line fn text; do
  [[ " ${allowed[*]} " == *" $file:$fn "* ]] && continue
  echo "FAIL  $file:$line ($fn) compares a module's name:$text"
  bad=1
done <"$T/found"
ok "no name compares outside the registries (${#allowed[@]} allowed)" $bad

# every allowed entry still compares something (a stale one hides nothing)
stale=0
for a in "${allowed[@]}"; do
  grep -q "^${a%%:*}:[0-9]*:${a#*:}:" "$T/found" || { echo "stale allow-list entry $a"; stale=1; }
done
ok "the allow-list is current" $stale
finish
