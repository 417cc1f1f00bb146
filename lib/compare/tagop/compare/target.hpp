#pragma once
// What `tagop compare` compares: an event of any backend, or a predicate
// over the model's conditions, made into one predicate with its kind
// (fetch or op) explicit, so that every backend's events can be held
// against it (tagop/compare/nearest_events.hpp).
//
//   const tagop::compare::Target t = tagop::compare::resolve_target("0xF206");
//   // t.predicate is "op & load & dc.miss", t.unit the event's counting unit
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/event.hpp>      // EventEntry, CountingUnit
#include <tagop/predicate.hpp>  // Predicate

namespace tagop TAGOP_API {
namespace compare {

/// Whether the entry names a set of ops (a predicate, or every op of an
/// instruction-sampling or tagging mechanism), so that it can be compared
/// with other events; a counter of occurrences cannot, nor a precise event
/// whose condition the model cannot state.
bool has_op_predicate(const EventEntry& e);

/// The entry's predicate with its kind made explicit ("fetch & ..." or
/// "op & ..."), so that a fetch event and an op event with the same flags
/// are not "the same".
Predicate effective_predicate(const EventEntry& e);

/// What was asked for, as understood.
struct Target {
  /// An event's code, name, backend and unit; or the predicate, as text.
  std::string label;
  /// The ops (or fetches) asked for, with their kind explicit.
  Predicate predicate;
  /// An event's counting unit; none for a predicate, which asks for a
  /// count of ops in any unit of ops.
  std::optional<CountingUnit> unit{};
};

/// An event of any backend by any spelling (find_events), or else a
/// predicate; a predicate that names neither `op` nor `fetch` gets `fetch`
/// when a condition of it is of fetches (fetch*, ic.*, itlb.*), `op`
/// otherwise. Throws tagop::Error for an event without a predicate (it
/// counts occurrences), and for text that is neither, naming the closest
/// event names and the predicate's error.
Target resolve_target(std::string_view text);

}  // namespace compare
}  // namespace tagop
