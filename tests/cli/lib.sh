# What the shell tests share (sourced, not run): BNET made absolute, a
# scratch directory T removed on exit, ok NAME STATUS and check NAME FILE
# JQ_TEST counting passes and failures, refused NAME WANT ARGS... for bad
# input, and finish printing the count (its status is the test's).
BNET=$1
case $BNET in /*) ;; *) BNET=$PWD/$BNET ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/bnet-test.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

ok() {
    if [ "$2" -eq 0 ]; then
        echo "ok    $1"
        pass=$((pass + 1))
    else
        echo "FAIL  $1"
        fail=$((fail + 1))
    fi
}

check() {
    jq -e "$3" "$2" >/dev/null 2>&1
    ok "$1" $?
}

# refused NAME WANT ARGS...: bnet ARGS must exit 2 with one line on
# stderr, and that line must hold WANT
refused() {
    local name=$1 want=$2
    shift 2
    "$BNET" "$@" --quiet >/dev/null 2>"$T/err"
    local st=$?
    [[ $st -eq 2 ]] && grep -q -- "$want" "$T/err" && [[ $(wc -l <"$T/err") -eq 1 ]]
    ok "$name: exit 2 naming $want (got $st: $(head -1 "$T/err"))" $?
}

finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
