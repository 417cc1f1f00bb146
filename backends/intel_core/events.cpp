#include <tagop/intel_core/events.hpp>

#include <cctype>  // std::tolower, std::isxdigit
#include <utility>  // std::pair
#include <vector>   // std::vector

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop::intel_core {

namespace {
#include "intel_glm_events.hpp"  // intel_glm_event_table
#include "intel_icl_events.hpp"  // intel_icl_event_table
#include "intel_skl_events.hpp"  // intel_skl_event_table
#include "intel_slm_events.hpp"  // intel_slm_event_table
#include "intel_spr_events.hpp"  // intel_spr_event_table

// PEBS facts. Silvermont: SDM 18.6.1.1 and Table 18-13 (record format
// 0010b, the Haswell layout with 98H-A8H reserved); Linux boot logs on
// Silvermont parts print "PEBS fmt2+" and "bit width: 40". Goldmont: SDM
// 18.7.1 and Table 18-18 (format 0011b: 90H is the applicable-counter
// field, 98H the data linear address, C0H the TSC; counters R:48).
// Both: PEBS on IA32_PMC0 only (Linux intel_slm/glm_pebs_event_constraints
// use counter mask 0x1). Both records hold R/EIP, the instruction after
// the eventing one (trap-like), and EventingRIP at B0H, the eventing
// instruction itself; perf reports EventingRIP when precise_ip >= 2 and
// the format is >= 2 (arch/x86/events/intel/ds.c), so precise_ip = 2.
constexpr PmuSpec silvermont_spec{
    .uarch = Microarchitecture::silvermont,
    .backend = "silvermont",
    .title = "Intel Silvermont PEBS and event counters (SDM Table 19-25)",
    .sdm_table = "SDM Vol. 3B Table 19-25",
    .models = {0x37, 0x4A, 0x4D, 0x5A, 0x5D, 0x4C},
    .models_note = "SDM 19.12: 06_37H, 06_4AH, 06_4DH, 06_5AH, 06_5DH; Airmont 06_4CH runs the same PMU "
                   "(Linux groups INTEL_FAM6_ATOM_AIRMONT with Silvermont)",
    .general_counters = 2,
    .counter_width = 40,
    .fixed_counters = 3,
    .counters_note = "SDM Table 18-18: Silvermont counters read 40 bits, IA32_PMCx writes 32 bits sign-extended",
    .pebs_counters = 0x1,
    .pebs_record_format = 2,
    .pebs_record_bytes = 0xC0,
    .pebs_eventing_ip = true,
    .pebs_data_linear_address = false,
    .pebs_tsc = false,
    .perf_precise_ip = 2,
    .pebs_note = "PEBS on IA32_PMC0 only, precise events of SDM Table 18-12; record format 0010b (SDM Table 18-13): "
                 "R/EIP is the instruction after the eventing one, EventingRIP (B0H) the eventing instruction; "
                 "90H holds IA32_PERF_GLOBAL_STATUS; no data address, no TSC",
    .events = intel_slm_event_table,
};

constexpr PmuSpec goldmont_spec{
    .uarch = Microarchitecture::goldmont,
    .backend = "goldmont",
    .title = "Intel Goldmont PEBS and event counters (SDM Table 19-24)",
    .sdm_table = "SDM Vol. 3B Table 19-24",
    .models = {0x5C, 0x5F},
    .models_note = "SDM 19.11: 06_5CH and 06_5FH; Goldmont Plus (06_7AH) has a different table and PMU",
    .general_counters = 4,
    .counter_width = 48,
    .fixed_counters = 3,
    .counters_note = "SDM Table 18-18: Goldmont counters read 48 bits, IA32_PMCx writes 32 bits sign-extended "
                     "(48 through the full-width aliases)",
    .pebs_counters = 0x1,
    .pebs_record_format = 3,
    .pebs_record_bytes = 0xC8,
    .pebs_eventing_ip = true,
    .pebs_data_linear_address = true,
    .pebs_tsc = true,
    .perf_precise_ip = 2,
    .pebs_note = "PEBS on IA32_PMC0 only (SDM 18.7.1), for precise and non-precise events; record format 0011b: "
                 "R/EIP is the instruction after the eventing one, EventingRIP (B0H) the eventing instruction "
                 "(with reduced skid unless INV/EDGE/CMASK are set), 90H the applicable counter, 98H the data "
                 "linear address of the eventing instruction, C0H the TSC",
    .events = intel_glm_event_table,
};

// The big cores. Counters: CPUID.0AH as Linux reports it ("generic
// registers", "bit width", "fixed-purpose events" in the boot log) and the
// SDM (Skylake 18.3.8, Ice Lake 18.3.10, Sapphire Rapids 18.3.11): 48-bit
// counters, full-width writes through IA32_A_PMCx; Skylake has 4 general
// counters per thread with hyper-threading on (8 with it off), Ice Lake
// and Sapphire Rapids 8, and these three have PEBS on every general
// counter. Precise distribution (PDIR): Skylake's INST_RETIRED.PREC_DIST
// on IA32_PMC1 (perfmon "Counter": "1"), Ice Lake's and Sapphire Rapids'
// on fixed counter 0. perf allows precise_ip = 3 on all three
// (x86_pmu_max_precise: PEBS, format >= 2, pebs_prec_dist).
//
// Data source: perf writes PERF_SAMPLE_DATA_SRC from the record's data
// source field through arch/x86/events/intel/ds.c: pebs_data_source[]
// patched by intel_pmu_pebs_data_source_skl() (Skylake; with PMEM for
// Skylake-SP/Cascade Lake and Ice Lake-SP, intel_pmu_init's pmem flag),
// load_latency_data() for MEM_TRANS_RETIRED.LOAD_LATENCY and
// store_latency_data() for Sapphire Rapids' STORE_SAMPLE.
// lib/tagop/mem_data_src.hpp (read_data_src) reads what perf writes; the
// encodings are not repeated here.
constexpr std::string_view big_core_data_source_note =
    "perf writes PERF_SAMPLE_DATA_SRC from the PEBS data source through the kernel's pebs_data_source[] "
    "(arch/x86/events/intel/ds.c); tagop reads it with read_data_src (lib/tagop/mem_data_src.hpp)";

constexpr PmuSpec skylake_spec{
    .uarch = Microarchitecture::skylake,
    .backend = "skylake",
    .title = "Intel Skylake and Cascade Lake PEBS and event counters (perfmon SKL/SKX/CLX)",
    .sdm_table = "Intel perfmon SKYLAKE/SKYLAKEX/CASCADELAKEX core events",
    .models = {0x4E, 0x5E, 0x8E, 0x9E, 0xA5, 0xA6, 0x55},
    .models_note = "perfmon mapfile: 06_4EH, 06_5EH, 06_8EH, 06_9EH, 06_A5H, 06_A6H (client: Skylake, Kaby, Coffee, "
                   "Whiskey, Comet Lake) and 06_55H (Skylake-SP steppings 0-4, Cascade Lake 5 and up): every client "
                   "event has the same encoding in the server files; server-only rows say so",
    .general_counters = 4,
    .counter_width = 48,
    .fixed_counters = 3,
    .counters_note = "4 general-purpose counters per thread with hyper-threading on, 8 with it off (CPUID.0AH:EAX[15:8]); "
                     "48 bits, written whole through IA32_A_PMCx (0x4C1)",
    .pebs_counters = 0xFF,
    .pebs_fixed_counters = 0,
    .pebs_record_format = 3,
    .pebs_record_bytes = 0xC8,
    .pebs_eventing_ip = true,
    .pebs_data_linear_address = true,
    .pebs_load_latency = true,
    .pebs_tsc = true,
    .data_source_note = big_core_data_source_note,
    .perf_precise_ip = 3,
    .pebs_note = "PEBS on every general-purpose counter, none on the fixed ones; record format 0011b (SDM 18.3.8.1, "
                 "the kernel's struct pebs_record_skl, 0xC8 bytes): EventingIP (B0H), data linear address (98H), data "
                 "source (A0H), load latency (A8H), TSX tuning (B8H), TSC (C0H); PDIR with INST_RETIRED.PREC_DIST on "
                 "IA32_PMC1",
    .events = intel_skl_event_table,
};

constexpr PmuSpec icelake_spec{
    .uarch = Microarchitecture::icelake,
    .backend = "icelake",
    .title = "Intel Ice Lake PEBS and event counters (perfmon ICL/ICX)",
    .sdm_table = "Intel perfmon ICELAKE/ICELAKEX core events",
    .models = {0x7D, 0x7E, 0x6A, 0x6C},
    .models_note = "perfmon mapfile: 06_7DH, 06_7EH (client) and 06_6AH, 06_6CH (Ice Lake-SP): the same core events "
                   "with the same encodings; rows of one file only say so",
    .general_counters = 8,
    .counter_width = 48,
    .fixed_counters = 4,
    .counters_note = "8 general-purpose counters, many events on IA32_PMC0-3 only (perfmon \"Counter\"); fixed counter 3 "
                     "counts TOPDOWN.SLOTS, with PERF_METRICS beside it",
    .pebs_counters = 0xFF,
    .pebs_fixed_counters = 0xF,
    .pebs_record_format = 4,
    .pebs_record_bytes = 0,
    .pebs_eventing_ip = true,
    .pebs_data_linear_address = true,
    .pebs_load_latency = true,
    .pebs_tsc = true,
    .data_source_note = big_core_data_source_note,
    .perf_precise_ip = 3,
    .pebs_note = "Extended PEBS on every general and fixed counter (IA32_PEBS_ENABLE bits 32-35); adaptive PEBS, "
                 "record format 0100b (SDM 18.9.2): a basic group (record format and size, the eventing "
                 "instruction's IP, applicable counters, TSC) and the groups MSR_PEBS_DATA_CFG selects: memory info "
                 "(data linear address, data source, latency, TSX), GPRs, XMM, LBRs; PDIR with "
                 "INST_RETIRED.PREC_DIST on fixed counter 0",
    .events = intel_icl_event_table,
};

constexpr PmuSpec sapphire_rapids_spec{
    .uarch = Microarchitecture::sapphire_rapids,
    .backend = "sapphirerapids",
    .title = "Intel Sapphire Rapids and Emerald Rapids PEBS and event counters (perfmon SPR/EMR)",
    .sdm_table = "Intel perfmon SAPPHIRERAPIDS/EMERALDRAPIDS core events",
    .models = {0x8F, 0xCF},
    .models_note = "perfmon mapfile: 06_8FH (Sapphire Rapids) and 06_CFH (Emerald Rapids, whose perfmon core file has "
                   "the same events with the same encodings, less the two PMM rows; Linux drives both alike)",
    .general_counters = 8,
    .counter_width = 48,
    .fixed_counters = 4,
    .counters_note = "8 general-purpose counters, many events on IA32_PMC0-3 only and some on IA32_PMC0 or IA32_PMC1-7 "
                     "only (perfmon \"Counter\"); fixed counter 3 counts TOPDOWN.SLOTS",
    .pebs_counters = 0xFF,
    .pebs_fixed_counters = 0xF,
    .pebs_record_format = 4,
    .pebs_record_bytes = 0,
    .pebs_eventing_ip = true,
    .pebs_data_linear_address = true,
    .pebs_load_latency = true,
    .pebs_tsc = true,
    .data_source_note = big_core_data_source_note,
    .perf_precise_ip = 3,
    // spr_get_event_constraints (arch/x86/events/intel/core.c): ":ppp
    // indicates the Precise Distribution (PDist) facility, which is only
    // supported on the GP counter 0", instructions on fixed counter 0.
    .perf_ppp_counters = 0x1,
    .pebs_note = "Adaptive PEBS as on Ice Lake (record format 0100b; format 0101b, where a part reports it, changes "
                 "only the DS area's counter-reset fields, not the record); load latency needs the auxiliary event "
                 "0x03:0x82 (perf's mem-loads-aux) as its group leader (the kernel's PMU_FL_MEM_LOADS_AUX); "
                 "MEM_TRANS_RETIRED.STORE_SAMPLE samples stores with their latency",
    .events = intel_spr_event_table,
};

constexpr const PmuSpec* all_specs[] = {&silvermont_spec, &goldmont_spec, &skylake_spec, &icelake_spec,
                                        &sapphire_rapids_spec};
// pmu_spec indexes all_specs by the enum.
static_assert([] {
  for (std::size_t i = 0; i < std::size(all_specs); ++i)
    if (static_cast<std::size_t>(all_specs[i]->uarch) != i) return false;
  return std::size(all_specs) == std::size(all_microarchitectures);
}());

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "0xC4", "c4", "C4H" -> 0xC4; nullopt when it is not one or two hex digits.
std::optional<std::uint8_t> parse_hex_byte(std::string_view s) {
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
  else if (s.ends_with('h') || s.ends_with('H')) s.remove_suffix(1);
  if (s.empty() || s.size() > 2) return std::nullopt;
  unsigned v = 0;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10);
  }
  return static_cast<std::uint8_t>(v);
}

