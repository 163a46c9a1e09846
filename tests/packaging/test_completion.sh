#!/usr/bin/env bash
# The bash completion (packaging/bnet.bash) offers the commands, a command's
# flags, scenario keys after --set, an enum's choices and preset names after
# KEY=, presets in --fabrics, and scenario files.
# Usage: tests/packaging/test_completion.sh BNET [BUILD_DIR]
set -uo pipefail
source tests/cli/lib.sh
source packaging/bnet.bash

# offers LINE WORD...: completing at the end of LINE offers each WORD
offers() {
    local line=$1 w st=0
    shift
    COMP_LINE=$line COMP_POINT=${#line}
    read -ra COMP_WORDS <<<"$line"
    COMP_WORDS[0]=$BNET
    COMPREPLY=()
    _bnet
    for w in "$@"; do
        [[ " ${COMPREPLY[*]} " == *" $w "* ]] || { echo "  '$line' did not offer '$w': ${COMPREPLY[*]}"; st=1; }
    done
    ok "'$line' offers $*" $st
}
# nothing LINE: it offers nothing
nothing() {
    COMP_LINE=$1 COMP_POINT=${#1}
    COMPREPLY=()
    _bnet
    ((${#COMPREPLY[@]} == 0))
    ok "'$1' offers nothing (${COMPREPLY[*]})" $?
}

COMP_WORDBREAKS=$' \t\n"\'><=;|&(:'
offers "bnet " run coll job compare p2p topo plot report keys presets help version
offers "bnet co" coll compare
offers "bnet run --" --set --seed --json --csv --reproducible --quiet --fidelity
offers "bnet coll -" -b -e -f --algo --op --channels
offers "bnet p2p --" --report_gbits --no-seed-report --mtu
offers "bnet p2p --te" --test
offers "bnet keys --" --json
offers "bnet run --set link.ra" link.rate_gbps=
offers "bnet run --set fabric=ib" ib-ndr ib-xdr
offers "bnet run --set sim.fidelity=" packet flow
offers "bnet run --set topology.kind=" fat_tree leaf_spine rail_optimized
offers "bnet compare --fabrics ib-ndr,ro" ib-ndr,roce-400g
offers "bnet run scenarios/leaf_spine_in" scenarios/leaf_spine_incast.yaml
offers "bnet help c" coll compare
offers "bnet help v" version
nothing "bnet run --set no.such.key=x"
nothing "bnet run --zz"
# without '=' in COMP_WORDBREAKS, a value comes with its key
COMP_WORDBREAKS=$' \t\n'
offers "bnet run --set fabric=uec" fabric=uec-800g
finish
