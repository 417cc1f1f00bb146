#pragma once
// CodeAnalyst's IBS derived events (0xF000-0xF24C): the table's row type,
// the table, and its rows compiled into engine queries.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <array>        // std::array
#include <cstdint>      // std::uint16_t, std::uint32_t
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/amd_ibs/layout.hpp>     // CpuRange
#include <tagop/amd_ibs/registers.hpp>  // IbsUnit
#include <tagop/engine.hpp>             // Query
#include <tagop/event.hpp>              // EventEntry

namespace tagop TAGOP_API {
namespace amd_ibs {

/// The processors a reading of an event applies to.
struct EventProcessors {
  std::string_view name;  ///< "Zen 1 to Zen 3 (no IBS capability bit 11)"
  std::array<CpuRange, 2> cpus{};
  std::uint32_t needs_caps = 0, unless_caps = 0;
  constexpr bool contains(unsigned family, unsigned model, std::uint32_t caps) const {
    return (cpus[0].contains(family, model) || cpus[1].contains(family, model)) &&
           (caps & needs_caps) == needs_caps && (caps & unless_caps) == 0;
  }
};

/// How seed 000's Family 10h words read on some processors, and why.
struct EventReading {
  EventProcessors processors;
  std::string_view text;
};

/// One row of events/amd_ibs_derived_events.hpp.
struct IbsDerivedEventSpec {
  std::uint16_t select;
  std::string_view name;
  std::string_view abbreviation;
  IbsUnit unit;
  std::string_view predicate;  ///< over the samples of `unit`; "" = all of them
  std::string_view sums;       ///< a measure name, or "" for a count
  std::span<const EventReading> readings{};
  std::string_view description;
};

/// The table, in select order.
std::span<const IbsDerivedEventSpec> derived_event_table();

/// Each row as an engine query: the unit's kind condition and the row's
/// predicate, summing the row's measure. Parsed once, on first use.
std::span<const Query> derived_event_queries();

/// The row with this select value, or nullptr.
const IbsDerivedEventSpec* find_derived_event(std::uint16_t select);

/// "0xF206"
std::string select_string(std::uint16_t select);

/// The table as the registry's vendor-neutral entries.
std::span<const EventEntry> derived_event_entries();

}  // namespace amd_ibs
}  // namespace tagop
