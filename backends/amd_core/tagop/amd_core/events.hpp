#pragma once
// The AMD Zen core PMU's events (Zen 1 to Zen 4; events/amd_zen_events.hpp),
// the facts about each generation's PMU that the programmer needs, and the
// lookups and encodings over them. These are the counting events beside
// IBS: none of them gives a precise sample (IBS does; see the amd-ibs
// backend).
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <cstdint>      // std::uint8_t, std::uint16_t, std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view

#include <tagop/api.hpp>    // TAGOP_API
#include <tagop/event.hpp>  // EventEntry, CountingUnit

namespace tagop TAGOP_API {
namespace amd_core {

/// A generation of AMD's Zen cores, each with its own event table in libpfm4
/// and in perf's pmu-events data.
enum class Generation : std::uint8_t {
  zen1,  ///< Family 17h models 00h-2Fh and 50h-5Fh (Zen, Zen+); libpfm4 amd64_fam17h_zen1
  zen2,  ///< Family 17h models 30h-4Fh, 60h-7Fh, 90h-91h, A0h-AFh; libpfm4 amd64_fam17h_zen2
  zen3,  ///< Family 19h models 00h-0Fh and 20h-5Fh; libpfm4 amd64_fam19h_zen3
  zen4,  ///< Family 19h models 10h-1Fh and 60h-AFh; libpfm4 amd64_fam19h_zen4
};

/// ZenEventSpec::generations bits: the row exists on that generation.
inline constexpr std::uint8_t on_zen1 = 1;
inline constexpr std::uint8_t on_zen2 = 2;  ///< see on_zen1
inline constexpr std::uint8_t on_zen3 = 4;  ///< see on_zen1
inline constexpr std::uint8_t on_zen4 = 8;  ///< see on_zen1

/// The bit of `generation` in ZenEventSpec::generations.
constexpr std::uint8_t generation_bit(Generation generation) {
  return static_cast<std::uint8_t>(1u << static_cast<unsigned>(generation));
}

/// One row of events/amd_zen_events.hpp.
struct ZenEventSpec {
  std::uint16_t event = 0;          ///< 12-bit event select: PERF_CTL[7:0] and [35:32]
  std::uint8_t umask = 0;           ///< PERF_CTL[15:8]
  std::string_view name{};          ///< as perf's pmu-events data spells it: ex_ret_brn_misp
  std::uint8_t generations = 0;     ///< on_zen1 | on_zen2 ...: where the row exists
  std::string_view predicate{};     ///< over lib/tagop/conditions.hpp; "" = count-only
  CountingUnit unit = CountingUnit::occurrences;  ///< what one count is
  std::string_view description{};  ///< what it counts, and why it is count-only where it is
};

/// What one generation's core PMU can do, with where each fact comes from.
struct ZenPmuSpec {
  Generation generation = Generation::zen1;  ///< which generation
  std::string_view backend{};         ///< "zen1"
  std::string_view title{};           ///< for `tagop events`
  std::string_view libpfm_pmu{};      ///< "amd64_fam17h_zen1"
  std::string_view perf_events_dir{}; ///< "amdzen1" (tools/perf/pmu-events/arch/x86/)
  unsigned family = 0;                ///< 0x17 or 0x19
  std::string_view models_note{};     ///< the model ranges and where they come from
  unsigned counters = 0;              ///< core counters (PERF_CTL0-5 / PERF_CTR0-5)
  unsigned counter_width = 0;         ///< bits in each PERF_CTR
  unsigned fixed_counters = 0;        ///< Zen has none
  bool perfmon_v2 = false;            ///< PerfMonV2: PerfCntrGlobalCtl and global status (CPUID 8000_0022h EAX[0])
  std::string_view counters_note{};   ///< counter restrictions and sources
};

/// The PMU facts of one generation.
const ZenPmuSpec& pmu_spec(Generation generation);

/// Every row of the one table, for every generation (check generations).
std::span<const ZenEventSpec> all_events();

/// "zen1".."zen4", "zen+", or libpfm4's PMU name ("amd64_fam19h_zen3"), any case.
std::optional<Generation> parse_generation(std::string_view name);

/// The generation of an AMD Family 17h or 19h processor, by the Linux
/// kernel's model ranges (arch/x86/kernel/cpu/amd.c); nullopt for other
/// families (Family 1Ah Zen 5 has no table here) and unknown models.
std::optional<Generation> generation_of(unsigned family, unsigned model);

/// An event of `generation` by its perf name (any case; "ex_ret_brn_misp"),
/// by code ("0xC3", "0x0C3", "0x18E:0x18", "c3") or by perf's raw config
/// ("r5300c3": event = config[7:0] and [35:32], umask = config[15:8]);
/// nullptr when that generation has none (the lookup convention of
/// tagop/registry.hpp).
const ZenEventSpec* find_event(Generation generation, std::string_view text);
/// find_event, or tagop::Error(not_found) naming the table and what it holds.
const ZenEventSpec& require_event(Generation generation, std::string_view text);

/// "0x0C3" for an event without a unit mask, "0x18E:0x18" with one.
std::string code_string(const ZenEventSpec& e);

/// Which privilege levels a counter counts in.
enum class Privilege : std::uint8_t {
  user,    ///< USR only (CPL > 0)
  kernel,  ///< OS only (CPL 0)
  both,    ///< USR and OS
};

/// PERF_CTL's counting modifiers: how an event is counted, not what. Every
/// row of the table counts with none; perf's metrics use them
/// (de_no_dispatch_per_slot.no_ops_from_frontend with cmask=6).
struct CounterModifiers {
  bool edge = false;       ///< Edge (bit 18): count when the CntMask comparison turns true, not every cycle it holds
  bool inv = false;        ///< Inv (bit 23): count cycles with fewer than CntMask events (needs a CntMask)
  std::uint8_t cmask = 0;  ///< CntMask (31:24): count cycles with at least this many events; 0 counts the events
};

/// Core::X86::Msr::PERF_CTL with En (bit 22) set: event select (bits 7:0
/// and 35:32), unit mask (15:8), USR (16) and OS (17) by `privilege`, Edge
/// (18), Int (20) when `interrupt`, Inv (23) and CntMask (31:24) from
/// `modifiers`.
std::uint64_t perf_ctl(const ZenEventSpec& e, Privilege privilege, bool interrupt,
                       const CounterModifiers& modifiers = {});

/// perf's cpu PMU raw config (PERF_TYPE_RAW), in the bits of the AMD cpu
/// PMU's sysfs format: event=config:0-7,32-35, umask=config:8-15,
/// edge=config:18, inv=config:23, cmask=config:24-31.
std::uint64_t perf_raw_config(const ZenEventSpec& e, const CounterModifiers& modifiers = {});

/// The rows of `generation` as the registry's vendor-neutral entries.
std::span<const EventEntry> event_entries(Generation generation);

}  // namespace amd_core
}  // namespace tagop
