#include <tagop/amd_core/programmer.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop::amd_core {

namespace {

// Core::X86::Msr::PERF_CTLn and PERF_CTRn (the PPRs; Linux
// MSR_F15H_PERF_CTL/CTR, one pair every two MSRs), and PerfMonV2's global
// control (Linux MSR_AMD64_PERF_CNTR_GLOBAL_CTL).
constexpr std::uint32_t perf_ctl0 = 0xC0010200;
constexpr std::uint32_t perf_ctr0 = 0xC0010201;
constexpr std::uint32_t perf_cntr_global_ctl = 0xC0000301;

constexpr std::uint64_t sampling_type =
    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;

// ", Edge, Inv, CntMask 4", or "" without modifiers.
std::string modifiers_text(const CounterModifiers& m) {
  std::string out;
  if (m.edge) out += ", Edge";
  if (m.inv) out += ", Inv";
  if (m.cmask != 0) out += fmt::format(", CntMask {}", m.cmask);
  return out;
}

Privilege privilege_of(const ZenRequest& r) {
  if (r.exclude_kernel) return Privilege::user;
  if (r.exclude_user) return Privilege::kernel;
  return Privilege::both;
}

void check_request(const ZenRequest& r, const ZenPmuSpec& spec) {
  if (r.precise)
    throw Error(ErrorCode::not_supported,
                fmt::format("{} core counters give no precise sample: an overflow interrupt arrives some "
                            "instructions after the op (skid), and perf_event_attr.precise_ip must be 0 (Linux "
                            "turns a precise cycles event on AMD into IBS op sampling); for a precise sample use "
                            "the amd-ibs backend",
                            spec.backend));
  if (r.events.empty()) throw Error("no event given: name at least one event to program");
  if (r.exclude_user && r.exclude_kernel) throw Error("excluding both user and kernel leaves nothing to count");
  if (r.events.size() > spec.counters)
    throw Error(ErrorCode::not_supported, fmt::format("too many events: {} asked, but {} has {} core counters "
                                                      "(PERF_CTR0-{})",
                                                      r.events.size(), spec.backend, spec.counters, spec.counters - 1));
  if (r.period && (*r.period == 0 || *r.period > max_period))
    throw Error(ErrorCode::bad_input, fmt::format("period {} is out of range: 1 to 2^47 - 1 ({}), the {}-bit counter's "
                                                  "overflow being its top bit",
                                                  *r.period, max_period, spec.counter_width));
}

}  // namespace

Programming program(const ZenRequest& r) {
  const ZenPmuSpec& spec = pmu_spec(r.generation);
  check_request(r, spec);
  std::vector<const ZenEventSpec*> events;
  for (const ZenEventRequest& asked : r.events) {
    events.push_back(&require_event(r.generation, asked.event));
    if (asked.modifiers.inv && asked.modifiers.cmask == 0)
      throw Error(ErrorCode::bad_input, fmt::format("{}: Inv inverts the CntMask comparison (count cycles with fewer "
                                                    "than CntMask events); give a CntMask of 1 or more",
                                                    events.back()->name));
  }

  const bool sampling = r.period.has_value();
  const std::uint64_t period = r.period.value_or(0);
  const Privilege privilege = privilege_of(r);
  const std::uint64_t width_mask = (std::uint64_t{1} << spec.counter_width) - 1;
  const std::uint64_t initial = sampling ? ((std::uint64_t{1} << spec.counter_width) - period) & width_mask : 0;

  Programming p;
  if (spec.perfmon_v2)
    p.msr_writes.push_back({perf_cntr_global_ctl, "PerfCntrGlobalCtl", 0, "stop every counter while programming"});
  std::uint64_t global = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const ZenEventSpec& e = *events[i];
    const auto n = static_cast<std::uint32_t>(i);
    p.msr_writes.push_back({perf_ctl0 + 2 * n, fmt::format("PERF_CTL{}", n), 0, "stop the counter while setting it"});
    p.msr_writes.push_back({perf_ctr0 + 2 * n, fmt::format("PERF_CTR{}", n), initial,
                            sampling ? fmt::format("2^{} - {}: overflows after {} events", spec.counter_width, period,
                                                   period)
                                     : "count from zero"});
    const CounterModifiers& m = r.events[i].modifiers;
    p.msr_writes.push_back({perf_ctl0 + 2 * n, fmt::format("PERF_CTL{}", n), perf_ctl(e, privilege, sampling, m),
                            fmt::format("{} ({}){}", e.name, code_string(e), modifiers_text(m))});
    global |= std::uint64_t{1} << n;
  }
  if (spec.perfmon_v2)
    p.msr_writes.push_back({perf_cntr_global_ctl, "PerfCntrGlobalCtl", global,
                            "start the programmed counters (PerfMonV2: each needs its bit here and PERF_CTL.En)"});

  for (std::size_t i = 0; i < events.size(); ++i) {
    const ZenEventSpec& e = *events[i];
    PerfEvent pe;
    pe.attr = make_perf_attr();
    pe.attr.type = PERF_TYPE_RAW;
    pe.attr.config = perf_raw_config(e, r.events[i].modifiers);
    pe.attr.exclude_user = privilege == Privilege::kernel;
    pe.attr.exclude_kernel = privilege == Privilege::user;
    if (sampling) {
      pe.attr.sample_period = period;
      pe.attr.sample_type = sampling_type;
    }
    pe.attr.precise_ip = 0;
    pe.description = fmt::format("{} {} on a core counter", sampling ? "sampling" : "counting", e.name);
    p.perf_events.push_back(pe);
    p.notes.push_back(fmt::format("{} ({}) -> PERF_CTR{}; perf chooses the counter itself", e.name, code_string(e), i));
    if (r.events[i].modifiers.cmask != 0)
      p.notes.push_back(fmt::format("{} with CntMask {}: the counter counts cycles, not {}", e.name,
                                    r.events[i].modifiers.cmask, counting_unit_name(e.unit)));
  }
  p.notes.push_back("precise_ip = 0: Zen's core counters have no precise mode, and Linux turns precise_ip > 0 on the "
                    "cycles event into IBS op sampling; a sample's address is where the overflow interrupt found the "
                    "core (skid), not the op that was counted");
  return p;
}

}  // namespace tagop::amd_core
