// Registry::lookup: an event by any spelling people paste (vendor names,
// libpfm4 names, IBS selects, the SDM's codes, perf's raw and PMU-term
// spellings).

#include <tagop/registry.hpp>

#include <cctype>    // std::tolower, std::isspace
#include <charconv>  // std::from_chars
#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error
#include <tagop/names.hpp>  // ascii_lower, event_name_key, trim_space

namespace tagop {

namespace {


std::optional<std::uint64_t> parse_hex(std::string_view s) {
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
  else if (s.ends_with("h") || s.ends_with("H")) s.remove_suffix(1);  // the SDM's "E6H"
  std::uint64_t v = 0;
  if (s.empty()) return std::nullopt;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// An Intel event select and unit mask, however it was spelt.
struct IntelCode {
  std::uint64_t event = 0, umask = 0;
  std::uint64_t config_35_32 = 0;  ///< a raw config's bits 35:32 (AMD: event select bits 11:8)
};

bool has_code(const EventEntry& e, const IntelCode& c) {
  if (e.event_code.empty()) return false;
  const auto event = parse_hex(e.event_code);
  const auto umask = e.umask.empty() ? std::optional<std::uint64_t>(0) : parse_hex(e.umask);
  // An event code of three hex digits ("0x18E") is AMD's 12-bit select,
  // whose bits 11:8 a raw config carries in bits 35:32; two digits are
  // Intel's 8-bit select, for which those bits (in_tx, in_tx_cp) say how,
  // not what.
  const bool twelve_bit = e.event_code.size() == 5 && e.event_code.starts_with("0x");
  const std::uint64_t wanted = twelve_bit ? c.event | c.config_35_32 << 8 : c.event;
  return event && umask && *event == wanted && *umask == c.umask;
}

// perf's cpu/event=0xe6,umask=0x1/ and its raw r01e6 (umask in bits 15:8;
// the USR/OS/INT/EN bits above, as in r5301c4, say how, not what; on AMD,
// bits 35:32 are the event select's bits 11:8).
std::optional<IntelCode> perf_code(std::string_view t) {
  if (t.starts_with("r") && t.size() > 1) {
    const auto raw = parse_hex(t.substr(1));
    if (!raw) return std::nullopt;
    return IntelCode{.event = *raw & 0xFF, .umask = (*raw >> 8) & 0xFF, .config_35_32 = (*raw >> 32) & 0xF};
  }
  const auto slash = t.find('/');
  if (slash == std::string_view::npos || !t.ends_with("/")) return std::nullopt;
  std::string_view terms = t.substr(slash + 1, t.size() - slash - 2);
  IntelCode code;
  bool have_event = false;
  while (!terms.empty()) {
    const auto comma = terms.find(',');
    const std::string_view term = terms.substr(0, comma);
    terms = comma == std::string_view::npos ? std::string_view{} : terms.substr(comma + 1);
    const auto eq = term.find('=');
    if (eq == std::string_view::npos) continue;
    const auto value = parse_hex(term.substr(eq + 1));
    if (!value) return std::nullopt;
    if (term.substr(0, eq) == "event") code.event = *value, have_event = true;
    else if (term.substr(0, eq) == "umask") code.umask = *value;
  }
  if (!have_event) return std::nullopt;
  return code;
}

// perf's named cpu events for `perf mem`: mem-loads and mem-stores, bare
// or as cpu/mem-loads,ldlat=30/. Which event each names on which core is
// the kernel's (arch/x86/events/intel/core.c: mem_ld_hsw
// "event=0xcd,umask=0x1,ldlat=3" on Skylake and later; mem_st_hsw
// "event=0xd0,umask=0x82" on Skylake and Ice Lake, mem_st_spr
// "event=0xcd,umask=0x2" on Sapphire Rapids).
struct NamedPerfEvent {
  std::string_view name, backend;
  IntelCode code;
};
constexpr NamedPerfEvent perf_named_events[] = {
    {"mem-loads", "skylake", {0xCD, 0x01}},       {"mem-loads", "icelake", {0xCD, 0x01}},
    {"mem-loads", "sapphirerapids", {0xCD, 0x01}}, {"mem-stores", "skylake", {0xD0, 0x82}},
    {"mem-stores", "icelake", {0xD0, 0x82}},       {"mem-stores", "sapphirerapids", {0xCD, 0x02}},
};

// "mem-loads" of "mem-loads", "cpu/mem-loads/", "cpu/mem-loads,ldlat=30/"; "" otherwise.
std::string_view perf_event_name(std::string_view t) {
  if (const auto slash = t.find('/'); slash != std::string_view::npos && t.ends_with("/"))
    t = t.substr(slash + 1, t.size() - slash - 2);
  t = t.substr(0, t.find(','));
  for (const NamedPerfEvent& n : perf_named_events)
    if (n.name == t) return n.name;
  return {};
}

// "0xE6:0x01", "e6:01", "E6H:01H".
std::optional<IntelCode> sdm_code(std::string_view t) {
  const auto colon = t.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto event = parse_hex(t.substr(0, colon));
  const auto umask = parse_hex(t.substr(colon + 1));
  if (!event || !umask) return std::nullopt;
  return IntelCode{.event = *event, .umask = *umask};
}

bool same_code_text(const EventEntry& e, std::string_view t) {
  const std::string code = ascii_lower(e.code);
  return code == t || (code.starts_with("0x") && code.substr(2) == t);
}

// The backend a libpfm4 PMU name stands for ("slm" -> "silvermont"), or "".
std::string_view backend_of_libpfm_pmu(std::string_view pmu) {
  if (pmu == "slm") return "silvermont";
  if (pmu == "glm") return "goldmont";
  if (pmu == "netburst" || pmu == "netburst_p") return "p4";
  if (pmu == "skl" || pmu == "skx") return "skylake";
  if (pmu == "icl" || pmu == "icx") return "icelake";
  if (pmu == "spr") return "sapphirerapids";
  if (pmu == "amd64_fam17h_zen1") return "zen1";
  if (pmu == "amd64_fam17h_zen2") return "zen2";
  if (pmu == "amd64_fam19h_zen3") return "zen3";
  if (pmu == "amd64_fam19h_zen4") return "zen4";
  return {};
}

}  // namespace

std::vector<const EventEntry*> Registry::events() const {
  std::vector<const EventEntry*> out;
  for (const BackendInfo& b : backends_)
    for (const EventEntry& e : b.events()) out.push_back(&e);
  return out;
}

std::vector<const EventEntry*> Registry::lookup(std::string_view spelling) const {
  std::string t = ascii_lower(trim_space(spelling));
  std::string_view backend;
  // libpfm4's PMU::EVENT:UMASK names this PMU's table.
  if (const auto sep = t.find("::"); sep != std::string::npos) {
    backend = backend_of_libpfm_pmu(std::string_view(t).substr(0, sep));
    if (backend.empty()) return {};
    t = t.substr(sep + 2);
  }
  const std::string key = event_name_key(t);
  const auto perf = perf_code(t);
  const auto sdm = sdm_code(t);
  const std::string_view perf_name = perf_event_name(t);
  std::vector<const EventEntry*> out;
  for (const BackendInfo& b : backends_) {
    if (!backend.empty() && b.name != backend) continue;
    if (!perf_name.empty()) {
      // The first row of the code: the table's own order (for mem-loads
      // the lowest threshold; the programmer takes any).
      for (const NamedPerfEvent& n : perf_named_events)
        if (n.name == perf_name && n.backend == b.name)
          for (const EventEntry& e : b.events())
            if (has_code(e, n.code)) {
              out.push_back(&e);
              break;
            }
      continue;
    }
    for (const EventEntry& e : b.events()) {
      const std::string name = event_name_key(e.name);
      // A P4 event named with its mask bits (replay_event:NBOGUS) is the event.
      const bool p4_with_masks = e.backend == "p4" && key.starts_with(name + ".");
      if (name == key || p4_with_masks || (!e.abbreviation.empty() && ascii_lower(e.abbreviation) == t) ||
          same_code_text(e, t) || (perf && has_code(e, *perf)) || (sdm && has_code(e, *sdm)))
        out.push_back(&e);
    }
  }
  return out;
}

const EventEntry* Registry::lookup(std::string_view spelling, std::string_view backend) const {
  for (const EventEntry* e : lookup(spelling))
    if (e->backend == backend) return e;
  return nullptr;
}

std::vector<const EventEntry*> Registry::require(std::string_view spelling) const {
  std::vector<const EventEntry*> found = lookup(spelling);
  if (found.empty())
    throw Error(ErrorCode::not_found,
                fmt::format("no event '{}' in any table (names, IBS selects such as 0xF206, code:umask such as "
                            "0xC4:0x7E, perf's r01e6 or cpu/event=0xc4,umask=0x01/; see 'tagop events list')",
                            spelling));
  return found;
}

Programming Registry::program(const EventEntry& event, std::string_view spelled,
                              const ProgramOptions& options) const {
  const BackendInfo* b = find(event.backend);
  if (!b || !b->program)
    throw Error(ErrorCode::not_supported, fmt::format("tagop has no programmer for backend '{}'", event.backend));
  // The filters are IBS's registers' (IbsOpCtl, IbsFetchCtl): a counter's
  // event has no such bits.
  if ((options.ibs_l3_miss_only || options.ibs_load_latency) && b->mechanism != Mechanism::instruction_sampling)
    throw Error(ErrorCode::not_supported,
                fmt::format("{}: ProgramOptions::{} is an AMD IBS filter; {} ({}) has none", event.name,
                            options.ibs_l3_miss_only ? "ibs_l3_miss_only" : "ibs_load_latency", b->name, b->title));
  if (options.exclude_user && options.exclude_kernel)
    throw Error(ErrorCode::bad_input, "excluding both user and kernel code leaves nothing to sample");
  return b->program(event, spelled, options);
}

std::string Registry::program_command(const EventEntry& event, std::string_view spelled) const {
  const BackendInfo* b = find(event.backend);
  if (!b || !b->program_command) return {};
  return b->program_command(event, spelled);
}

}  // namespace tagop
