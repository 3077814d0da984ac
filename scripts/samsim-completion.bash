# bash completion for samsim: commands, each command's options (the option
# lines of `samsim help CMD`), block types and implementations (from `samsim blocks`)
# after --impl, and file names elsewhere. Installed by `make install`.

_samsim_commands="compile run blocks convert info gen stats render plot timeline template sweep help"

# TYPE=NAME for every implementation `samsim blocks` lists.
_samsim_impls()
{
    samsim blocks 2>/dev/null | awk '
        /^[a-z]+$/ { type = $1; next }
        /^    [a-z]/ && type != "" { print type "=" $1 }
        /^$/ { type = "" }'
}

_samsim()
{
    local cur prev cmd
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$_samsim_commands --help --version" -- "$cur"))
        return
    fi
    cmd=${COMP_WORDS[1]}
    case "$prev" in
        --impl)
            COMPREPLY=($(compgen -W "$(_samsim_impls)" -- "$cur"))
            return ;;
        --engine)
            COMPREPLY=($(compgen -W "event step cycle" -- "$cur"))
            return ;;
        help)
            COMPREPLY=($(compgen -W "$_samsim_commands" -- "$cur"))
            return ;;
    esac
    if [ "$cmd" = template ] && [ "$COMP_CWORD" -eq 2 ]; then
        COMPREPLY=($(compgen -W "extensor outerspace gamma sigma" -- "$cur"))
        return
    fi
    if [ "$cmd" = gen ] && [ "$COMP_CWORD" -eq 2 ]; then
        COMPREPLY=($(compgen -W "urandom runs blocks rmat banded identity dense" -- "$cur"))
        return
    fi
    if [[ "$cur" == -* ]]; then
        local opts
        # The option lines of the help only: its prose names other
        # commands' options too (samsim run --trace).
        opts=$(samsim help "$cmd" 2>/dev/null | awk '/^  -/ { sub(/=.*/, "", $1); print $1 }' | sort -u)
        COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
}

complete -o filenames -F _samsim samsim