// The raw encodings the Linux kernel schedules on each fixed counter
// (FIXED_EVENT_CONSTRAINT in arch/x86/events/intel/core.c: 0x00c0, 0x003c,
// the pseudo-encoding 0x0300 for the reference cycles and 0x0400 for
// TOPDOWN.SLOTS), and 0x0100, the pseudo-encoding of Ice Lake's and later
// INST_RETIRED.PREC_DIST on fixed counter 0.
constexpr std::uint16_t fixed_counter_perf_config[] = {0x00C0, 0x003C, 0x0300, 0x0400};
constexpr std::uint16_t prec_dist_fixed_perf_config = 0x0100;

// What one count of an event is, by its SDM name (Tables 19-24 and 19-25
// say "instructions", "uops" or "loads" in each description): the
// *INST_RETIRED, BR_*_RETIRED and fixed "Instruction" events count
// instructions, the *UOPS*_RETIRED, REHABQ and MISALIGN_MEM_REF ones uops;
// LD_BLOCKS counts blocks, and the rest occurrences or cycles.
constexpr std::pair<std::string_view, CountingUnit> unit_by_name_prefix[] = {
    {"INST_RETIRED.", CountingUnit::instructions},   {"BR_INST_RETIRED.", CountingUnit::instructions},
    {"BR_MISP_RETIRED.", CountingUnit::instructions}, {"Instruction Retired", CountingUnit::instructions},
    {"Branch ", CountingUnit::instructions},          {"UOPS_RETIRED.", CountingUnit::uops},
    // Skylake and later: perfmon says "retired load instructions",
    // "retired memory instructions", "retired instructions".
    {"MEM_INST_RETIRED.", CountingUnit::instructions}, {"MEM_LOAD_RETIRED.", CountingUnit::instructions},
    {"MEM_LOAD_L3_HIT_RETIRED.", CountingUnit::instructions},
    {"MEM_LOAD_L3_MISS_RETIRED.", CountingUnit::instructions},
    {"MEM_LOAD_MISC_RETIRED.", CountingUnit::instructions}, {"MEM_TRANS_RETIRED.", CountingUnit::instructions},
    {"FRONTEND_RETIRED.", CountingUnit::instructions},  {"UOPS_ISSUED.", CountingUnit::uops},
    {"UOPS_EXECUTED.", CountingUnit::uops},            {"UOPS_DISPATCHED.", CountingUnit::uops},
    {"MEM_UOPS_RETIRED.", CountingUnit::uops},        {"MEM_LOAD_UOPS_RETIRED.", CountingUnit::uops},
    {"REHABQ.", CountingUnit::uops},                  {"MISALIGN_MEM_REF.", CountingUnit::uops},
    {"CPU_CLK_UNHALTED.", CountingUnit::cycles},
};

