#include <tagop/amd_core/events.hpp>

#include <array>    // std::array
#include <cctype>   // std::tolower
#include <charconv> // std::from_chars
#include <vector>   // std::vector

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop::amd_core {

namespace {
#include "amd_zen_events.hpp"  // amd_zen_event_table

// Counters: PPR "Core Performance Monitor Counters": six PERF_CTL/PERF_CTR
// pairs (Core::X86::Msr::PERF_CTL0-5 at C001_0200h + 2n), 48 bits wide, no
// fixed counters (libpfm4's four Zen PMUs: num_cntrs 6, num_fixed_cntrs 0).
// Linux (arch/x86/events/amd/core.c) schedules any event on any of the six,
// save the large-increment event 0x003, which takes an even/odd pair with
// the Merge event (0xFFF) on the odd counter. Zen 4 adds PerfMonV2 (CPUID
// 8000_0022h EAX[0]): PerfCntrGlobalCtl (C000_0301h) enables each counter
// besides its PERF_CTL.En, and PerfCntrGlobalStatus (C000_0300h) holds the
// overflows (Linux amd_pmu_v2_*).
constexpr const char* zen_counters_note =
    "6 core counters (PERF_CTL0-5 at C001_0200h + 2n, PERF_CTR0-5 at C001_0201h + 2n), 48 bits, no fixed counters; "
    "any event on any counter except the large-increment event 0x003, which needs an even/odd pair (Linux "
    "amd_get_event_constraints_f17h)";

constexpr std::array<ZenPmuSpec, 4> pmu_specs{{
    {.generation = Generation::zen1, .backend = "zen1", .title = "AMD Zen 1 core event counters (Family 17h PPR)",
     .libpfm_pmu = "amd64_fam17h_zen1", .perf_events_dir = "amdzen1", .family = 0x17,
     .models_note = "Family 17h models 00h-2Fh and 50h-5Fh (Zen and Zen+; Linux bsp_init_amd); libpfm4 takes "
                    "every model below 30h as Zen 1 and 50h-5Fh as Zen 2",
     .counters = 6, .counter_width = 48, .fixed_counters = 0, .perfmon_v2 = false, .counters_note = zen_counters_note},
    {.generation = Generation::zen2, .backend = "zen2", .title = "AMD Zen 2 core event counters (Family 17h PPR)",
     .libpfm_pmu = "amd64_fam17h_zen2", .perf_events_dir = "amdzen2", .family = 0x17,
     .models_note = "Family 17h models 30h-4Fh, 60h-7Fh, 90h-91h and A0h-AFh (Linux bsp_init_amd); libpfm4 "
                    "takes every model from 30h",
     .counters = 6, .counter_width = 48, .fixed_counters = 0, .perfmon_v2 = false, .counters_note = zen_counters_note},
    {.generation = Generation::zen3, .backend = "zen3", .title = "AMD Zen 3 core event counters (Family 19h PPR)",
     .libpfm_pmu = "amd64_fam19h_zen3", .perf_events_dir = "amdzen3", .family = 0x19,
     .models_note = "Family 19h models 00h-0Fh and 20h-5Fh (Linux bsp_init_amd; libpfm4 agrees)",
     .counters = 6, .counter_width = 48, .fixed_counters = 0, .perfmon_v2 = false, .counters_note = zen_counters_note},
    {.generation = Generation::zen4, .backend = "zen4", .title = "AMD Zen 4 core event counters (Family 19h PPR)",
     .libpfm_pmu = "amd64_fam19h_zen4", .perf_events_dir = "amdzen4", .family = 0x19,
     .models_note = "Family 19h models 10h-1Fh and 60h-AFh (Linux bsp_init_amd); libpfm4 takes every model "
                    "from 60h",
     .counters = 6, .counter_width = 48, .fixed_counters = 0, .perfmon_v2 = true,
     .counters_note = "6 core counters, 48 bits, no fixed counters, as Zen 1-3; PerfMonV2: PerfCntrGlobalCtl "
                      "(C000_0301h) enables each counter besides PERF_CTL.En, PerfCntrGlobalStatus (C000_0300h) "
                      "holds the overflows (CPUID 8000_0022h EAX[0]; Linux amd_pmu_v2)"},
}};

// Linux bsp_init_amd's model ranges: the one place they are written.
struct ModelRange {
  unsigned family, first, last;
  Generation generation;
};
constexpr ModelRange model_ranges[] = {
    {0x17, 0x00, 0x2F, Generation::zen1}, {0x17, 0x50, 0x5F, Generation::zen1},
    {0x17, 0x30, 0x4F, Generation::zen2}, {0x17, 0x60, 0x7F, Generation::zen2},
    {0x17, 0x90, 0x91, Generation::zen2}, {0x17, 0xA0, 0xAF, Generation::zen2},
    {0x19, 0x00, 0x0F, Generation::zen3}, {0x19, 0x20, 0x5F, Generation::zen3},
    {0x19, 0x10, 0x1F, Generation::zen4}, {0x19, 0x60, 0xAF, Generation::zen4},
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<std::uint64_t> parse_hex(std::string_view s) {
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
  else if (s.ends_with('h') || s.ends_with('H')) s.remove_suffix(1);
  if (s.empty() || s.size() > 16) return std::nullopt;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

bool on(const ZenEventSpec& e, Generation g) { return (e.generations & generation_bit(g)) != 0; }

}  // namespace

const ZenPmuSpec& pmu_spec(Generation generation) { return pmu_specs[static_cast<std::size_t>(generation)]; }

std::span<const ZenEventSpec> all_events() { return amd_zen_event_table; }

std::optional<Generation> parse_generation(std::string_view name) {
  const std::string n = lower(name);
  if (n == "zen+") return Generation::zen1;
  for (const ZenPmuSpec& spec : pmu_specs)
    if (n == spec.backend || n == spec.libpfm_pmu) return spec.generation;
  return std::nullopt;
}

std::optional<Generation> generation_of(unsigned family, unsigned model) {
  for (const ModelRange& r : model_ranges)
    if (r.family == family && model >= r.first && model <= r.last) return r.generation;
  return std::nullopt;
}

const ZenEventSpec* find_event(Generation generation, std::string_view text) {
  const std::string wanted = lower(text);
  for (const ZenEventSpec& e : amd_zen_event_table)
    if (on(e, generation) && lower(e.name) == wanted) return &e;
  // perf's raw config: event bits 7:0 and 35:32, umask 15:8; the rest
  // (USR, OS, Int, En) say how, not what.
  std::optional<std::uint64_t> event, umask;
  if (wanted.size() > 1 && wanted.starts_with('r')) {
    if (const auto raw = parse_hex(std::string_view(wanted).substr(1))) {
      event = (*raw & 0xFF) | ((*raw >> 32) & 0xF) << 8;
      umask = (*raw >> 8) & 0xFF;
    }
  } else if (const auto colon = wanted.find(':'); colon != std::string::npos) {
    event = parse_hex(std::string_view(wanted).substr(0, colon));
    umask = parse_hex(std::string_view(wanted).substr(colon + 1));
  } else {
    event = parse_hex(wanted);
    umask = 0;
  }
  if (!event || !umask) return nullptr;
  for (const ZenEventSpec& e : amd_zen_event_table)
    if (on(e, generation) && e.event == *event && e.umask == *umask) return &e;
  return nullptr;
}

const ZenEventSpec& require_event(Generation generation, std::string_view text) {
  if (const ZenEventSpec* e = find_event(generation, text)) return *e;
  const ZenPmuSpec& spec = pmu_spec(generation);
  throw Error(ErrorCode::not_found,
              fmt::format("no event '{}' in the {} table: give perf's name such as ex_ret_brn_misp, a code such as "
                          "0x0C3 or 0x18E:0x18, or perf's raw r5300c3 (see 'tagop events list --backend {}')",
                          text, spec.backend, spec.backend));
}

std::string code_string(const ZenEventSpec& e) {
  return e.umask == 0 ? fmt::format("0x{:03X}", e.event) : fmt::format("0x{:03X}:0x{:02X}", e.event, e.umask);
}

std::uint64_t perf_ctl(const ZenEventSpec& e, Privilege privilege, bool interrupt, const CounterModifiers& modifiers) {
  std::uint64_t v = perf_raw_config(e, modifiers);
  if (privilege != Privilege::kernel) v |= std::uint64_t{1} << 16;  // USR
  if (privilege != Privilege::user) v |= std::uint64_t{1} << 17;    // OS
  if (interrupt) v |= std::uint64_t{1} << 20;                       // Int
  v |= std::uint64_t{1} << 22;                                      // En
  return v;
}

std::uint64_t perf_raw_config(const ZenEventSpec& e, const CounterModifiers& modifiers) {
  return (e.event & 0xFFu) | std::uint64_t{e.umask} << 8 | std::uint64_t{modifiers.edge} << 18 |
         std::uint64_t{modifiers.inv} << 23 | std::uint64_t{modifiers.cmask} << 24 |
         std::uint64_t{(e.event >> 8) & 0xFu} << 32;
}

std::span<const EventEntry> event_entries(Generation generation) {
  struct Published {
    std::vector<std::string> strings;  // the views below point into these
    std::vector<EventEntry> entries;
  };
  auto publish = [](Generation g) {
    const ZenPmuSpec& spec = pmu_spec(g);
    Published p;
    // Three strings per row; reserved so that emplace_back never moves them.
    p.strings.reserve(3 * std::size(amd_zen_event_table));
    for (const ZenEventSpec& e : amd_zen_event_table) {
      if (!on(e, g)) continue;
      const std::string& code = p.strings.emplace_back(code_string(e));
      // Three hex digits: the 12-bit select (see Registry::lookup).
      const std::string& event = p.strings.emplace_back(fmt::format("0x{:03X}", e.event));
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
          // A core counter finds no op precisely: what it counts is an op
          // predicate where the row has one, never a precise sample.
          .mechanism = Mechanism::count_only,
          .precise = false,
          .event_code = event,
          .umask = umask,
          .unit = e.unit,
      });
    }
    return p;
  };
  static const std::array<Published, 4> published{publish(Generation::zen1), publish(Generation::zen2),
                                                  publish(Generation::zen3), publish(Generation::zen4)};
  return published[static_cast<std::size_t>(generation)].entries;
}

}  // namespace tagop::amd_core
