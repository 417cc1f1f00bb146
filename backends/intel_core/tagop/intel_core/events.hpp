#pragma once
// Intel's core PMUs with PEBS, all programmed through the architectural
// IA32_PERFEVTSELx, fixed counters and IA32_PEBS_ENABLE: the Silvermont and
// Goldmont event tables (SDM Vol. 3B Tables 19-25 and 19-24, plus the
// architectural events of Table 19-1 and the fixed counters) and the
// Skylake, Ice Lake and Sapphire Rapids ones (Intel's perfmon event data),
// the facts about each core's PMU that the programmer needs, and the
// lookups over them.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <array>        // std::array
#include <cstdint>      // std::uint8_t, std::uint16_t, std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/event.hpp>  // EventEntry

namespace tagop TAGOP_API {
namespace intel_core {

/// The tables this backend holds, one per core PMU.
enum class Microarchitecture : std::uint8_t { silvermont, goldmont, skylake, icelake, sapphire_rapids };

/// Every Microarchitecture, in enum order.
inline constexpr Microarchitecture all_microarchitectures[] = {
    Microarchitecture::silvermont, Microarchitecture::goldmont, Microarchitecture::skylake,
    Microarchitecture::icelake, Microarchitecture::sapphire_rapids};

/// General-purpose counters an event may use: bit i is IA32_PMCi.
inline constexpr std::uint8_t pmc0_1 = 0x3;
inline constexpr std::uint8_t pmc0_3 = 0xF;
/// MSR_PEBS_LD_LAT_THRESHOLD: the load-latency threshold of MEM_TRANS_RETIRED.LOAD_LATENCY (SDM 18.3.4.4.2).
inline constexpr std::uint32_t msr_pebs_ld_lat_threshold = 0x3F6;
/// MSR_PEBS_FRONTEND: what FRONTEND_RETIRED.* selects (SDM 18.3.9.2).
inline constexpr std::uint32_t msr_pebs_frontend = 0x3F7;

/// One row of events/intel_{slm,glm,skl,icl,spr}_events.hpp.
struct EventSpec {
  std::uint8_t event = 0;             ///< IA32_PERFEVTSELx[7:0]
  std::uint8_t umask = 0;             ///< IA32_PERFEVTSELx[15:8]
  std::string_view name{};            ///< as the SDM spells it: EVENT.UMASK
  std::uint8_t cmask = 0;             ///< IA32_PERFEVTSELx[31:24]
  bool inv = false;                   ///< IA32_PERFEVTSELx[23]
  bool edge = false;                  ///< IA32_PERFEVTSELx[18]
  std::uint8_t counters = 0;          ///< general-purpose counters it may use
  std::int8_t fixed_counter = -1;     ///< the fixed counter it runs on, or -1
  bool precise = false;               ///< PEBS-capable (a precise sample of the op)
  std::uint16_t offcore_msr = 0;      ///< MSR_OFFCORE_RSP_x it needs, or 0
  std::uint16_t ldlat = 0;            ///< load-latency threshold (MSR_PEBS_LD_LAT_THRESHOLD) it needs, or 0
  std::uint32_t frontend = 0;         ///< MSR_PEBS_FRONTEND value it needs, or 0
  std::string_view predicate{};       ///< over lib/tagop/conditions.hpp; "" = count-only
  std::string_view description{};
};

/// What one core's PMU can do, with where each fact comes from.
struct PmuSpec {
  Microarchitecture uarch = Microarchitecture::silvermont;
  std::string_view backend{};         ///< "silvermont"
  std::string_view title{};
  std::string_view sdm_table{};       ///< "SDM Vol. 3B Table 19-25"
  std::array<std::uint8_t, 8> models{};  ///< family 6 models; 0 ends the list
  std::string_view models_note{};
  unsigned general_counters = 0;      ///< CPUID.0AH:EAX[15:8]
  unsigned counter_width = 0;         ///< CPUID.0AH:EAX[23:16]
  unsigned fixed_counters = 0;
  std::string_view counters_note{};
  std::uint8_t pebs_counters = 0;     ///< general counters that can do PEBS (bit i = IA32_PMCi)
  std::uint8_t pebs_fixed_counters = 0;  ///< fixed counters that can do PEBS (bit i = IA32_FIXED_CTRi)
  unsigned pebs_record_format = 0;    ///< IA32_PERF_CAPABILITIES[11:8]
  unsigned pebs_record_bytes = 0;     ///< 0: adaptive PEBS, the size follows MSR_PEBS_DATA_CFG
  bool pebs_eventing_ip = false;      ///< the record holds the IP of the eventing instruction
  bool pebs_data_linear_address = false;  ///< the record holds the data linear address of loads and stores
  bool pebs_load_latency = false;     ///< MEM_TRANS_RETIRED.LOAD_LATENCY: the record holds latency and data source
  bool pebs_tsc = false;              ///< the record holds the TSC
  std::string_view data_source_note{};  ///< how perf writes the record's data source (lib/tagop/mem_data_src.hpp reads it)
  std::uint8_t perf_precise_ip = 0;   ///< what the programmer asks perf for
  /// General counters on which perf takes precise_ip 3 (bit i = IA32_PMCi);
  /// elsewhere the programmer asks for 2. Sapphire Rapids: IA32_PMC0 only
  /// (PDist), besides fixed counter 0.
  std::uint8_t perf_ppp_counters = 0xFF;
  std::string_view pebs_note{};       ///< the PEBS facts above with their sources
  std::span<const EventSpec> events{};  ///< the table
};

/// The PMU facts and table of one microarchitecture.
const PmuSpec& pmu_spec(Microarchitecture uarch);

/// "silvermont"/"slm", "goldmont"/"glm", "skylake"/"skl", "icelake"/"icl",
/// "sapphirerapids"/"spr", any case.
std::optional<Microarchitecture> parse_microarchitecture(std::string_view name);

/// The table a family/model selects (Goldmont Plus, 06_7AH, is a different
/// table and is not one of these; nor are hybrid parts such as Alder Lake).
std::optional<Microarchitecture> microarchitecture_of(unsigned family, unsigned model);

/// An event by its SDM name (any case) or by code and umask ("0xC4:0x7E",
/// "c4:7e", "C4H:7EH"); nullptr when the table has none (the lookup
/// convention of tagop/registry.hpp; Registry::lookup knows perf's
/// spellings too). Where several rows share a code and umask, the first
/// (the one without edge/cmask settings) is taken.
const EventSpec* find_event(Microarchitecture uarch, std::string_view text);
/// find_event, or tagop::Error(not_found) naming the table and what it holds.
const EventSpec& require_event(Microarchitecture uarch, std::string_view text);

/// "0xC4:0x7E"
std::string code_string(const EventSpec& e);

enum class Privilege : std::uint8_t { user, kernel, both };

/// IA32_PERFEVTSELx with EN set: event, umask, USR/OS, INT when `interrupt`,
/// and the row's edge/inv/cmask.
std::uint64_t perfevtsel(const EventSpec& e, Privilege privilege, bool interrupt);

/// perf's cpu PMU raw config (event=config:0-7, umask=config:8-15,
/// edge=config:18, inv=config:23, cmask=config:24-31). Fixed-counter rows
/// give the encoding the kernel schedules on that fixed counter.
std::uint64_t perf_raw_config(const EventSpec& e);

/// The table as the registry's vendor-neutral entries.
std::span<const EventEntry> event_entries(Microarchitecture uarch);

}  // namespace intel_core
}  // namespace tagop