CountingUnit unit_of(std::string_view name) {
  for (const auto& [prefix, unit] : unit_by_name_prefix)
    if (name.starts_with(prefix)) return unit;
  return CountingUnit::occurrences;
}

}  // namespace

const PmuSpec& pmu_spec(Microarchitecture uarch) { return *all_specs[static_cast<std::size_t>(uarch)]; }

std::optional<Microarchitecture> parse_microarchitecture(std::string_view name) {
  const std::string n = lower(name);
  if (n == "silvermont" || n == "slm") return Microarchitecture::silvermont;
  if (n == "goldmont" || n == "glm") return Microarchitecture::goldmont;
  if (n == "skylake" || n == "skl") return Microarchitecture::skylake;
  if (n == "icelake" || n == "icl") return Microarchitecture::icelake;
  if (n == "sapphirerapids" || n == "spr") return Microarchitecture::sapphire_rapids;
  return std::nullopt;
}

std::optional<Microarchitecture> microarchitecture_of(unsigned family, unsigned model) {
  if (family != 6) return std::nullopt;
  for (const PmuSpec* spec : all_specs)
    for (std::uint8_t m : spec->models)
      if (m != 0 && m == model) return spec->uarch;
  return std::nullopt;
}

const EventSpec* find_event(Microarchitecture uarch, std::string_view text) {
  const PmuSpec& spec = pmu_spec(uarch);
  const std::string wanted = lower(text);
  for (const EventSpec& e : spec.events)
    if (lower(e.name) == wanted) return &e;
  if (const auto colon = text.find(':'); colon != std::string_view::npos) {
    const auto event = parse_hex_byte(text.substr(0, colon));
    const auto umask = parse_hex_byte(text.substr(colon + 1));
    if (event && umask)
      for (const EventSpec& e : spec.events)
        if (e.event == *event && e.umask == *umask) return &e;
  }
  return nullptr;
}

