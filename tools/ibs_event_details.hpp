#pragma once
// `tagop events show` for an IBS derived event: how the event table reads
// it on the processors where Family 10h's words needed reading, and, for
// one processor (--family), whether it can be counted there and which bits
// decide it.

#include <cstddef>   // std::size_t
#include <optional>  // std::optional

#include <tagop/event.hpp>  // EventEntry

#include "ibs_processor.hpp"
#include "output_records.hpp"  // IbsEventDetails

namespace tagop::cli {

/// Prints the readings, and the decision on `processor` when given.
void print_ibs_event_details(const EventEntry& e, const std::optional<IbsProcessor>& processor, std::size_t width);

/// The same as JSON: {"readings": [...], "on": {...}}.
/// The readings of an IBS derived event and, with a processor, whether it can be counted there;
/// nothing for a select value that names no derived event.
std::optional<IbsEventDetails> ibs_event_details(const EventEntry& e, const std::optional<IbsProcessor>& processor);

}  // namespace tagop::cli
