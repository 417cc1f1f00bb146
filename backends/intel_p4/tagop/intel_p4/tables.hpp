#pragma once
// The Pentium 4 (NetBurst) tables: ESCRs, counters, the events that
// at-retirement tagging uses and the 19 metrics of SDM Tables 19-31, 19-32
// and 19-33. The rows live in events/intel_p4_events.hpp and
// events/intel_p4_metrics.hpp; these are their types and lookups.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <array>        // std::array
#include <cstdint>      // std::uint8_t, std::uint32_t
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/event.hpp>  // EventEntry

namespace tagop TAGOP_API {
namespace intel_p4 {

/// An event selection control register (SDM Table 19-28 and 18.15.2).
struct EscrSpec {
  std::string_view name{};         ///< "CRU_ESCR2"; the MSR is MSR_CRU_ESCR2
  std::uint32_t msr = 0;
  std::uint8_t escr_select = 0;    ///< the CCCR ESCR-select value (bits 15:13) that picks it
  std::uint32_t counters = 0;      ///< bit n set: the ESCR can drive counter n
};

/// A counter and the CCCR that configures it (counter n: MSR 0x300+n,
/// CCCR n: MSR 0x360+n).
struct CounterSpec {
  std::uint8_t index = 0;
  std::string_view counter_name{};  ///< "MSR_IQ_COUNTER4"
  std::uint32_t counter_msr = 0;
  std::string_view cccr_name{};     ///< "MSR_IQ_CCCR4"
  std::uint32_t cccr_msr = 0;
};

/// One event-mask bit: table bit k is ESCR bit 9+k.
struct MaskBitSpec {
  std::string_view name{};
  std::uint8_t bit = 0;
};

inline constexpr std::size_t max_mask_bits = 8;

struct EventSpec {
  std::string_view name{};                      ///< as the SDM spells it
  std::uint8_t event_select = 0;                ///< ESCR bits 30:25
  std::uint8_t escr_select = 0;                 ///< CCCR bits 15:13, the same for every ESCR listed
  std::array<std::string_view, 2> escrs{};      ///< the ESCRs it may use, by EscrSpec::name
  std::array<MaskBitSpec, max_mask_bits> masks{};  ///< ends at the first empty name
  int linux_index = -1;                         ///< enum P4_EVENTS (perf_event_p4.h); -1: Linux lacks it
  std::string_view libpfm_name{};               ///< libpfm4 "netburst::" name; "": libpfm4 lacks it
  bool at_retirement = false;                   ///< counts tagged uops at retirement (PEBS-capable)
  bool tags_only = false;                       ///< marks uops for a downstream event, counts nothing
  std::string_view description{};
};

/// The three at-retirement tagging mechanisms (SDM 18.15.6.2-18.15.6.4).
enum class Tagging { front_end, execution, replay };

std::string_view tagging_name(Tagging t);

struct MetricSpec {
  std::string_view name{};
  Tagging tagging = Tagging::replay;
  std::string_view sdm_table{};                 ///< "19-33"
  std::string_view upstream{};                  ///< tagging event "event:MASK:MASK", "" when there is none
  std::string_view upstream_escr{};             ///< the one ESCR the SDM requires, "" = any the event may use
  std::uint8_t tag_value = 0;                   ///< upstream ESCR bits 8:5 as the SDM's table writes them
  std::uint32_t pebs_enable = 0;                ///< IA32_PEBS_ENABLE when counting (cause bits + bit 24)
  std::uint32_t matrix_vert = 0;                ///< MSR_PEBS_MATRIX_VERT
  std::string_view downstream{};                ///< "replay_event:NBOGUS" (tag bit 0 for execution)
  int linux_metric = 0;                         ///< enum P4_PEBS_METRIC; 0 = none
  std::string_view predicate{};                 ///< over lib/tagop/conditions.hpp
  std::string_view description{};
};

/// An event with its mask bits, as written "replay_event:NBOGUS:BOGUS".
struct ParsedEvent {
  const EventSpec* event = nullptr;  ///< nullptr: no such event
  std::uint32_t mask = 0;            ///< bit k = ESCR bit 9+k
  std::string_view bad_mask{};       ///< a mask name the event lacks, if any
};

/// Parses "event:MASK:MASK" (names case-insensitive).
ParsedEvent parse_event(std::string_view text);

// Register fields (SDM 18.15.3, Figures 18-33 and 18-34).
namespace escr_bits {
inline constexpr std::uint32_t t1_usr = 1u << 0;
inline constexpr std::uint32_t t1_os = 1u << 1;
inline constexpr std::uint32_t t0_usr = 1u << 2;
inline constexpr std::uint32_t t0_os = 1u << 3;
inline constexpr std::uint32_t tag_enable = 1u << 4;
inline constexpr unsigned tag_value_shift = 5;
inline constexpr unsigned event_mask_shift = 9;
inline constexpr unsigned event_select_shift = 25;
}  // namespace escr_bits

namespace cccr_bits {
inline constexpr std::uint32_t enable = 1u << 12;
inline constexpr unsigned escr_select_shift = 13;
inline constexpr std::uint32_t active_thread_any = 3u << 16;
inline constexpr std::uint32_t ovf_pmi_t0 = 1u << 26;
inline constexpr std::uint32_t ovf_pmi_t1 = 1u << 27;
}  // namespace cccr_bits

namespace pebs_enable_bits {
inline constexpr std::uint32_t uop_tag = 1u << 24;         // replay tagging on
inline constexpr std::uint32_t enable_my_thread = 1u << 25;  // PEBS for this logical processor
}  // namespace pebs_enable_bits

inline constexpr std::uint32_t msr_tc_precise_event = 0x3F0;
inline constexpr std::uint32_t msr_pebs_enable = 0x3F1;
inline constexpr std::uint32_t msr_pebs_matrix_vert = 0x3F2;
inline constexpr unsigned counter_width = 40;
/// The only counter PEBS can use (SDM 18.15.7.3): MSR_IQ_COUNTER4.
inline constexpr unsigned pebs_counter = 16;
/// Its CCCR's erratum makes Linux avoid it; so does tagop.
inline constexpr unsigned unusable_counter = 1;

std::span<const EscrSpec> escr_table();
std::span<const CounterSpec> counter_table();
std::span<const EventSpec> event_table();
std::span<const MetricSpec> metric_table();

/// Exact (case-insensitive) lookups; nullptr when there is no such row.
const EscrSpec* find_escr(std::string_view name);
const CounterSpec* find_counter(unsigned index);
const EventSpec* find_event(std::string_view name);
const MetricSpec* find_metric(std::string_view name);

/// The event's mask bit of that name, or nullptr.
const MaskBitSpec* find_mask_bit(const EventSpec& event, std::string_view name);

/// Up to `max` metric and event names closest to `name`, best first.
std::vector<std::string_view> closest_names(std::string_view name, std::size_t max = 4);

/// The metrics, then the events, as the registry's vendor-neutral entries.
std::span<const EventEntry> event_entries();

}  // namespace intel_p4
}  // namespace tagop