const EventSpec& require_event(Microarchitecture uarch, std::string_view text) {
  if (const EventSpec* e = find_event(uarch, text)) return *e;
  const PmuSpec& spec = pmu_spec(uarch);
  throw Error(ErrorCode::not_found, fmt::format("no event '{}' in the {} table ({}): give an SDM name such as BR_INST_RETIRED.JCC or a "
                          "code:umask such as 0xC4:0x7E (see 'tagop events list --backend {}')",
                          text, spec.backend, spec.sdm_table, spec.backend));
}

std::string code_string(const EventSpec& e) { return fmt::format("0x{:02X}:0x{:02X}", e.event, e.umask); }

std::uint64_t perfevtsel(const EventSpec& e, Privilege privilege, bool interrupt) {
  std::uint64_t v = e.event | std::uint64_t{e.umask} << 8;
  if (privilege != Privilege::kernel) v |= std::uint64_t{1} << 16;  // USR
  if (privilege != Privilege::user) v |= std::uint64_t{1} << 17;    // OS
  if (e.edge) v |= std::uint64_t{1} << 18;
  if (interrupt) v |= std::uint64_t{1} << 20;  // INT
  v |= std::uint64_t{1} << 22;                 // EN
  if (e.inv) v |= std::uint64_t{1} << 23;
  v |= std::uint64_t{e.cmask} << 24;
  return v;
}

