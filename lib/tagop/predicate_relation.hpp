#pragma once
// How two predicates over the condition vocabulary relate: what `tagop
// compare` uses to find, across vendors, the events that measure the same
// ops, a subset of them, or a superset.
//
// The relations are logical, under the vocabulary's implications
// (implication_table: an L2 miss is a DC miss): an assignment of conditions
// that breaks one is no op at all, so `l2.miss` and `dc.miss & l2.miss`
// are "same", and `l2.miss & !dc.miss` meets nothing.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <cstddef>      // std::size_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/predicate.hpp>  // Predicate

namespace tagop TAGOP_API {

/// Every assignment of conditions (that the implications allow) that meets
/// `a` also meets `b`.
/// Exact when the two use at most `exact_condition_limit` conditions between
/// them (every assignment is tried); beyond that a sound term-wise check
/// (each term of `a` contains some term of `b`) that may answer false for an
/// implication that holds.
bool implies(const Predicate& a, const Predicate& b);

inline constexpr unsigned exact_condition_limit = 20;

/// Some assignment meets both.
bool overlaps(const Predicate& a, const Predicate& b);

enum class Relation {
  same,         ///< a and b meet exactly the same assignments
  narrower,     ///< a implies b, not the other way round
  wider,        ///< b implies a, not the other way round
  overlapping,  ///< some assignments meet both, neither implies the other
  disjoint,     ///< no assignment meets both
};

/// How `a` relates to `b`: `relation(parse("load & dc.miss"), parse("load"))`
/// is Relation::narrower.
Relation relation(const Predicate& a, const Predicate& b);

/// "same", "narrower", "wider", "overlapping", "disjoint".
std::string_view relation_name(Relation r);

/// How close two predicates are, for ranking an event's neighbours: the
/// share of the assignments that meet either that meet both (1 for the
/// same predicate, 0 for disjoint ones), over the conditions either uses.
/// nullopt when they use more than exact_condition_limit conditions.
/// `load & dc.miss` shares 2/3 with `(load | store) & dc.miss`, 1/4 with
/// `load` alone.
std::optional<double> truth_table_overlap(const Predicate& a, const Predicate& b);

/// The term with what its conditions imply made explicit: a required
/// condition's conclusions required too, and whatever implies a forbidden
/// one forbidden.
Term closure(const Term& t);

/// The simplest predicate that meets the same ops under the implications:
/// terms no op can meet dropped, a condition another of the term implies
/// left out (`load & dc.miss & l2.miss` is `load & l2.miss`), a term that
/// implies another dropped. For showing what was asked, not for counting:
/// the engine counts by each sample's bits, which may contradict them.
Predicate simplest(const Predicate& p);

/// Why no op can meet `p` under the implications although its terms are
/// not contradictions by themselves: "l2.miss & !dc.miss: an access that
/// missed the L2 missed the L1 data cache first", a sentence per term,
/// joined by "; ". Empty when some op can meet it (or `p` is plain false).
std::string contradiction_text(const Predicate& p);

/// How many conditions one mentions and the other does not.
std::size_t condition_distance(const Predicate& a, const Predicate& b);

/// Orders neighbours, closest first: by truth_table_overlap (larger
/// first), then condition_distance (smaller first); false when neither is
/// closer (keep their order).
bool closer(const Predicate& target, const Predicate& a, const Predicate& b);

}  // namespace tagop
