// tagop program arm-spe [PREDICATE]: the arm_spe PMU's perf_event_attr,
// its filters taken from a predicate (or an SPE derived event's).

#include <fmt/format.h>  // fmt::format

#include <tagop/arm_spe/programmer.hpp>  // arm_spe::program
#include <tagop/error.hpp>               // Error
#include <tagop/registry.hpp>            // Registry

#include "commands.hpp"
#include "output.hpp"

namespace tagop::cli {

namespace {

struct ProgramSpeOptions {
  std::string what;
  std::string period;
  std::uint32_t min_latency = 0;
  bool no_jitter = false, no_timestamps = false, physical = false;
  bool user_only = false, kernel_only = false;
  OutputOptions output;
};

// An SPE derived event's predicate, or the text as a predicate.
Predicate predicate_of(const std::string& what) {
  if (what.empty()) return Predicate();
  if (const EventEntry* e = Registry::builtin().lookup(what, "arm-spe")) return Predicate::parse(e->predicate);
  try {
    return Predicate::parse(what);
  } catch (const Error& e) {
    usage_error(fmt::format("'{}' is neither an SPE event nor a predicate: {}", what, e.what()));
  }
}

void program_spe(const ProgramSpeOptions& o) {
  arm_spe::SpeRequest r;
  r.predicate = predicate_of(o.what);
  if (!o.period.empty()) r.period = parse_u64(o.period, "period");
  r.min_latency = o.min_latency;
  r.jitter = !o.no_jitter;
  r.timestamps = !o.no_timestamps;
  r.physical_addresses = o.physical;
  r.exclude_kernel = o.user_only;
  r.exclude_user = o.kernel_only;
  print_programming(arm_spe::program(r), o.output);
}

}  // namespace

void add_program_spe_commands(CLI::App& program) {
  auto o = std::make_shared<ProgramSpeOptions>();
  CLI::App* cmd = program.add_subcommand(
      "arm-spe", "Arm SPE: the arm_spe PMU's perf_event_attr, with the type, event and latency filters a predicate allows");
  cmd->add_option("what", o->what,
                  "An SPE derived event ('SPE L1D refill loads', 'l1d-miss') or a predicate ('load & dc.miss'); "
                  "none: every operation");
  cmd->add_option("--period", o->period, "Operations between samples (default 4096)");
  cmd->add_option("--min-latency", o->min_latency, "Keep ops whose total latency is at least N cycles (PMSLATFR_EL1)")
      ->check(CLI::Range(0u, 4095u));
  cmd->add_flag("--no-jitter", o->no_jitter, "No random jitter on the sampling interval");
  cmd->add_flag("--no-timestamps", o->no_timestamps, "No timestamp packets (ts_enable=0)");
  cmd->add_flag("--physical", o->physical, "Physical address packets (pa_enable=1)");
  auto* user = cmd->add_flag("--user", o->user_only, "Only user code");
  auto* kernel = cmd->add_flag("--kernel", o->kernel_only, "Only kernel code");
  user->excludes(kernel);
  add_output_options(*cmd, o->output, /*with_csv=*/true);
  cmd->footer(
      "Examples:\n"
      "  tagop program arm-spe 'load & dc.miss' --min-latency 64\n"
      "  tagop program arm-spe 'SPE mispredicted branches' --json\n"
      "  tagop program arm-spe --physical --period 1024");
  cmd->callback([o] { program_spe(*o); });
}

}  // namespace tagop::cli
