// tagop program silvermont|goldmont|skylake|icelake|sapphirerapids
// EVENT... [options]: the PERFEVTSEL, PEBS and fixed-counter MSR writes and
// the perf_event_attrs for Intel's core PMUs.

#include <algorithm>  // std::min, std::ranges::any_of
#include <optional>   // std::optional
#include <string>     // std::string
#include <string_view>  // std::string_view

#include <fmt/format.h>  // fmt::print

#include <tagop/intel_core/programmer.hpp>  // intel_core::program
#include <tagop/registry.hpp>                // Registry

#include "commands.hpp"
#include "output.hpp"

namespace tagop::cli {

namespace {

struct IntelCoreProgramOptions {
  intel_core::Microarchitecture uarch = intel_core::Microarchitecture::silvermont;
  std::vector<std::string> events;
  bool user_only = false;
  bool kernel_only = false;
  bool pebs = false;
  std::string period;
  std::string offcore_rsp;
  std::string ldlat;
  OutputOptions output;
};

// The threshold in perf's spelling cpu/mem-loads,ldlat=30/, if it has one.
std::optional<std::string> ldlat_in_spelling(std::string_view spelled) {
  const auto at = spelled.find("ldlat=");
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view rest = spelled.substr(at + 6);
  return std::string(rest.substr(0, rest.find_first_of(",/")));
}

void program_intel_core(const IntelCoreProgramOptions& o) {
  intel_core::Request r;
  r.uarch = o.uarch;
  r.exclude_kernel = o.user_only;
  r.exclude_user = o.kernel_only;
  if (!o.period.empty()) r.period = parse_u64(o.period, "period");
  std::optional<std::uint64_t> offcore;
  if (!o.offcore_rsp.empty()) offcore = parse_u64(o.offcore_rsp, "offcore response");
  bool offcore_used = false;
  bool ldlat_used = false;
  const std::string_view backend = intel_core::pmu_spec(o.uarch).backend;
  for (const std::string& spelled : o.events) {
    // Any spelling the registry knows (perf's r01e6 too) names a row of this table.
    const EventEntry* entry = Registry::builtin().lookup(spelled, backend);
    const std::string name = entry ? std::string(entry->name) : spelled;
    // PEBS runs on IA32_PMC0 only: it is for the first event; the others
    // count (or sample) beside it.
    intel_core::EventRequest e{.event = name, .pebs = o.pebs && r.events.empty(), .offcore_response = std::nullopt,
                               .ldlat = std::nullopt};
    // --ldlat, else the threshold perf's spelling carries (cpu/mem-loads,ldlat=30/).
    const std::optional<std::string> ldlat = o.ldlat.empty() ? ldlat_in_spelling(spelled) : o.ldlat;
    if (ldlat && intel_core::require_event(o.uarch, name).ldlat != 0) {
      // Out-of-range values stay out of range for the programmer to refuse.
      e.ldlat = static_cast<std::uint32_t>(std::min<std::uint64_t>(parse_u64(*ldlat, "ldlat"), 0xFFFFFFFF));
      ldlat_used |= !o.ldlat.empty();
    }
    if (intel_core::require_event(o.uarch, name).offcore_msr != 0) {
      e.offcore_response = offcore;
      offcore_used = true;
    }
    r.events.push_back(e);
  }
  if (offcore && !offcore_used) usage_error("--offcore-rsp is for OFFCORE_RESPONSE_0/1 events; none was given");
  if (!o.ldlat.empty() && !ldlat_used)
    usage_error("--ldlat is for MEM_TRANS_RETIRED.LOAD_LATENCY (perf's mem-loads); none was given");
  const Programming p = intel_core::program(r);
  print_programming(p, o.output);
}

}  // namespace

void add_program_intel_core_commands(CLI::App& program) {
  for (const auto uarch : intel_core::all_microarchitectures) {
    const intel_core::PmuSpec& spec = intel_core::pmu_spec(uarch);
    auto o = std::make_shared<IntelCoreProgramOptions>();
    o->uarch = uarch;
    CLI::App* cmd = program.add_subcommand(
        std::string(spec.backend),
        fmt::format("{}: IA32_PERFEVTSELx, PEBS and fixed counters, and perf_event_attrs", spec.title));
    cmd->add_option("event", o->events, "Events by SDM name (BR_INST_RETIRED.JCC), code:umask (0xC4:0x7E) or perf raw (r7ec4)")
        ->required();
    auto* user = cmd->add_flag("--user", o->user_only, "Only user-level events (USR)");
    auto* kernel = cmd->add_flag("--kernel", o->kernel_only, "Only kernel-level events (OS)");
    user->excludes(kernel);
    cmd->add_flag("--pebs", o->pebs, "Precise samples of the first EVENT through PEBS");
    cmd->add_option("--period", o->period, "Sample every N events (counting only when absent)");
    // The big cores' tables leave the offcore response events out.
    if (std::ranges::any_of(spec.events, [](const intel_core::EventSpec& e) { return e.offcore_msr != 0; }))
      cmd->add_option("--offcore-rsp", o->offcore_rsp, "MSR_OFFCORE_RSP_x value for OFFCORE_RESPONSE_0/1");
    if (spec.pebs_load_latency)
      cmd->add_option("--ldlat", o->ldlat,
                      "Load-latency threshold in cycles for MEM_TRANS_RETIRED.LOAD_LATENCY (perf's ldlat=N)");
    add_output_options(*cmd, o->output, /*with_csv=*/true);
    cmd->footer(fmt::format("Example:\n  tagop program {} BR_MISP_RETIRED.ALL_BRANCHES --pebs --period 10007 --user",
                            spec.backend));
    cmd->callback([o] { program_intel_core(*o); });
  }
}

}  // namespace tagop::cli
