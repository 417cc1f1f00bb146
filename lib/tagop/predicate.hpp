#pragma once
// Predicates over the condition vocabulary: the one form every event of
// every table takes. Written as `load & dc.miss & !dtlb.l1_miss`, with `|`,
// `!` and parentheses; kept as a small OR of conjunctions (disjunctive
// normal form) so that a test is a few ANDs per term.
//
// Thread safety: a Predicate is immutable after parsing: safe to share and to evaluate from several
// threads.

#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/conditions.hpp>  // ConditionSet

namespace tagop TAGOP_API {

/// One conjunction: every `require` condition holds and no `forbid` one.
struct Term {
  ConditionSet require{};
  ConditionSet forbid{};
  constexpr bool matches(const ConditionSet& c) const {
    return c.contains_all(require) && !c.intersects(forbid);
  }
  friend bool operator==(const Term&, const Term&) = default;
};

class Predicate {
 public:
  /// The predicate that every sample meets.
  Predicate() : terms_{Term{}} {}
  static Predicate never() { return Predicate(std::vector<Term>{}); }
  static Predicate of(Term term) { return Predicate(std::vector<Term>{term}); }

  /// Parses an expression. Throws tagop::Error naming the column and what
  /// was expected; an unknown name gets the closest known names.
  ///   Predicate::parse("(load | store) & dc.miss")
  static Predicate parse(std::string_view text);

  bool matches(const ConditionSet& conditions) const {
    for (const Term& t : terms_)
      if (t.matches(conditions)) return true;
    return false;
  }

  /// Both must hold.
  friend Predicate operator&(const Predicate& a, const Predicate& b);
  /// Either holds.
  friend Predicate operator|(const Predicate& a, const Predicate& b);

  /// Every condition the predicate mentions: what a sample must observe
  /// for the predicate to be decidable.
  ConditionSet used() const;
  const std::vector<Term>& terms() const { return terms_; }
  bool always() const { return terms_.size() == 1 && terms_[0] == Term{}; }
  bool never_matches() const { return terms_.empty(); }

  /// Canonical text: "load & dc.miss", "(load & dc.miss) | store", "true".
  std::string to_string() const;
  friend bool operator==(const Predicate&, const Predicate&) = default;

 private:
  explicit Predicate(std::vector<Term> terms);
  std::vector<Term> terms_;
};

// Declared here too, where the namespace's TAGOP_API gives them to the
// shared library's exports: a friend declared only in its class is not.
/// Both must hold.
Predicate operator&(const Predicate& a, const Predicate& b);
/// Either holds.
Predicate operator|(const Predicate& a, const Predicate& b);

}  // namespace tagop
