#pragma once
// One table entry as its output record (EventRow) and as text fields, shared by `events` and `compare`.

#include <string>  // std::string

#include <tagop/compare/target.hpp>  // has_op_predicate
#include <tagop/event.hpp>           // EventEntry

#include "output_records.hpp"  // EventRow

namespace tagop::cli {

EventRow event_row(const EventEntry& e);

/// "fetch" or "op".
std::string_view kind_name(const EventEntry& e);

/// What the entry counts, in the model: "load & dc.miss", "op" (every op
/// sample), or "(count only)".
std::string predicate_text(const EventEntry& e);

using compare::has_op_predicate;

}  // namespace tagop::cli
