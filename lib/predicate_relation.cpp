#include <tagop/predicate_relation.hpp>

#include <cstdint>  // std::uint64_t
#include <vector>   // std::vector

namespace tagop {

namespace {

bool contradictory(const Term& t) { return t.require.intersects(t.forbid); }

// Term `a` implies term `b` when `b` asks for nothing that `a` does not.
bool term_implies(const Term& a, const Term& b) {
  return contradictory(a) || (a.require.contains_all(b.require) && a.forbid.contains_all(b.forbid));
}

bool implies_termwise(const Predicate& a, const Predicate& b) {
  for (const Term& ta : a.terms()) {
    bool covered = false;
    for (const Term& tb : b.terms()) covered = covered || term_implies(ta, tb);
    if (!covered) return false;
  }
  return true;
}

}  // namespace

bool implies(const Predicate& a, const Predicate& b) {
  const std::vector<Condition> used = (a.used() | b.used()).members();
  if (used.size() > exact_condition_limit) return implies_termwise(a, b);
  // Conditions neither predicate mentions cannot change either answer, so
  // trying every assignment of the used ones decides the implication.
  const std::uint64_t assignments = std::uint64_t{1} << used.size();
  for (std::uint64_t bits = 0; bits < assignments; ++bits) {
    ConditionSet set;
    for (std::size_t i = 0; i < used.size(); ++i) set.set(used[i], (bits >> i) & 1);
    if (a.matches(set) && !b.matches(set)) return false;
  }
  return true;
}

bool overlaps(const Predicate& a, const Predicate& b) {
  // A conjunction is satisfiable unless it requires and forbids the same
  // condition, so the DNF of a & b says it directly.
  for (const Term& ta : a.terms())
    for (const Term& tb : b.terms())
      if (!(ta.require | tb.require).intersects(ta.forbid | tb.forbid)) return true;
  return false;
}

Relation relation(const Predicate& a, const Predicate& b) {
  if (!overlaps(a, b)) return Relation::disjoint;
  const bool a_in_b = implies(a, b);
  const bool b_in_a = implies(b, a);
  if (a_in_b && b_in_a) return Relation::same;
  if (a_in_b) return Relation::narrower;
  if (b_in_a) return Relation::wider;
  return Relation::overlapping;
}

std::optional<double> truth_table_overlap(const Predicate& a, const Predicate& b) {
  const std::vector<Condition> used = (a.used() | b.used()).members();
  if (used.size() > exact_condition_limit) return std::nullopt;
  std::uint64_t both = 0, either = 0;
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << used.size()); ++bits) {
    ConditionSet set;
    for (std::size_t i = 0; i < used.size(); ++i) set.set(used[i], (bits >> i) & 1);
    const bool in_a = a.matches(set), in_b = b.matches(set);
    both += in_a && in_b;
    either += in_a || in_b;
  }
  return either ? static_cast<double>(both) / static_cast<double>(either) : 1.0;
}

std::size_t condition_distance(const Predicate& a, const Predicate& b) {
  const ConditionSet ua = a.used(), ub = b.used();
  ConditionSet only_a = ua, only_b = ub;
  only_a.erase(ub);
  only_b.erase(ua);
  return only_a.members().size() + only_b.members().size();
}

bool closer(const Predicate& target, const Predicate& a, const Predicate& b) {
  const auto oa = truth_table_overlap(target, a), ob = truth_table_overlap(target, b);
  if (oa && ob && *oa != *ob) return *oa > *ob;
  return condition_distance(target, a) < condition_distance(target, b);
}

std::string_view relation_name(Relation r) {
  switch (r) {
    case Relation::same: return "same";
    case Relation::narrower: return "narrower";
    case Relation::wider: return "wider";
    case Relation::overlapping: return "overlapping";
    case Relation::disjoint: return "disjoint";
  }
  return "?";
}

}  // namespace tagop
