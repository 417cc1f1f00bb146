#pragma once
// Each command adds itself to the application; each backend's programmer
// adds its targets under `program`.

#include <CLI/CLI.hpp>  // CLI::App

namespace tagop { struct Programming; }

namespace tagop::cli {

void add_decode_command(CLI::App& app);
void add_program_command(CLI::App& app);
void add_events_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_annotate_command(CLI::App& app);
void add_record_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_diff_command(CLI::App& app);
void add_cpu_command(CLI::App& app);
void add_emulate_command(CLI::App& app);
void add_completion_command(CLI::App& app);
void add_spe_command(CLI::App& app);

void add_program_ibs_commands(CLI::App& program);
void add_program_intel_core_commands(CLI::App& program);
void add_program_p4_commands(CLI::App& program);
void add_program_zen_commands(CLI::App& program);
void add_program_spe_commands(CLI::App& program);

struct OutputOptions;
/// What every `program` target prints: the Programming as text, JSON (schema tagop.program/1) or CSV.
void print_programming(const Programming& p, const OutputOptions& output);

}  // namespace tagop::cli
