#pragma once
// Each command adds itself to the application.

#include <CLI/CLI.hpp>  // CLI::App

namespace tagop::cli {

void add_decode_command(CLI::App& app);
void add_program_command(CLI::App& app);
void add_events_command(CLI::App& app);

}  // namespace tagop::cli
