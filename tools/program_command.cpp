// tagop program TARGET ...: each backend adds its targets as subcommands,
// each with its own options; all of them print through print_programming.

#include <fmt/format.h>  // fmt::print

#include <tagop/programming.hpp>  // Programming, to_text

#include "commands.hpp"
#include "output.hpp"
#include "program_record.hpp"
#include "terminal.hpp"  // csv_row

namespace tagop::cli {

namespace {

using record::json;

std::string csv_value(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "";
  return value.dump();
}

// One row per fact, in the record's order: each MSR write, each field of
// each perf_event_attr (numbered, as a request may open several), each note.
void print_csv(const json& j) {
  fmt::print("{}", csv_row({"what", "index", "name", "value", "note"}));
  std::size_t index = 0;
  for (const json& w : j["msr_writes"])
    fmt::print("{}", csv_row({"msr", std::to_string(index++), w["name"].get<std::string>() + " " + w["msr"].get<std::string>(),
                              w["value"].get<std::string>(), w.contains("note") ? w["note"].get<std::string>() : ""}));
  index = 0;
  for (const json& attr : j["perf_event_attrs"]) {
    for (const auto& [field, value] : attr.items())
      fmt::print("{}", csv_row({"perf_event_attr", std::to_string(index), field, csv_value(value), ""}));
    ++index;
  }
  index = 0;
  for (const json& note : j["notes"]) fmt::print("{}", csv_row({"note", std::to_string(index++), "", "", note.get<std::string>()}));
}

}  // namespace

void print_programming(const Programming& p, const OutputOptions& output) {
  switch (output.resolved()) {
    case Format::json: print_json(record::to_json(program_record(p)), program_contract.schema); break;
    case Format::csv: print_csv(record::to_json(program_record(p))); break;
    case Format::text: fmt::print("{}", to_text(p)); break;
  }
}

void add_program_command(CLI::App& app) {
  CLI::App* program = app.add_subcommand(
      "program", "Turn a sampling request into the MSR writes and the Linux perf_event_attr that set it up");
  program->require_subcommand(1);
  add_program_ibs_commands(*program);
  add_program_intel_core_commands(*program);
  add_program_p4_commands(*program);
  add_program_zen_commands(*program);
  add_program_spe_commands(*program);
}

}  // namespace tagop::cli
