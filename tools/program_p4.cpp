// tagop program p4 METRIC...: the ESCR/CCCR/counter and replay-tagging MSR
// writes and the perf_event_attrs for Pentium 4 at-retirement tagging.

#include <fmt/format.h>  // fmt::print

#include <tagop/error.hpp>                 // Error
#include <tagop/intel_p4/programmer.hpp>   // intel_p4::program

#include "commands.hpp"
#include "output.hpp"

namespace tagop::cli {

namespace {

struct ProgramP4Options {
  std::vector<std::string> events;
  bool user_only = false;
  bool kernel_only = false;
  unsigned thread = 0;
  bool pebs = false;
  std::string period;
  OutputOptions output;
};

void program_p4(const ProgramP4Options& o) {
  intel_p4::P4Request r;
  for (const std::string& name : o.events) {
    // A name the tables do not know is a usage error; a request the
    // hardware cannot do is a refusal (tagop::Error, exit 1).
    try {
      intel_p4::resolve(name);
    } catch (const Error& e) {
      usage_error(e.what());
    }
    r.events.push_back({.name = name, .pebs = o.pebs});
  }
  r.exclude_kernel = o.user_only;
  r.exclude_user = o.kernel_only;
  r.thread = o.thread;
  if (!o.period.empty()) r.period = parse_u64(o.period, "period");
  const Programming p = intel_p4::program(r);
  print_programming(p, o.output);
}

}  // namespace

void add_program_p4_commands(CLI::App& program) {
  auto o = std::make_shared<ProgramP4Options>();
  CLI::App* cmd = program.add_subcommand(
      "p4", "Intel Pentium 4 at-retirement tagging: ESCRs, CCCRs, counters, replay MSRs and perf raw events");
  cmd->add_option("metrics", o->events,
                  "Metrics (e.g. 1stL_cache_load_miss_retired, packed_SP_uop_retired) or raw events with mask "
                  "bits (e.g. replay_event:NBOGUS); 'tagop events list --backend p4' lists them")
      ->required();
  auto* user = cmd->add_flag("--user", o->user_only, "Only user-level uops (T0_USR/T1_USR)");
  auto* kernel = cmd->add_flag("--kernel", o->kernel_only, "Only kernel-level uops (T0_OS/T1_OS)");
  user->excludes(kernel);
  cmd->add_option("--thread", o->thread, "Logical processor with Hyper-Threading: 0 or 1")
      ->check(CLI::Range(0u, 1u))
      ->capture_default_str();
  cmd->add_flag("--pebs", o->pebs, "Precise samples through PEBS (counter 16; one metric only)");
  cmd->add_option("--period", o->period, "Sample every N events (counts when not given)");
  add_output_options(*cmd, o->output, /*with_csv=*/true);
  cmd->footer(
      "Examples:\n"
      "  tagop program p4 1stL_cache_load_miss_retired --pebs --period 10000\n"
      "  tagop program p4 packed_SP_uop_retired scalar_SP_uop_retired --user\n"
      "  tagop program p4 replay_event:NBOGUS uops_retired:NBOGUS --json");
  cmd->callback([o] { program_p4(*o); });
}

}  // namespace tagop::cli
