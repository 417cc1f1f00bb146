#include <tagop/intel_core/programmer.hpp>

#include <bit>  // std::countr_zero

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop::intel_core {

namespace {

// Architectural MSRs (SDM Vol. 4, Table 2-2), the offcore MSRs and the
// PEBS ones of Skylake and later.
constexpr std::uint32_t ia32_pmc0 = 0xC1;
constexpr std::uint32_t ia32_perfevtsel0 = 0x186;
constexpr std::uint32_t ia32_fixed_ctr0 = 0x309;
constexpr std::uint32_t ia32_fixed_ctr_ctrl = 0x38D;
constexpr std::uint32_t ia32_perf_global_ctrl = 0x38F;
constexpr std::uint32_t ia32_pebs_enable = 0x3F1;
constexpr std::uint32_t msr_pebs_data_cfg = 0x3F2;

// Adaptive PEBS (record format 4): the counter writes the record the
// groups of MSR_PEBS_DATA_CFG select (SDM 18.9.2.3): IA32_PERFEVTSELx bit
// 34, IA32_FIXED_CTR_CTRL bit 32 + 4 n (the kernel's ICL_EVENTSEL_ADAPTIVE
// and ICL_FIXED_0_ADAPTIVE).
constexpr unsigned adaptive_record_format = 4;
constexpr std::uint64_t perfevtsel_adaptive = std::uint64_t{1} << 34;
// MSR_PEBS_DATA_CFG bit 0: the memory info group (data linear address,
// data source, latency, TSX): what a load or store sample needs.
constexpr std::uint64_t pebs_data_cfg_memory_info = 0x1;

// Sapphire Rapids' load latency needs the auxiliary event as its group
// leader (the kernel's mem-loads-aux, "event=0x03,umask=0x82",
// PMU_FL_MEM_LOADS_AUX in arch/x86/events/intel/core.c).
constexpr std::uint64_t mem_loads_aux_config = 0x8203;

std::string counter_list(unsigned mask) {
  std::string out;
  for (unsigned i = 0; i < 8; ++i)
    if (mask & (1u << i)) out += fmt::format("{}IA32_PMC{}", out.empty() ? "" : ", ", i);
  return out;
}

// A WRMSR to IA32_PMCx takes bits 31:0 and sign-extends bit 31 to the
// counter width, so -period lands whole only below 2^31.
constexpr std::uint64_t max_period = (std::uint64_t{1} << 31) - 1;

constexpr std::uint64_t sampling_type =
    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;

std::string counter_name(const CounterAssignment& a) {
  return fmt::format("{}{}", a.fixed ? "IA32_FIXED_CTR" : "IA32_PMC", a.index);
}

Privilege privilege_of(const Request& r) {
  if (r.exclude_kernel) return Privilege::user;
  if (r.exclude_user) return Privilege::kernel;
  return Privilege::both;
}

void check_request(const Request& r, const PmuSpec& spec) {
  if (r.events.empty()) throw Error("no event given: name at least one event to program");
  if (r.exclude_user && r.exclude_kernel) throw Error("excluding both user and kernel leaves nothing to count");
  if (r.period && (*r.period == 0 || *r.period > max_period))
    throw Error(fmt::format("period {} is out of range: 1 to {} (a WRMSR to IA32_PMCx writes 32 bits, "
                            "sign-extended to the {}-bit counter)",
                            *r.period, max_period, spec.counter_width));
}

}  // namespace

std::vector<CounterAssignment> assign_counters(const Request& r) {
  const PmuSpec& spec = pmu_spec(r.uarch);
  std::vector<CounterAssignment> out;
  unsigned general_used = 0;  // bit i: IA32_PMCi taken
  unsigned fixed_used = 0;
  const unsigned general_all = (1u << spec.general_counters) - 1;

  // PEBS events first: they are the ones with a single possible counter.
  out.resize(r.events.size());
  for (std::size_t i = 0; i < r.events.size(); ++i) {
    const EventSpec& e = require_event(r.uarch, r.events[i].event);
    out[i].event = &e;
    if (!r.events[i].pebs) continue;
    if (e.precise && e.fixed_counter >= 0 && (spec.pebs_fixed_counters >> e.fixed_counter & 1)) {
      // Extended PEBS (Ice Lake and later): a precise fixed-counter event
      // samples on its own fixed counter.
      out[i].fixed = true;
      out[i].index = static_cast<unsigned>(e.fixed_counter);
      out[i].pebs = true;
      continue;
    }
    if (!e.precise)
      throw Error(ErrorCode::not_supported, fmt::format("{} ({}) is not PEBS-capable on {}: {} does not mark it precise{}{}", e.name,
                              code_string(e), spec.backend, spec.sdm_table,
                              e.fixed_counter >= 0 && spec.pebs_fixed_counters == 0 ? ", and fixed counters have no PEBS" : "",
                              spec.uarch == Microarchitecture::goldmont && e.fixed_counter < 0
                                  ? " (Goldmont writes PEBS records for such events too, but at the next "
                                    "opportunity, not for the op that caused them: SDM 18.7.1)"
                                  : ""));
    const unsigned pebs_free = spec.pebs_counters & e.counters & ~general_used;
    if (pebs_free == 0) {
      const CounterAssignment* holder = nullptr;
      for (const CounterAssignment& a : out)
        if (a.pebs) holder = &a;
      if (spec.pebs_counters == 0x1)
        throw Error(ErrorCode::not_supported, fmt::format("{} needs PEBS, but {} has PEBS only on IA32_PMC0{}", e.name, spec.backend,
                              holder ? fmt::format(", which {} already holds: one PEBS event at a time",
                                                   holder->event->name)
                                     : ""));
      throw Error(ErrorCode::not_supported,
                  fmt::format("{} needs PEBS on {} ({} can sample it there only), and other requested PEBS events "
                              "hold them",
                              e.name, counter_list(spec.pebs_counters & e.counters), spec.backend));
    }
    const unsigned index = static_cast<unsigned>(std::countr_zero(pebs_free));
    general_used |= 1u << index;
    out[i].index = index;
    out[i].pebs = true;
  }
  for (const CounterAssignment& a : out)
    if (a.pebs && a.fixed) {
      if (fixed_used & (1u << a.index))
        throw Error(ErrorCode::not_supported, fmt::format("{} runs only on IA32_FIXED_CTR{}, which another requested "
                                                          "event already uses",
                                                          a.event->name, a.index));
      fixed_used |= 1u << a.index;
    }
  for (std::size_t i = 0; i < r.events.size(); ++i) {
    CounterAssignment& a = out[i];
    if (a.pebs) continue;
    const EventSpec& e = *a.event;
    if (e.fixed_counter >= 0) {
      const unsigned bit = 1u << e.fixed_counter;
      if (fixed_used & bit)
        throw Error(ErrorCode::not_supported, fmt::format("{} runs only on IA32_FIXED_CTR{}, which another requested event already uses",
                                e.name, static_cast<int>(e.fixed_counter)));
      fixed_used |= bit;
      a.fixed = true;
      a.index = static_cast<unsigned>(e.fixed_counter);
      continue;
    }
    const unsigned free = e.counters & general_all & ~general_used;
    if (free == 0 && (e.counters & general_all) != general_all)
      throw Error(ErrorCode::not_supported,
                  fmt::format("{} runs only on {} on {} (perfmon \"Counter\"), which other requested events "
                              "already hold",
                              e.name, counter_list(e.counters & general_all), spec.backend));
    if (free == 0) {
      unsigned general_events = 0;
      for (const CounterAssignment& o : out)
        if (o.event->fixed_counter < 0) ++general_events;
      throw Error(ErrorCode::not_supported, fmt::format("too many events: {} need general-purpose counters, but {} has {} (IA32_PMC0-{})",
                              general_events, spec.backend, spec.general_counters, spec.general_counters - 1));
    }
    a.index = static_cast<unsigned>(std::countr_zero(free));
    general_used |= 1u << a.index;
  }
  return out;
}

Programming program(const Request& r) {
  const PmuSpec& spec = pmu_spec(r.uarch);
  check_request(r, spec);
  const std::vector<CounterAssignment> assignments = assign_counters(r);

  bool any_pebs = false;
  for (const CounterAssignment& a : assignments) any_pebs |= a.pebs;
  // Plain values rather than an optional: GCC 12 mistakes a copied
  // optional for uninitialised here.
  const bool sampling = r.period.has_value() || any_pebs;
  const std::uint64_t period = r.period.value_or(default_pebs_period);
  const Privilege privilege = privilege_of(r);
  const std::uint64_t width_mask = (std::uint64_t{1} << spec.counter_width) - 1;
  const std::uint64_t initial = sampling ? ((std::uint64_t{1} << spec.counter_width) - period) & width_mask : 0;

  Programming p;
  p.msr_writes.push_back({ia32_perf_global_ctrl, "IA32_PERF_GLOBAL_CTRL", 0, "stop every counter while programming"});

  // Offcore response MSRs, one per event; each MSR serves one event.
  std::uint32_t offcore_used = 0;
  for (std::size_t i = 0; i < r.events.size(); ++i) {
    const EventSpec& e = *assignments[i].event;
    const auto& value = r.events[i].offcore_response;
    if (e.offcore_msr == 0) {
      if (value)
        throw Error(fmt::format("{} takes no offcore response value: only OFFCORE_RESPONSE_0/1 use "
                                "MSR_OFFCORE_RSP_0/1",
                                e.name));
      continue;
    }
    if (!value)
      throw Error(fmt::format("{} needs an offcore response value for MSR_OFFCORE_RSP_{} ({:#x}): request type "
                              "bits 15:0 and response/snoop bits above (SDM 18.6.2)",
                              e.name, e.offcore_msr - 0x1A6, e.offcore_msr));
    if (offcore_used == e.offcore_msr)
      throw Error(fmt::format("two events need MSR_OFFCORE_RSP_{}: use OFFCORE_RESPONSE_0 for one and "
                              "OFFCORE_RESPONSE_1 for the other",
                              e.offcore_msr - 0x1A6));
    offcore_used = e.offcore_msr;
    p.msr_writes.push_back({e.offcore_msr, fmt::format("MSR_OFFCORE_RSP_{}", e.offcore_msr - 0x1A6), *value,
                            spec.uarch == Microarchitecture::silvermont
                                ? "shared by the two cores of a Silvermont module (SDM 18.6.2)"
                                : ""});
  }

  // The load-latency threshold and the front-end selection: one MSR each,
  // so one value each for all the events of a request.
  std::vector<std::uint64_t> config1(r.events.size(), 0);
  std::optional<std::uint32_t> ldlat_used;
  std::optional<std::uint32_t> frontend_used;
  bool any_load_latency = false;
  for (std::size_t i = 0; i < r.events.size(); ++i) {
    const EventSpec& e = *assignments[i].event;
    const auto& wanted = r.events[i].ldlat;
    if (e.ldlat == 0) {
      if (wanted)
        throw Error(fmt::format("{} takes no load-latency threshold: ldlat is for MEM_TRANS_RETIRED.LOAD_LATENCY "
                                "(perf's mem-loads) only",
                                e.name));
    } else {
      const std::uint32_t threshold = wanted.value_or(e.ldlat);
      if (threshold < 1 || threshold > 0xFFFF)
        throw Error(fmt::format("load-latency threshold {} is out of range: 1 to 65535 cycles "
                                "(MSR_PEBS_LD_LAT_THRESHOLD bits 15:0)",
                                threshold));
      if (!assignments[i].pebs)
        throw Error(ErrorCode::not_supported, fmt::format("{} needs PEBS: the load latency is only in the PEBS record "
                                                          "(ask for a precise sample)",
                                                          e.name));
      if (ldlat_used && *ldlat_used != threshold)
        throw Error(ErrorCode::not_supported, fmt::format("two load-latency thresholds ({} and {}) in one request: "
                                                          "MSR_PEBS_LD_LAT_THRESHOLD holds one",
                                                          *ldlat_used, threshold));
      if (!ldlat_used)
        p.msr_writes.push_back({msr_pebs_ld_lat_threshold, "MSR_PEBS_LD_LAT_THRESHOLD", threshold,
                                // The SDM's load latency facility counts loads whose latency exceeds the
                                // threshold (perfmon's LOAD_LATENCY_GT_N).
                                fmt::format("loads of more than {} cycles", threshold)});
      ldlat_used = threshold;
      config1[i] = threshold;
      any_load_latency = true;
    }
    if (e.frontend != 0) {
      if (frontend_used && *frontend_used != e.frontend)
        throw Error(ErrorCode::not_supported, fmt::format("two FRONTEND_RETIRED selections ({:#x} and {:#x}) in one "
                                                          "request: MSR_PEBS_FRONTEND holds one",
                                                          *frontend_used, e.frontend));
      if (!frontend_used)
        p.msr_writes.push_back({msr_pebs_frontend, "MSR_PEBS_FRONTEND", e.frontend, std::string(e.name)});
      frontend_used = e.frontend;
      config1[i] = e.frontend;
    }
  }

  const bool adaptive = spec.pebs_record_format >= adaptive_record_format;
  std::uint64_t fixed_ctrl = 0;
  std::uint64_t global = 0;
  std::uint64_t pebs_enable = 0;
  for (const CounterAssignment& a : assignments) {
    const EventSpec& e = *a.event;
    if (a.fixed) {
      p.msr_writes.push_back({ia32_fixed_ctr0 + a.index, counter_name(a), initial,
                              sampling ? fmt::format("2^{} - {}", spec.counter_width, period) : "count from zero"});
      // Per fixed counter, 4 bits: 0 = ring 0, 1 = rings 1-3, 3 = PMI.
      // A PEBS counter raises no PMI of its own (as for the general ones below).
      const std::uint64_t field = (privilege != Privilege::user ? 1 : 0) | (privilege != Privilege::kernel ? 2 : 0) |
                                  (sampling && !a.pebs ? 8 : 0);
      fixed_ctrl |= field << (4 * a.index);
      if (a.pebs && adaptive) fixed_ctrl |= std::uint64_t{1} << (32 + 4 * a.index);
      global |= std::uint64_t{1} << (32 + a.index);
      if (a.pebs) pebs_enable |= std::uint64_t{1} << (32 + a.index);
      continue;
    }
    p.msr_writes.push_back({ia32_pmc0 + a.index, counter_name(a), initial,
                            sampling ? fmt::format("2^{} - {}: overflows after {} events", spec.counter_width, period,
                                                   period)
                                   : "count from zero"});
    // A PEBS counter raises no PMI of its own: the DS buffer threshold does
    // (Linux intel_pmu_pebs_enable clears INT).
    const bool interrupt = sampling && !a.pebs;
    p.msr_writes.push_back({ia32_perfevtsel0 + a.index, fmt::format("IA32_PERFEVTSEL{}", a.index),
                            perfevtsel(e, privilege, interrupt) | (a.pebs && adaptive ? perfevtsel_adaptive : 0),
                            fmt::format("{} ({}){}", e.name, code_string(e), a.pebs ? ", PEBS" : "")});
    global |= std::uint64_t{1} << a.index;
    if (a.pebs) pebs_enable |= std::uint64_t{1} << a.index;
  }
  if (any_load_latency && spec.uarch == Microarchitecture::sapphire_rapids) {
    // The auxiliary event counts beside the load-latency event, on a
    // general counter of its own (perf: the group's leader).
    unsigned used = 0;
    for (const CounterAssignment& a : assignments)
      if (!a.fixed) used |= 1u << a.index;
    const unsigned free = ((1u << spec.general_counters) - 1) & ~used;
    if (free == 0)
      throw Error(ErrorCode::not_supported,
                  fmt::format("no general-purpose counter left for mem-loads-aux (0x03:0x82), which Sapphire Rapids' "
                              "load latency needs beside it: request fewer events"));
    const unsigned index = static_cast<unsigned>(std::countr_zero(free));
    const EventSpec aux{.event = 0x03, .umask = 0x82, .name = "mem-loads-aux"};
    p.msr_writes.push_back({ia32_perfevtsel0 + index, fmt::format("IA32_PERFEVTSEL{}", index),
                            perfevtsel(aux, privilege, false), "mem-loads-aux (0x03:0x82), for the load latency"});
    global |= std::uint64_t{1} << index;
  }
  if (fixed_ctrl) p.msr_writes.push_back({ia32_fixed_ctr_ctrl, "IA32_FIXED_CTR_CTRL", fixed_ctrl, ""});
  if (pebs_enable && adaptive)
    p.msr_writes.push_back({msr_pebs_data_cfg, "MSR_PEBS_DATA_CFG", pebs_data_cfg_memory_info,
                            "adaptive PEBS: the basic group and the memory info group (data linear address, data "
                            "source, latency)"});
  if (pebs_enable)
    p.msr_writes.push_back({ia32_pebs_enable, "IA32_PEBS_ENABLE", pebs_enable,
                            "IA32_DS_AREA (0x600) must already point to a DS save area with a PEBS buffer"});
  p.msr_writes.push_back({ia32_perf_global_ctrl, "IA32_PERF_GLOBAL_CTRL", global, "start the programmed counters"});

  if (any_load_latency && spec.uarch == Microarchitecture::sapphire_rapids) {
    PerfEvent aux;
    aux.attr = make_perf_attr();
    aux.attr.type = PERF_TYPE_RAW;
    aux.attr.config = mem_loads_aux_config;
    aux.attr.exclude_user = privilege == Privilege::kernel;
    aux.attr.exclude_kernel = privilege == Privilege::user;
    aux.description = "mem-loads-aux (0x03:0x82): the group leader Sapphire Rapids' load latency event needs; open "
                      "the load latency event with this one's fd as group_fd";
    p.perf_events.push_back(aux);
    p.notes.push_back("Sapphire Rapids: MEM_TRANS_RETIRED.LOAD_LATENCY must be in a group led by mem-loads-aux "
                      "(event=0x03,umask=0x82), as perf mem does; the kernel refuses it alone");
  }
  for (std::size_t i = 0; i < assignments.size(); ++i) {
    const CounterAssignment& a = assignments[i];
    const EventSpec& e = *a.event;
    PerfEvent pe;
    pe.attr = make_perf_attr();
    pe.attr.type = PERF_TYPE_RAW;
    pe.attr.config = perf_raw_config(e);
    if (r.events[i].offcore_response) pe.attr.config1 = *r.events[i].offcore_response;
    if (config1[i] != 0) pe.attr.config1 = config1[i];
    pe.attr.exclude_user = privilege == Privilege::kernel;
    pe.attr.exclude_kernel = privilege == Privilege::user;
    if (sampling) {
      pe.attr.sample_period = period;
      pe.attr.sample_type = sampling_type;
    }
    if (a.pebs) {
      pe.attr.precise_ip = spec.perf_precise_ip;
      // precise_ip 3 only where perf schedules it (Sapphire Rapids' PDist).
      const bool ppp_here = a.fixed ? a.index == 0 : (spec.perf_ppp_counters >> a.index & 1) != 0;
      if (pe.attr.precise_ip == 3 && !ppp_here) {
        pe.attr.precise_ip = 2;
        p.notes.push_back(fmt::format("{} on {}: precise_ip = 2, as perf takes 3 (precise distribution) on {} only "
                                      "on IA32_PMC0 and fixed counter 0",
                                      e.name, counter_name(a), spec.backend));
      }
    }
    pe.description = fmt::format("{} {} on {}{}", sampling ? "sampling" : "counting", e.name, counter_name(a),
                                 a.pebs ? " with PEBS" : "");
    p.perf_events.push_back(pe);
    p.notes.push_back(fmt::format("{} ({}) -> {}{}", e.name, code_string(e), counter_name(a), a.pebs ? " (PEBS)" : ""));
  }

  if (any_pebs) {
    if (!r.period) p.notes.push_back(fmt::format("PEBS needs a period: sampling every {} events", default_pebs_period));
    p.notes.push_back(fmt::format("precise_ip up to {}: the PEBS record (format {}) carries EventingRIP, the eventing "
                                  "instruction itself, and perf reports it for precise_ip >= 2; precise_ip = 1 "
                                  "reports R/EIP, the instruction after it{}",
                                  spec.perf_precise_ip, spec.pebs_record_format,
                                  spec.perf_precise_ip >= 3 ? "; 3 asks for precise distribution where the event "
                                                              "has it (INST_RETIRED.PREC_DIST)"
                                                            : ""));
    p.notes.push_back(std::string(spec.pebs_note));
  }
  for (const CounterAssignment& a : assignments)
    if (a.fixed && a.event->fixed_counter >= 0)
      p.notes.push_back(fmt::format("perf chooses the counter itself: config {:#x} runs on fixed counter {} when it "
                                    "is free, else on a general-purpose counter",
                                    perf_raw_config(*a.event), a.index));
  return p;
}

}  // namespace tagop::intel_core
