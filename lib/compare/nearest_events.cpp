// The events of each backend that relate to a target, grouped and ranked.

#include <tagop/compare/nearest_events.hpp>

#include <algorithm>  // std::stable_sort, std::any_of

#include <tagop/arm_spe/model.hpp>  // observable_conditions

namespace tagop::compare {

namespace {

// The list of one Closeness, const or not.
template <typename Neighbours>
auto& list_of(Neighbours& b, Closeness c) {
  switch (c) {
    case Closeness::same: return b.same;
    case Closeness::same_condition: return b.same_condition;
    case Closeness::narrower: return b.narrower;
    case Closeness::wider: return b.wider;
  }
  return b.same;
}

std::optional<Closeness> closeness(const EventEntry& e, const Predicate& p, const Target& target) {
  // A predicate asks for a count of ops, in any unit of ops; a latency
  // event sums cycles over them instead.
  const bool other_unit = target.unit ? *target.unit != e.unit : e.unit == CountingUnit::cycles;
  switch (relation(p, target.predicate)) {
    case Relation::same: return other_unit ? Closeness::same_condition : Closeness::same;
    case Relation::narrower: return Closeness::narrower;
    case Relation::wider: return Closeness::wider;
    default: return std::nullopt;
  }
}

// The largest share of the truth table first, then the fewest conditions
// apart; stable, so table order after that.
void rank(std::vector<Neighbour>& list) {
  std::stable_sort(list.begin(), list.end(), [](const Neighbour& a, const Neighbour& b) {
    if (a.overlap && b.overlap && *a.overlap != *b.overlap) return *a.overlap > *b.overlap;
    return a.conditions_apart < b.conditions_apart;
  });
}

}  // namespace

const std::vector<Neighbour>& BackendNeighbours::of(Closeness c) const {
  return list_of(*this, c);
}

bool BackendNeighbours::empty() const {
  return same.empty() && same_condition.empty() && narrower.empty() && wider.empty() && filters.empty();
}

BackendNeighbours nearest_events(const BackendInfo& backend, const Target& target) {
  BackendNeighbours out;
  out.backend = &backend;
  for (const EventEntry& e : backend.events()) {
    if (!has_op_predicate(e)) continue;
    const Predicate p = effective_predicate(e);
    const std::optional<Closeness> c = closeness(e, p, target);
    if (!c) continue;
    Neighbour n{&e, *c, std::nullopt, 0};
    if (*c == Closeness::narrower || *c == Closeness::wider) {
      n.overlap = truth_table_overlap(p, target.predicate);
      n.conditions_apart = condition_distance(p, target.predicate);
    }
    list_of(out, *c).push_back(n);
  }
  for (Closeness c : closenesses) rank(list_of(out, c));
  // IBS answers any predicate over the conditions its samples observe,
  // whether or not a derived event asks exactly that, and, with a
  // sampling filter, some that only the filter tells.
  // SPE's samples decide their own conditions; IBS's filters are not SPE's.
  if (backend.name == "arm-spe") {
    out.samples_observe = arm_spe::observable_conditions().contains_all(target.predicate.used());
  } else if (backend.mechanism == Mechanism::instruction_sampling) {
    out.filters = filter_matches(target.predicate);
    out.samples_observe = ibs_observes(target.predicate);
    out.filter_answers =
        std::any_of(out.filters.begin(), out.filters.end(), [](const FilterMatch& f) { return f.answers; });
  }
  return out;
}

std::vector<BackendNeighbours> nearest_events(const Target& target) {
  std::vector<BackendNeighbours> out;
  for (const BackendInfo& b : Registry::builtin().backends()) out.push_back(nearest_events(b, target));
  return out;
}

}  // namespace tagop::compare
