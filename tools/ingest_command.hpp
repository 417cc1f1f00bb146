#pragma once
// tagop ingest (declared apart from commands.hpp, which every command includes).

#include <CLI/CLI.hpp>  // CLI::App

namespace tagop::cli {

/// Adds `tagop ingest URL FILE...`.
void add_ingest_command(CLI::App& app);

}  // namespace tagop::cli
