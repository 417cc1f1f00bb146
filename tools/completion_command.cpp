// tagop completion bash: a bash completion script. Event and backend names
// come from the binary at completion time (`tagop events names`), so the
// script never goes stale. The script itself is tools/completion/tagop.bash,
// compiled in (completion_script.hpp is generated from it).

#include <memory>  // std::make_shared

#include <fmt/format.h>  // fmt::print

#include "commands.hpp"
#include "completion_script.hpp"  // bash_completion_script
#include "output.hpp"

namespace tagop::cli {

void add_completion_command(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("completion", "Print a shell completion script: source <(tagop completion bash)");
  cmd->add_option("shell", *shell, "Only bash for now")->required()->check(CLI::IsMember({"bash"}));
  cmd->callback([shell] { fmt::print("{}", bash_completion_script); });
}

}  // namespace tagop::cli
