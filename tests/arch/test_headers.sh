#!/usr/bin/env bash
# Every internal header of src/ compiles alone (it includes what it uses:
# link/telemetry.h, scenario.h's users need no workaround include), as
# tests/packaging/test_api.sh checks the public ones; and the library keeps
# no mutable static (sweep.c's point scenario was the last), but for the
# process-wide hooks listed below (signal flags, the warning handler).
# Usage: tests/arch/test_headers.sh BNET
set -uo pipefail
source tests/cli/lib.sh
build=$(dirname "$BNET")

inc=(-Iinclude -I"$build/include" -Isrc -I"$build/gen")
bad=0 n=0
for h in $(find src -name '*.h' -not -path 'src/cli/*' -not -path 'src/plot/*' | sort); do
  n=$((n + 1))
  echo "#include \"${h#src/}\"" | cc -std=c17 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L \
    -fsyntax-only "${inc[@]}" -x c - 2>"$T/err" || { echo "FAIL  $h:"; cat "$T/err"; bad=1; }
done
ok "the $n internal headers compile alone" $bad

grep -rn 'uses size_t without' src include >"$T/workaround"
test ! -s "$T/workaround" || cat "$T/workaround"
ok "no include works around bnet/scenario.h" $(test ! -s "$T/workaround"; echo $?)

# a static variable (not const, not a function): file:line
allowed=(src/core/interrupt.c src/core/warn.c src/core/output.c) # signal flags, the warning hook
grep -rnE '^\s*static\s+[^(]*(=|;)\s*(/\*.*)?$' src --include=*.c --include=*.h |
  grep -vE '^src/(cli|plot)/' | grep -vE '\bconst\b|static inline' >"$T/statics"
st=0
while IFS=: read -r file line text; do
  [[ " ${allowed[*]} " == *" $file "* ]] && continue
  echo "FAIL  $file:$line keeps a mutable static:$text"
  st=1
done <"$T/statics"
ok "no mutable static in the library (${#allowed[*]} files of hooks allowed)" $st
finish
