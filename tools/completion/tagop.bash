# bash completion for tagop; load with: source <(tagop completion bash)
_tagop() {
  local cur prev cmd sub
  cur="${COMP_WORDS[COMP_CWORD]}"
  prev="${COMP_WORDS[COMP_CWORD-1]}"
  cmd="${COMP_WORDS[1]}"
  sub="${COMP_WORDS[2]}"
  # Event names contain ':' (slm::X, replay_event:NBOGUS): keep them whole.
  COMP_WORDBREAKS="${COMP_WORDBREAKS//:/}"
  case "$prev" in
    --backend) COMPREPLY=($(compgen -W "$(${COMP_WORDS[0]} events names --backends 2>/dev/null)" -- "$cur")); return ;;
    --format)
      if [[ $cmd == events || $cmd == compare ]]; then COMPREPLY=($(compgen -W "text json csv sql" -- "$cur"))
      else COMPREPLY=($(compgen -W "text json csv" -- "$cur")); fi
      return ;;
    --kind) COMPREPLY=($(compgen -W "fetch op" -- "$cur")); return ;;
  esac
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "report annotate diff record emulate decode program events compare cpu spe ingest completion --help --version" -- "$cur"))
    return
  fi
  case "$cmd" in
    events)
      if [[ $COMP_CWORD -eq 2 ]]; then
        COMPREPLY=($(compgen -W "list show search" -- "$cur"))
      elif [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--backend --precise --kind --condition --format --json --limit --help" -- "$cur"))
      elif [[ $sub == show ]]; then
        COMPREPLY=($(compgen -W "$(${COMP_WORDS[0]} events names 2>/dev/null)" -- "$cur"))
      fi ;;
    compare)
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--matrix --all --counts --format --json --help" -- "$cur"))
      else
        COMPREPLY=($(compgen -W "$(${COMP_WORDS[0]} events names 2>/dev/null)" -- "$cur"))
      fi ;;
    program)
      if [[ $COMP_CWORD -eq 2 ]]; then
        COMPREPLY=($(compgen -W "ibs-fetch ibs-op p4 silvermont goldmont skylake icelake sapphirerapids zen1 zen2 zen3 zen4 arm-spe" -- "$cur"))
      elif [[ $cur == -* && $sub =~ ^(skylake|icelake|sapphirerapids)$ ]]; then
        COMPREPLY=($(compgen -W "--pebs --period --user --kernel --ldlat --format --json --help" -- "$cur"))
      fi ;;
    decode)
      [[ $COMP_CWORD -eq 2 ]] && COMPREPLY=($(compgen -W "ibs-fetch ibs-op" -- "$cur")) ;;
    completion)
      COMPREPLY=($(compgen -W "bash" -- "$cur")) ;;
    spe)
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--where --rows --packets --samples --format --json --help" -- "$cur"))
      else
        COMPREPLY=($(compgen -f -- "$cur"))  # the perf.data
      fi ;;
    cpu)
      COMPREPLY=($(compgen -W "--format --json --help" -- "$cur")) ;;
    ingest)
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--host --cpu --vmlinux --kallsyms --symfs --help" -- "$cur"))
      elif [[ $COMP_CWORD -gt 2 ]]; then
        COMPREPLY=($(compgen -f -- "$cur"))  # the captures, after the URL
      fi ;;
    report)
      case "$prev" in
        --by) COMPREPLY=($(compgen -W "function module process thread cpu address line callchain data cacheline host processor" -- "$cur")); return ;;
        --backend) COMPREPLY=($(compgen -W "amd-ibs perf" -- "$cur")); return ;;
        -i|--input) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --view) COMPREPLY=($(compgen -W "overview fetch op branch dc dtlb nb all" -- "$cur")); return ;;
        --format) COMPREPLY=($(compgen -W "text json csv pprof folded jsonl" -- "$cur")); return ;;
        -o|--output|--html) COMPREPLY=($(compgen -f -- "$cur")); return ;;
      esac
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--input --by --view --events --where --sort --top --percent-limit --children --no-children --call-graph --no-demangle --signatures --width
                                 --cpu --pid --tid --comm --time --family --model --estimates --threads --strict --max-stack --max-values
                                 --vmlinux --kallsyms --symfs
                                 --format --json --output --html --source --host --since --until --backend --help" -- "$cur"))
      else
        COMPREPLY=($(compgen -f -- "$cur"))  # the perf.data
      fi ;;
    annotate)
      case "$prev" in
        -i|--input|--html) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --format) COMPREPLY=($(compgen -W "text json" -- "$cur")); return ;;
      esac
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--input --events --where --pid --comm --family --model --max-instructions --hottest
                                 --no-source --html --vmlinux --kallsyms --symfs --format --json --help" -- "$cur"))
      else
        COMPREPLY=($(compgen -f -- "$cur"))  # the perf.data, then the function
      fi ;;
    diff)
      case "$prev" in
        --by) COMPREPLY=($(compgen -W "function module process cpu address line host processor" -- "$cur")); return ;;
        --sort) COMPREPLY=($(compgen -W "delta diff relative z" -- "$cur")); return ;;
        --backend) COMPREPLY=($(compgen -W "amd-ibs perf" -- "$cur")); return ;;
        --view) COMPREPLY=($(compgen -W "overview fetch op branch dc dtlb nb all" -- "$cur")); return ;;
      esac
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--by --view --events --sort --top --threads --vmlinux --kallsyms --symfs --format --json
                                 --source --host --host-b --since --until --since-b --until-b --where --backend --help" -- "$cur"))
      else
        COMPREPLY=($(compgen -f -- "$cur"))  # the two captures
      fi ;;
    record)
      case "$prev" in
        -o|--output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --call-graph) COMPREPLY=($(compgen -W "fp dwarf" -- "$cur")); return ;;
      esac
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--ibs-op --ibs-fetch --event --count --freq --call-graph --all-cpus --no-buildid-cache --pid
                                 --duration --output --help" -- "$cur"))
      else
        COMPREPLY=($(compgen -c -- "$cur"))  # the command to sample
      fi ;;
    emulate)
      case "$prev" in
        --as) COMPREPLY=($(compgen -W "zen3 zen4 fam10h goldmont silvermont p4" -- "$cur")); return ;;
        -o|--output|--counts) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --page-size) COMPREPLY=($(compgen -W "4k 2m" -- "$cur")); return ;;
      esac
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--as --period --pebs-event --pebs-period --output --counts --page-size --seed
                                 --no-prefetch --exact-cachegrind --valgrind --format --json --help" -- "$cur"))
      else
        COMPREPLY=($(compgen -c -- "$cur"))  # the command to emulate
      fi ;;
  esac
}
complete -F _tagop tagop
