// tagop program TARGET ...: each backend adds its targets as subcommands,
// each with its own options.

#include "commands.hpp"

namespace tagop::cli {

void add_program_command(CLI::App& app) {
  CLI::App* program = app.add_subcommand(
      "program", "Turn a sampling request into the MSR writes and the Linux perf_event_attr that set it up");
  program->require_subcommand(1);
  add_program_ibs_commands(*program);
  add_program_atom_commands(*program);
  add_program_p4_commands(*program);
}

}  // namespace tagop::cli
