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
