#include <tagop/predicate_relation.hpp>

#include <cstdint>  // std::uint64_t
#include <vector>   // std::vector

namespace tagop {

namespace {

bool contradictory(const Term& t) { return !consistent(t.require, t.forbid); }

// Term `a` implies term `b` when `b` asks for nothing that `a`, with what it
// implies, does not.
bool term_implies(const Term& a, const Term& b) {
  if (contradictory(a)) return true;
  const Term c = closure(a);
  return c.require.contains_all(b.require) && c.forbid.contains_all(b.forbid);
}

bool implies_termwise(const Predicate& a, const Predicate& b) {
  for (const Term& ta : a.terms()) {
    bool covered = false;
    for (const Term& tb : b.terms()) covered = covered || term_implies(ta, tb);
    if (!covered) return false;
  }
  return true;
}

// Every assignment of `used` that the implications allow (conditions
// neither predicate mentions cannot change either answer, and an allowed
// assignment of some conditions extends to all of them).
template <typename Visit>
void for_each_assignment(const std::vector<Condition>& used, Visit visit) {
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << used.size()); ++bits) {
    ConditionSet hold, fail;
    for (std::size_t i = 0; i < used.size(); ++i) ((bits >> i) & 1 ? hold : fail).insert(used[i]);
    if (consistent(hold, fail)) visit(hold);
  }
}

}  // namespace

Term closure(const Term& t) {
  Term out = t;
  for (Condition c : t.require.members()) out.require |= implied_by(c);
  for (Condition c : t.forbid.members()) out.forbid |= implying(c);
  return out;
}

bool implies(const Predicate& a, const Predicate& b) {
  const std::vector<Condition> used = (a.used() | b.used()).members();
  if (used.size() > exact_condition_limit) return implies_termwise(a, b);
  bool holds = true;
  for_each_assignment(used, [&](const ConditionSet& set) { holds = holds && (!a.matches(set) || b.matches(set)); });
  return holds;
}

bool overlaps(const Predicate& a, const Predicate& b) {
  // A conjunction is satisfiable unless it requires and forbids the same
  // condition, or requires one that implies a forbidden one, so the DNF of
  // a & b says it directly.
  for (const Term& ta : a.terms())
    for (const Term& tb : b.terms())
      if (consistent(ta.require | tb.require, ta.forbid | tb.forbid)) return true;
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
  for_each_assignment(used, [&](const ConditionSet& set) {
    const bool in_a = a.matches(set), in_b = b.matches(set);
    both += in_a && in_b;
    either += in_a || in_b;
  });
  return either ? static_cast<double>(both) / static_cast<double>(either) : 1.0;
}

Predicate simplest(const Predicate& p) {
  std::vector<Term> terms;
  for (const Term& t : p.terms()) {
    if (contradictory(t)) continue;
    Term kept = t;
    // A condition that another required one implies adds nothing; nor does
    // forbidding one that implies another forbidden one.
    for (Condition c : t.require.members())
      if (implying(c).intersects(kept.require)) kept.require.erase(c);
    for (Condition c : t.forbid.members())
      if (implied_by(c).intersects(kept.forbid)) kept.forbid.erase(c);
    terms.push_back(kept);
  }
  Predicate out = Predicate::never();
  for (std::size_t i = 0; i < terms.size(); ++i) {
    bool absorbed = false;
    for (std::size_t j = 0; j < terms.size() && !absorbed; ++j)
      absorbed = j != i && term_implies(terms[i], terms[j]) && (!term_implies(terms[j], terms[i]) || j < i);
    if (!absorbed) out = out | Predicate::of(terms[i]);
  }
  return out;
}

std::string contradiction_text(const Predicate& p) {
  std::string out;
  for (const Term& t : p.terms()) {
    std::string why;
    for (Condition c : t.require.members())
      for (Condition d : (implied_by(c) & t.forbid).members())
        if (why.empty()) why = implication_text(c, d);
    if (why.empty()) return {};  // this term some op can meet
    out += (out.empty() ? "" : "; ") + Predicate::of(t).to_string() + ": " + why;
  }
  return out;
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
