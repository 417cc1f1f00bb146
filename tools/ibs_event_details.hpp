#pragma once
// `tagop events show` for an IBS derived event: how the event table reads
// it on the processors where Family 10h's words needed reading, and, for
// one processor (--family), whether it can be counted there and which bits
// decide it.

#include <cstddef>   // std::size_t
#include <optional>  // std::optional

#include <nlohmann/json.hpp>  // JSON output

#include <tagop/event.hpp>  // EventEntry

#include "ibs_processor.hpp"

namespace tagop::cli {

/// Prints the readings, and the decision on `processor` when given.
void print_ibs_event_details(const EventEntry& e, const std::optional<IbsProcessor>& processor, std::size_t width);

/// The same as JSON: {"readings": [...], "on": {...}}.
nlohmann::ordered_json ibs_event_details_json(const EventEntry& e, const std::optional<IbsProcessor>& processor);

}  // namespace tagop::cli
