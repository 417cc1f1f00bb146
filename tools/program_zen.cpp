// tagop program zen1|zen2|zen3|zen4 EVENT... [options]: the PERF_CTLn and
// PERF_CTRn MSR writes (and Zen 4's PerfCntrGlobalCtl) and the
// perf_event_attrs for AMD Zen core event counters.

#include <cstdint>  // std::uint8_t

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_core/programmer.hpp>  // amd_core::program
#include <tagop/registry.hpp>              // Registry

#include "commands.hpp"
#include "output.hpp"

namespace tagop::cli {

namespace {

struct ZenOptions {
  amd_core::Generation generation = amd_core::Generation::zen3;
  std::vector<std::string> events;
  bool user_only = false;
  bool kernel_only = false;
  bool precise = false;
  bool edge = false;
  bool inv = false;
  unsigned cmask = 0;
  std::string period;
  OutputOptions output;
};

void program_zen(const ZenOptions& o) {
  amd_core::ZenRequest r;
  r.generation = o.generation;
  r.exclude_kernel = o.user_only;
  r.exclude_user = o.kernel_only;
  r.precise = o.precise;
  if (!o.period.empty()) r.period = parse_u64(o.period, "period");
  const std::string_view backend = amd_core::pmu_spec(o.generation).backend;
  for (const std::string& spelled : o.events) {
    // Any spelling the registry knows (perf's raw r5300c3 too) names a row of this table.
    const EventEntry* entry = Registry::builtin().lookup(spelled, backend);
    r.events.push_back({.event = entry ? std::string(entry->name) : spelled,
                        .modifiers = {.edge = o.edge, .inv = o.inv, .cmask = static_cast<std::uint8_t>(o.cmask)}});
  }
  print_programming(amd_core::program(r), o.output);
}

}  // namespace

void add_program_zen_commands(CLI::App& program) {
  for (const auto g : {amd_core::Generation::zen1, amd_core::Generation::zen2, amd_core::Generation::zen3,
                       amd_core::Generation::zen4}) {
    const amd_core::ZenPmuSpec& spec = amd_core::pmu_spec(g);
    auto o = std::make_shared<ZenOptions>();
    o->generation = g;
    CLI::App* cmd = program.add_subcommand(
        std::string(spec.backend),
        fmt::format("{}: PERF_CTLn/PERF_CTRn{} and perf_event_attrs (no precise sample: use amd-ibs)", spec.title,
                    spec.perfmon_v2 ? ", PerfCntrGlobalCtl" : ""));
    cmd->add_option("event", o->events,
                    "Events by perf name (ex_ret_brn_misp), code (0x0C3, 0x18E:0x18) or perf raw (r5300c3)")
        ->required();
    auto* user = cmd->add_flag("--user", o->user_only, "Only user-level events (USR)");
    auto* kernel = cmd->add_flag("--kernel", o->kernel_only, "Only kernel-level events (OS)");
    user->excludes(kernel);
    cmd->add_option("--period", o->period, "Sample every N events (counting only when absent)");
    cmd->add_flag("--edge", o->edge, "Edge (PERF_CTL bit 18) for every EVENT");
    cmd->add_flag("--inv", o->inv, "Inv (bit 23) for every EVENT: cycles with fewer than --cmask events");
    cmd->add_option("--cmask", o->cmask, "CntMask (bits 31:24) for every EVENT: cycles with at least N events")
        ->check(CLI::Range(0u, 255u));
    cmd->add_flag("--precise", o->precise,
                  "Ask for a precise sample: refused with the reason (Zen's precise mechanism is IBS)");
    add_output_options(*cmd, o->output, /*with_csv=*/true);
    cmd->footer(fmt::format("Example:\n  tagop program {} ex_ret_brn_misp --period 10007 --user", spec.backend));
    cmd->callback([o] { program_zen(*o); });
  }
}

}  // namespace tagop::cli
