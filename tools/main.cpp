// tagop: one model for the precise-sampling hardware of AMD and Intel CPUs.

#include <cstdio>  // stderr

#include <fmt/format.h>  // fmt::print

#include <tagop/error.hpp>  // Error

#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "tagop: one model for the precise-sampling hardware of AMD and Intel CPUs.\n"
      "Every event of every vendor's table is a predicate over one vocabulary of\n"
      "op conditions; decode raw IBS registers, program the hardware, look events up.",
      "tagop"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(TAGOP_VERSION));
  app.footer("Run 'tagop COMMAND --help' for a command's options and examples.");
  tagop::cli::add_decode_command(app);
  tagop::cli::add_program_command(app);
  tagop::cli::add_events_command(app);
  tagop::cli::add_report_command(app);
  tagop::cli::add_record_command(app);
  tagop::cli::add_compare_command(app);
  tagop::cli::add_cpu_command(app);
  tagop::cli::add_completion_command(app);
  // CLI11 would call an unknown command "extra"; say what it is.
  if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    bool found = false;
    for (const CLI::App* command : app.get_subcommands({})) {
      found = found || command->get_name() == argv[1];
      known += (known.empty() ? "" : ", ") + command->get_name();
    }
    if (!found) {
      fmt::print(stderr, "tagop: unknown command '{}' (expected one of {})\nRun 'tagop --help' for usage.\n", argv[1],
                 known);
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // The hint names the command whose options were wrong, if any.
    std::string help = "tagop --help";
    for (const CLI::App* command : app.get_subcommands()) help = "tagop " + command->get_name() + " --help";
    fmt::print(stderr, "tagop: {}\nRun '{}' for usage.\n", e.what(), help);
    return 2;
  } catch (const tagop::Error& e) {
    fmt::print(stderr, "tagop: {}\n", e.what());
    return 1;
  }
  return 0;
}
