// tagop completion bash: a bash completion script. Event and backend names
// come from the binary at completion time (`tagop events names`), so the
// script never goes stale; tools/completion/tagop.bash is a copy of it.

#include <memory>  // std::make_shared

#include <fmt/format.h>  // fmt::print

#include "commands.hpp"
#include "output.hpp"

namespace tagop::cli {

namespace {

constexpr const char* bash_script = R"BASH(# bash completion for tagop; load with: source <(tagop completion bash)
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
    --format) COMPREPLY=($(compgen -W "text json csv" -- "$cur")); return ;;
    --kind) COMPREPLY=($(compgen -W "fetch op" -- "$cur")); return ;;
  esac
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "decode program events compare cpu completion --help --version" -- "$cur"))
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
        COMPREPLY=($(compgen -W "--matrix --all --format --json --help" -- "$cur"))
      else
        COMPREPLY=($(compgen -W "$(${COMP_WORDS[0]} events names 2>/dev/null)" -- "$cur"))
      fi ;;
    program)
      [[ $COMP_CWORD -eq 2 ]] && COMPREPLY=($(compgen -W "ibs-fetch ibs-op p4 silvermont goldmont" -- "$cur")) ;;
    decode)
      [[ $COMP_CWORD -eq 2 ]] && COMPREPLY=($(compgen -W "ibs-fetch ibs-op" -- "$cur")) ;;
    completion)
      COMPREPLY=($(compgen -W "bash" -- "$cur")) ;;
    cpu)
      COMPREPLY=($(compgen -W "--format --json --help" -- "$cur")) ;;
  esac
}
complete -F _tagop tagop
)BASH";

}  // namespace

void add_completion_command(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("completion", "Print a shell completion script: source <(tagop completion bash)");
  cmd->add_option("shell", *shell, "Only bash for now")->required()->check(CLI::IsMember({"bash"}));
  cmd->callback([shell] { fmt::print("{}", bash_script); });
}

}  // namespace tagop::cli
