#!/usr/bin/env bash
# The public API: each header of include/bnet/ compiles on its own in C17
# (-pedantic) and C++17; libbnet.so exports exactly the functions they
# declare (src/libbnet.map names each of them and nothing else); a C++
# program links every one of them (the headers' extern "C").
# Usage: tests/packaging/test_api.sh BNET BUILD_DIR
set -uo pipefail
source tests/cli/lib.sh
build=$2

inc=(-Iinclude -I"$build/include")
for h in include/bnet/*.h; do
  echo "#include \"bnet/${h##*/}\"" | cc -std=c17 -Wall -Wextra -Werror -pedantic -fsyntax-only "${inc[@]}" -x c -
  ok "${h##*/} compiles alone as C17" $?
  echo "#include \"bnet/${h##*/}\"" | c++ -std=c++17 -Wall -Wextra -Werror -fsyntax-only "${inc[@]}" -x c++ -
  ok "${h##*/} compiles alone as C++17" $?
done

# declarations in include/bnet/*.h, as gcc itself lists them (-aux-info)
{ for h in include/bnet/*.h; do echo "#include \"bnet/${h##*/}\""; done; } >"$T/all.c"
cc -std=c17 -fsyntax-only "${inc[@]}" -aux-info "$T/aux" "$T/all.c"
ok "public headers compile together" $?
grep -E 'include/bnet/[a-z0-9_]+\.h:' "$T/aux" | grep -oE '\bbn_[a-z0-9_]+ \(' | tr -d ' (' | sort -u >"$T/declared"
sed -n 's/^ *\(bn_[a-z0-9_]*\);$/\1/p' src/libbnet.map | sort -u >"$T/mapped"
nm -D --defined-only "$build/libbnet.so" | awk '$2 == "T" {sub(/@.*/, "", $3); print $3}' |
  sort -u >"$T/exported"

test -s "$T/declared" && diff -u "$T/declared" "$T/mapped"
ok "src/libbnet.map lists exactly the declared functions ($(wc -l <"$T/declared"))" $?
diff -u "$T/declared" "$T/exported"
ok "libbnet.so exports exactly them" $?
nm -D --defined-only "$build/libbnet.so" | awk '$2 != "T" && $2 != "A"' | grep . && st=1 || st=0
ok "and no data symbol" $st
# C++ takes each function's address: a name mangled for want of extern "C"
# would not link
{
  cat "$T/all.c"
  echo 'static void use(void (*f)()) { volatile bool keep = f != nullptr; (void)keep; }'
  echo 'int main() {'
  sed 's/.*/    use(reinterpret_cast<void (*)()>(\&&));/' "$T/declared"
  echo '    return bn_version()[0] == 0;'
  echo '}'
} >"$T/all.cc"
c++ -std=c++17 -Wall -Werror "${inc[@]}" -o "$T/all_cc" "$T/all.cc" -L"$build" -lbnet -Wl,-rpath,"$build" &&
  "$T/all_cc"
ok "a C++ program links all $(wc -l <"$T/declared") functions" $?
finish
