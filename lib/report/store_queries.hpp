#pragma once
// Where a derived event's values are in a store IBS report: its queries
// (StoreReport's totals, a row's values) are derived_event_table()'s, in
// its order. One copy for the store's pages and its stacks.

#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint16_t

#include <tagop/amd_ibs/derived_events.hpp>  // derived_event_table, find_derived_event

namespace tagop::report::detail {

inline std::size_t query_of(std::uint16_t select) {
  return static_cast<std::size_t>(amd_ibs::find_derived_event(select) - amd_ibs::derived_event_table().data());
}

}  // namespace tagop::report::detail
