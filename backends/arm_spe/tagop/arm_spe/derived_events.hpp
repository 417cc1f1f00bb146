#pragma once
// Arm SPE derived events: questions asked of SPE's sampled operations, as
// a table (events/arm_spe_events.hpp), and its rows as engine queries.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <span>         // std::span
#include <string_view>  // std::string_view

#include <tagop/api.hpp>     // TAGOP_API
#include <tagop/engine.hpp>  // Query
#include <tagop/event.hpp>   // EventEntry

namespace tagop TAGOP_API {
namespace arm_spe {

/// One row of events/arm_spe_events.hpp.
struct SpeEventSpec {
  std::string_view name;         ///< "SPE L1D refill loads"
  std::string_view perf_event;   ///< perf's --itrace event with the same samples ("l1d-miss"), or ""
  std::string_view predicate;    ///< over every SPE sample
  std::string_view sums;         ///< a measure name, or "" for a count
  std::string_view description;  ///< what it counts, in words
};

/// The table, in its order.
std::span<const SpeEventSpec> derived_event_table();

/// Each row as an engine query (kind op and its predicate, summing its
/// measure). Parsed once, on first use; a bad row throws tagop::Error.
std::span<const Query> derived_event_queries();

/// The table as the registry's vendor-neutral entries (backend "arm-spe").
std::span<const EventEntry> derived_event_entries();

}  // namespace arm_spe
}  // namespace tagop
