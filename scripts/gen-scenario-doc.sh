#!/usr/bin/env bash
# Write docs/scenario.md with its key table generated from the key registry
# (`bnet keys --markdown`): every key, in the registry's order, with its
# type, unit, default and choices as bnet has them. A key's meaning is the
# prose the table already gives it (longer than the registry's one-line doc,
# with links), else the registry's doc; its "Choices: ..." are bnet's, or
# the prose's own where that names every one of them. Only the part between the markers "<!-- keys: ... -->" and
# "<!-- end of keys -->" changes. tests/scenario/test_generated.sh fails
# when the file and this script's output differ.
# Usage: scripts/gen-scenario-doc.sh BNET [DOC]   (to stdout; scripts/gen-all.sh
#        writes it in place)
set -euo pipefail
bnet=$1
doc=${2:-$(dirname "$0")/../docs/scenario.md}
table=$(mktemp)
trap 'rm -f "$table"' EXIT
"$bnet" keys --markdown >"$table"
grep -q '^<!-- keys: ' "$doc" && grep -q '^<!-- end of keys -->$' "$doc" ||
  { echo "gen-scenario-doc.sh: $doc has no <!-- keys: ... --> / <!-- end of keys --> markers" >&2; exit 2; }
awk -v table="$table" '
  # a row "| `path` | type | unit | `default` | meaning |": its path, and its
  # meaning without the trailing " Choices: `a`, `b`." (set apart in choices)
  function parse(row,    rest, i) {
    path = row; sub(/^\| `/, "", path); sub(/`.*/, "", path)
    rest = row
    for (i = 0; i < 5; i++) sub(/^[^|]*\|/, "", rest) # past "| key | type | unit | default |"
    sub(/^ /, "", rest); sub(/ \|$/, "", rest)
    choices = ""
    if (match(rest, / Choices: (`[^`]*`(, )?)+\.$/)) {
      choices = substr(rest, RSTART); rest = substr(rest, 1, RSTART - 1)
    }
    meaning = rest
    head = substr(row, 1, length(row) - length(rest choices) - 2) # "| ... | "
  }
  # whether text names (`x`) every choice of the list "Choices: `a`, `b`."
  function names_all(text, list,    c) {
    while (match(list, /`[^`]*`/)) {
      c = substr(list, RSTART, RLENGTH); list = substr(list, RSTART + RLENGTH)
      if (!index(text, c)) return 0
    }
    return 1
  }
  /^<!-- keys: / { print; inside = 1; next }
  /^<!-- end of keys -->$/ {
    while ((getline row < table) > 0) {
      if (row !~ /^\| `/) { print row; continue }
      parse(row)
      text = path in prose ? prose[path] : meaning
      at = index(text, " Choices: ")
      if (choices != "" && at) { # the prose says its own choices: all of them, or bnet'"'"'s
        if (names_all(text, choices)) choices = ""; else text = substr(text, 1, at - 1)
      }
      print head text choices " |"
    }
    inside = 0
  }
  inside { if ($0 ~ /^\| `/) { parse($0); prose[path] = meaning }; next }
  { print }
' "$doc"