std::uint64_t perf_raw_config(const EventSpec& e) {
  if (e.fixed_counter == 0 && e.name.ends_with(".PREC_DIST")) return prec_dist_fixed_perf_config;
  if (e.fixed_counter >= 0) return fixed_counter_perf_config[e.fixed_counter];
  return e.event | std::uint64_t{e.umask} << 8 | std::uint64_t{e.edge} << 18 | std::uint64_t{e.inv} << 23 |
         std::uint64_t{e.cmask} << 24;
}

std::span<const EventEntry> event_entries(Microarchitecture uarch) {
  struct Published {
    std::vector<std::string> strings;  // the views below point into these
    std::vector<EventEntry> entries;
  };
  auto publish = [](const PmuSpec& spec) {
    Published p;
    // Three strings per row; reserved so that push_back never moves them.
    p.strings.reserve(3 * spec.events.size());
    for (const EventSpec& e : spec.events) {
      const std::string& code = p.strings.emplace_back(code_string(e));
      const std::string& event = p.strings.emplace_back(fmt::format("0x{:02X}", e.event));
      const std::string& umask = p.strings.emplace_back(fmt::format("0x{:02X}", e.umask));
      p.entries.push_back(EventEntry{
          .backend = spec.backend,
          .name = e.name,
          .code = code,
          .abbreviation = "",
          .description = e.description,
          .predicate = e.predicate,
          .sums = "",
          .kind = SampleKind::op,
          .mechanism = e.precise ? Mechanism::precise_event : Mechanism::count_only,
          .precise = e.precise,
          .event_code = event,
          .umask = umask,
          .unit = unit_of(e.name),
      });
    }
    return p;
  };
  static const std::vector<Published> published = [&] {
    std::vector<Published> out;
    out.reserve(std::size(all_specs));
    for (const PmuSpec* spec : all_specs) out.push_back(publish(*spec));
    return out;
  }();
  return published[static_cast<std::size_t>(uarch)].entries;
}

}  // namespace tagop::intel_core
