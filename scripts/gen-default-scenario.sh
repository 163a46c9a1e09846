#!/usr/bin/env bash
# Write the default scenario from the key registry (`bnet keys --json`):
# every key in the registry's order, a section's keys gathered where its
# first key is, each a line "key: default". The comment a key's line carries (a few words,
# shorter than its doc), a section's heading comment, a key shown commented
# out (one whose default is another key's or a formula) and the examples of
# the faults[] and jobs[] lists are the lines scenarios/default.yaml already
# has for them; a key it lacks gets its default and no comment. `c` writes
# the embedded copy (src/scenario/default_scenario.c) of the same text.
# tests/scenario/test_generated.sh fails when a checked-in file and this
# script's output differ.
# Usage: scripts/gen-default-scenario.sh BNET yaml|c   (to stdout; it reads
#        scenarios/default.yaml, so write elsewhere first: scripts/gen-all.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
case ${2:-} in yaml | c) ;; *) echo "usage: $0 BNET yaml|c" >&2; exit 2 ;; esac
keys=$(mktemp)
trap 'rm -f "$keys"' EXIT
"$1" keys --json >"$keys"
python3 - "$2" "$root/scenarios/default.yaml" "$keys" <<'PY'
import json, re, sys

what, path = sys.argv[1], sys.argv[2]
keys = json.load(open(sys.argv[3]))["keys"]
old = open(path).read().split("\n")
COL = 32  # where a line comment starts

# The current file: its header, each key's and section's line, each list
# section's block, by dotted path ("switch.ecn.kmin_bytes", "faults[]").
header, line_of, block_of, stack = [], {}, {}, []
i = 0
while i < len(old) and not re.match(r"^[a-z]", old[i]):
    header.append(old[i])
    i += 1
for n in range(i, len(old)):
    m = re.match(r"^( *)(# )?([a-z_0-9]+):( |$)", old[n])
    if not m or (m.group(2) and not m.group(1)):
        continue
    depth = len(m.group(1)) // 2
    stack = stack[:depth] + [m.group(3)]
    p = ".".join(stack)
    line_of.setdefault(p, old[n])
    if old[n].startswith(m.group(3) + ": []"):  # a list: its line and its example
        end = n + 1
        while end < len(old) and old[end].startswith("  #"):
            end += 1
        block_of[p + "[]"] = old[n:end]

def value(k):
    return json.dumps(k["default"]) if k["type"] == "string" else k["default"]

def put(out, indent, name, k):
    text = "  " * indent + name + ": " + value(k)
    if k["default"].startswith("="):  # set by another key: shown, commented out
        text = "  " * indent + "# " + name + ":"
        text = text.ljust(COL) + "# default: " + k["default"][1:].strip()
    out.append(text)

# The registry order, each section (and sub-section) gathered where its
# first key is: a YAML mapping holds its keys together.
first = {}
for n, k in enumerate(keys):
    parts = k["path"].split(".")
    for d in range(len(parts)):
        first.setdefault(".".join(parts[: d + 1]), n)
keys.sort(key=lambda k: [first[".".join(k["path"].split(".")[: d + 1])]
                         for d in range(len(k["path"].split(".")))])

out = list(header)
done, opened, prev_top, prev_section = set(), [], None, False
for k in keys:
    p = k["path"]
    parts = p.split(".")
    if parts[0] != prev_top:  # a blank line around each section
        if prev_top is not None and (len(parts) > 1 or prev_section):
            out.append("")
        prev_top, prev_section, opened = parts[0], len(parts) > 1, []
    if parts[0].endswith("[]"):  # a list: its block once, missing fields appended
        if parts[0] in done:
            continue
        done.add(parts[0])
        block = block_of.get(parts[0]) or [parts[0][:-2] + ": []"]
        out += block
        have = "\n".join(block)
        for f in (x for x in keys if x["path"].startswith(parts[0] + ".")):
            name = f["path"][len(parts[0]) + 1:]
            if not re.search(r"#\s+(- )?" + re.escape(name) + ":", have):
                out.append("  #   " + name + ": " + value(f))
        continue
    common = 0
    while common < min(len(opened), len(parts) - 1) and opened[common] == parts[common]:
        common += 1
    for d in range(common, len(parts) - 1):
        out.append(line_of.get(".".join(parts[: d + 1]), "  " * d + parts[d] + ":"))
    opened = parts[:-1]
    if p in line_of:
        out.append(line_of[p])
    else:
        put(out, len(parts) - 1, parts[-1], k)

text = "\n".join(out).rstrip("\n") + "\n"
if what == "yaml":
    sys.stdout.write(text)
else:
    body = "\n".join("    \"" + l.replace("\\", "\\\\").replace("\"", "\\\"") + "\\n\""
                     for l in text.split("\n")[:-1])
    sys.stdout.write("""/*
 * The embedded default scenario, returned by bn_scenario_default_yaml(). It is
 * the same text as scenarios/default.yaml (scripts/gen-default-scenario.sh
 * writes both from the key registry) and loads to exactly
 * bn_scenario_defaults(), so `bnet` runs without any file.
 */
#include "bnet/scenario.h"

static const char default_yaml[] =
""" + body + """;

const char *bn_scenario_default_yaml(void)
{
    return default_yaml;
}
""")
PY
