#pragma once
// How each backend measures a target (tagop/compare/target.hpp): the
// events of its table that count the same ops, the same condition in
// another unit, or narrower or wider sets of ops, each group's nearest
// first; for instruction sampling (IBS), whether its samples observe every
// condition of the target, and the sampling filters whose population
// relates to it. `tagop compare` prints what these return.
//
//   const auto target = tagop::compare::resolve_target("load & dc.miss");
//   for (const tagop::compare::BackendNeighbours& b : tagop::compare::nearest_events(target))
//     for (const tagop::compare::Neighbour& n : b.same) fmt::print("{} {}\n", b.backend->name, n.entry->name);
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).
// The tables are the built-in registry's, immutable once made.

#include <array>     // std::array
#include <cstddef>   // std::size_t
#include <optional>  // std::optional
#include <vector>    // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/amd_ibs/sampling_filters.hpp>  // SamplingFilterSpec
#include <tagop/compare/target.hpp>            // Target
#include <tagop/conditions.hpp>                // ConditionSet
#include <tagop/event.hpp>                     // EventEntry, SampleKind
#include <tagop/predicate.hpp>                 // Predicate
#include <tagop/predicate_relation.hpp>        // Relation
#include <tagop/registry.hpp>                  // BackendInfo

namespace tagop TAGOP_API {
namespace compare {

/// How an event relates to the target, as compare groups them: the same
/// condition in another unit is not the same count.
enum class Closeness {
  same,            ///< the same ops, counted in the target's unit
  same_condition,  ///< the same ops, in another unit (uops for instructions, cycles over the ops ...)
  narrower,        ///< a subset of the target's ops
  wider,           ///< a superset of the target's ops
};

/// Every Closeness, in the order `tagop compare` lists them.
inline constexpr std::array<Closeness, 4> closenesses{Closeness::same, Closeness::same_condition,
                                                      Closeness::narrower, Closeness::wider};

/// An event of a backend's table that relates to the target.
struct Neighbour {
  /// The event, in its backend's table.
  const EventEntry* entry = nullptr;
  /// How it relates to the target.
  Closeness closeness = Closeness::same;
  /// Narrower, wider: the share of the target's truth table the two have
  /// in common (truth_table_overlap); none for the same.
  std::optional<double> overlap{};
  /// Narrower, wider: the conditions added or dropped (condition_distance); 0 for the same.
  std::size_t conditions_apart = 0;
};

/// A way to program IBS to sample only some ops whose population relates
/// to the target.
struct FilterMatch {
  /// The filter, in amd_ibs::sampling_filter_table().
  const amd_ibs::SamplingFilterSpec* spec = nullptr;
  /// How its population relates to the target: same, narrower or wider.
  Relation relation = Relation::same;
  /// Whether a capture made with it answers the target: every sample is
  /// one of the population, so what the population says need not be
  /// observed, and the samples observe the rest.
  bool answers = false;
};

/// One backend's ways of measuring the target.
struct BackendNeighbours {
  /// The backend, in the built-in registry.
  const BackendInfo* backend = nullptr;
  /// Its events that count the same ops, nearest first: the largest
  /// overlap, then the fewest conditions apart, then table order (as the
  /// three below).
  std::vector<Neighbour> same;
  std::vector<Neighbour> same_condition;  ///< the same ops in another unit
  std::vector<Neighbour> narrower;        ///< subsets of the target's ops
  std::vector<Neighbour> wider;           ///< supersets of the target's ops
  /// Instruction sampling only: the sampling filters whose population is
  /// the same as the target's, narrower or wider, in table order.
  std::vector<FilterMatch> filters;
  /// Instruction sampling whose samples observe every condition of the
  /// target (ibs_observes): a count of the samples that meet it answers it.
  bool samples_observe = false;
  /// One of `filters` answers the target.
  bool filter_answers = false;

  /// The events of one Closeness.
  const std::vector<Neighbour>& of(Closeness c) const;
  /// An event says exactly this, or the samples observe it, filtered or not.
  bool measurable() const { return !same.empty() || samples_observe || filter_answers; }
  /// No event relates to the target, and no filter.
  bool empty() const;
};

/// The conditions that some IBS processor reports on every sample of
/// `kind`: the union over every family with IBS, at models where fields
/// come and go.
ConditionSet ibs_observable(SampleKind kind);

/// Whether IBS samples observe every condition `p` uses (op and fetch
/// included), so that the samples that meet it can be counted.
bool ibs_observes(const Predicate& p);

/// The IBS sampling filters whose population is the same as `target`,
/// narrower or wider, in table order.
std::vector<FilterMatch> filter_matches(const Predicate& target);

/// How `backend` measures `target`.
BackendNeighbours nearest_events(const BackendInfo& backend, const Target& target);

/// How each backend of the built-in registry measures `target`, in registry order.
std::vector<BackendNeighbours> nearest_events(const Target& target);

}  // namespace compare
}  // namespace tagop
