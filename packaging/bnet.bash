# bash completion for bnet: commands, each command's flags, scenario keys
# after --set, their choices and the preset names after KEY=, presets after
# --fabrics, YAML files; JSON result files after plot, folders after --plot.
# Everything is read from the command itself (bnet --help, help CMD, keys,
# presets), so it follows the version installed.

# The words up to the cursor, split on blanks only: bash's own words break
# at '=', which would hide the key of --set KEY=VALUE.
_bnet_words()
{
    local line=${COMP_LINE:0:COMP_POINT}
    read -ra _bnet_w <<<"$line"
    [[ -z $line || $line == *[[:space:]] ]] && _bnet_w+=("")
}

# COMPREPLY = the words of $1 (blank-separated) that start with $2.
_bnet_offer()
{
    local IFS=$'\n'
    COMPREPLY=($(compgen -W "${1//[[:space:]]/$'\n'}" -- "$2"))
}

_bnet()
{
    local bin=${COMP_WORDS[0]} _bnet_w
    _bnet_words
    local n=${#_bnet_w[@]}
    local cur=${_bnet_w[n - 1]} prev=${_bnet_w[n - 2]:-} cmd=coll
    ((n > 2)) && [[ ${_bnet_w[1]} != -* ]] && cmd=${_bnet_w[1]}
    COMPREPLY=()

    if ((n == 2)) && [[ $cur != -* ]]; then
        _bnet_offer "$("$bin" --help 2>/dev/null |
            sed -n '/^commands:/,/^$/s/^  \([a-z][a-z0-9]*\).*/\1/p')" "$cur"
        return
    fi
    case $prev in
    --set | --vary)
        if [[ $cur == *=* ]]; then
            local key=${cur%%=*} val=${cur#*=} values
            if [[ $key == fabric ]]; then
                values=$("$bin" presets 2>/dev/null | awk '/^[a-z]/ {print $1}')
            else # an enum's choices: the "(a|b|c)" that ends its line in bnet keys
                values=$("$bin" keys 2>/dev/null |
                    awk -v k="$key" '$1 == k && $2 == "enum" {print $NF}' | tr -d '()' | tr '|' '\n')
            fi
            _bnet_offer "$values" "$val"
            # bash replaces only the part after '=' when '=' breaks words
            [[ $COMP_WORDBREAKS == *=* ]] || COMPREPLY=("${COMPREPLY[@]/#/$key=}")
        else
            _bnet_offer "$("$bin" keys 2>/dev/null | awk 'NR > 1 {print $1 "="}')" "$cur"
            compopt -o nospace 2>/dev/null
        fi
        return
        ;;
    --fabrics) # a comma-separated list: complete its last name
        local head="" last=$cur
        [[ $cur == *,* ]] && head=${cur%,*}, last=${cur##*,}
        _bnet_offer "$("$bin" presets 2>/dev/null | awk '/^[a-z]/ {print $1}')" "$last"
        COMPREPLY=("${COMPREPLY[@]/#/$head}")
        compopt -o nospace 2>/dev/null
        return
        ;;
    --json | --csv | --trace | --dot)
        COMPREPLY=($(compgen -f -- "$cur"))
        return
        ;;
    --out | -o)
        if [[ $cmd == report ]]; then # the page: a file
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -- "$cur"))
            return
        fi
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -d -- "$cur"))
        return
        ;;
    --plot)
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -d -- "$cur"))
        return
        ;;
    help)
        _bnet_offer "$("$bin" help help 2>/dev/null | sed -n 's/^Topics: \(.*\)\.$/\1/p' | tr -d ',')" "$cur"
        return
        ;;
    esac
    if [[ $cur == -* ]]; then # the flags in the command's synopsis
        local flags
        case $cmd in
        keys | presets) flags=--json ;;
        help | version) flags="" ;;
        *) # the synopsis, and the long forms of coll's and p2p's flags list
            local text
            text=$("$bin" help "$cmd" 2>/dev/null)
            flags="$(sed -n '/^usage:/,/^$/p' <<<"$text" | grep -oE '\[-[-a-zA-Z]+' | tr -d '[')
$(sed -n '/^flags/,$p' <<<"$text" | grep -oE -- '--[a-z][-a-z_]+')" ;;
        esac
        _bnet_offer "$flags" "$cur"
        return
    fi
    compopt -o filenames 2>/dev/null
    if [[ $cmd == plot || $cmd == report ]]; then # result files
        COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
        return
    fi
    # a scenario file
    COMPREPLY=($(compgen -f -X '!*.yaml' -- "$cur") $(compgen -f -X '!*.yml' -- "$cur")
        $(compgen -d -- "$cur"))
}
complete -F _bnet bnet
