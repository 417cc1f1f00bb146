#include <tagop/predicate.hpp>

#include <cctype>     // std::isalnum, std::isspace
#include <memory>     // std::unique_ptr

#include <fmt/format.h>  // fmt::format
#include <fmt/ranges.h>  // fmt::join

#include <tagop/error.hpp>  // Error

namespace tagop {

namespace {

// Beyond this many terms an expression is not "a small OR of conjunctions"
// any more, and evaluating it would not be a few instructions.
constexpr std::size_t max_terms = 256;
// While terms are added, a later one may still absorb earlier ones: the
// limit is checked at the end, and this one, with room for that, while
// the list grows, so that no step is quadratic in a list past the limit.
constexpr std::size_t max_growing_terms = 4 * max_terms;

// Bounds of the text: far past any predicate of the tables or a person's
// --where, and small enough that parsing can neither take long nor run
// out of stack.
constexpr std::size_t max_length = 4096;
constexpr std::size_t max_depth = 64;  // parentheses within parentheses

[[noreturn]] void too_complex(std::string_view terms) {
  throw Error(fmt::format("predicate too complex: {} terms once expanded (at most {})", terms, max_terms));
}

// The disjunctive normal form built a term at a time: contradictions
// (x & !x) never match and are dropped; a term implied by a more general
// one adds nothing (absorption). The terms kept are those of the
// simplified whole, in the order of their first appearance.
class TermList {
 public:
  void add(const Term& t) {
    if (t.require.intersects(t.forbid)) return;
    for (const Term& kept : terms_)
      if (implies(t, kept)) return;  // absorbed, or a repeat of an earlier term
    std::erase_if(terms_, [&](const Term& kept) { return implies(kept, t); });
    if (terms_.size() == max_growing_terms) too_complex(fmt::format("more than {}", max_growing_terms));
    terms_.push_back(t);
  }
  std::vector<Term> finish() && {
    if (terms_.size() > max_terms) too_complex(fmt::format("{}", terms_.size()));
    return std::move(terms_);
  }

 private:
  // `a` is at least as specific as `b`.
  static bool implies(const Term& a, const Term& b) {
    return a.require.contains_all(b.require) && a.forbid.contains_all(b.forbid);
  }
  std::vector<Term> terms_;
};

std::vector<Term> simplify(const std::vector<Term>& terms) {
  TermList out;
  for (const Term& t : terms) out.add(t);
  return std::move(out).finish();
}

std::vector<Term> product(const std::vector<Term>& a, const std::vector<Term>& b) {
  TermList out;
  for (const Term& x : a)
    for (const Term& y : b) out.add(Term{x.require | y.require, x.forbid | y.forbid});
  return std::move(out).finish();
}

std::vector<Term> sum(const std::vector<Term>& a, const std::vector<Term>& b) {
  TermList out;
  for (const auto* list : {&a, &b})
    for (const Term& t : *list) out.add(t);
  return std::move(out).finish();
}

// Recursive-descent parser that builds the normal form directly; negation is
// carried down (De Morgan) so no syntax tree is needed.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  std::vector<Term> parse() {
    if (text_.size() > max_length)
      throw Error(fmt::format("predicate of {} characters ('{}...'): at most {}", text_.size(), text_.substr(0, 32),
                              max_length));
    skip_space();
    if (at_end()) fail(pos_, "expected a condition name, '!' or '(' (the predicate is empty)");
    auto result = parse_or(false);
    skip_space();
    if (!at_end()) fail(pos_, fmt::format("expected '&', '|' or the end, found '{}'", text_[pos_]));
    return result;
  }

 private:
  // Each level returns the DNF of the expression, negated if `negate`.
  std::vector<Term> parse_or(bool negate) {
    auto left = parse_and(negate);
    while (accept('|')) {
      auto right = parse_and(negate);
      left = negate ? product(left, right) : sum(left, right);
    }
    return left;
  }

  std::vector<Term> parse_and(bool negate) {
    auto left = parse_unary(negate);
    while (accept('&')) {
      auto right = parse_unary(negate);
      left = negate ? sum(left, right) : product(left, right);
    }
    return left;
  }

  std::vector<Term> parse_unary(bool negate) {
    // A run of '!' in a loop, not a call each: any number of them takes
    // no stack.
    while (accept('!')) negate = !negate;
    if (accept('(')) {
      const std::size_t open = pos_ - 1;
      if (++depth_ > max_depth) fail(open, fmt::format("parentheses nested more than {} deep", max_depth));
      auto inner = parse_or(negate);
      skip_space();
      if (!accept(')')) {
        if (at_end()) fail(pos_, fmt::format("expected ')' to close the '(' at column {}", open + 1));
        fail(pos_, fmt::format("expected ')' or an operator, found '{}'", text_[pos_]));
      }
      --depth_;
      return inner;
    }
    return parse_name(negate);
  }

  std::vector<Term> parse_name(bool negate) {
    skip_space();
    const std::size_t start = pos_;
    while (!at_end() && is_name_char(text_[pos_])) ++pos_;
    if (start == pos_) {
      if (at_end()) fail(pos_, "expected a condition name, '!' or '(' at the end");
      fail(pos_, fmt::format("expected a condition name, '!' or '(', found '{}'", text_[pos_]));
    }
    const std::string_view name = text_.substr(start, pos_ - start);
    if (name == "true" || name == "false") {
      const bool value = (name == "true") != negate;
      return value ? std::vector<Term>{Term{}} : std::vector<Term>{};
    }
    const auto found = find_condition(name);
    if (!found) {
      const auto near = closest_condition_names(name);
      fail(start, near.empty() ? fmt::format("unknown condition '{}'", name)
                               : fmt::format("unknown condition '{}' (did you mean {}?)", name,
                                             fmt::join(near, ", ")));
    }
    Term term;
    (negate ? term.forbid : term.require).insert(*found);
    return {term};
  }

  static bool is_name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  }
  bool at_end() const { return pos_ >= text_.size(); }
  void skip_space() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  // Accepts `c`, and its doubled C spelling (`&&`, `||`).
  bool accept(char c) {
    skip_space();
    if (at_end() || text_[pos_] != c) return false;
    ++pos_;
    if ((c == '&' || c == '|') && !at_end() && text_[pos_] == c) ++pos_;
    return true;
  }
  [[noreturn]] void fail(std::size_t at, const std::string& what) const {
    throw Error(fmt::format("predicate '{}': column {}: {}", text_, at + 1, what));
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t depth_ = 0;
};

std::string term_to_string(const Term& t) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < condition_count; ++i) {
    Condition c{static_cast<std::uint8_t>(i)};
    if (t.require.contains(c)) parts.emplace_back(c.name());
    if (t.forbid.contains(c)) parts.push_back(fmt::format("!{}", c.name()));
  }
  return parts.empty() ? "true" : fmt::format("{}", fmt::join(parts, " & "));
}

}  // namespace

Predicate::Predicate(std::vector<Term> terms) : terms_(simplify(terms)) {}

Predicate Predicate::parse(std::string_view text) { return Predicate(Parser(text).parse()); }

Predicate operator&(const Predicate& a, const Predicate& b) {
  return Predicate(product(a.terms_, b.terms_));
}

Predicate operator|(const Predicate& a, const Predicate& b) { return Predicate(sum(a.terms_, b.terms_)); }

ConditionSet Predicate::used() const {
  ConditionSet out;
  for (const Term& t : terms_) out |= t.require | t.forbid;
  return out;
}

std::string Predicate::to_string() const {
  if (terms_.empty()) return "false";
  if (terms_.size() == 1) return term_to_string(terms_[0]);
  std::vector<std::string> parts;
  for (const Term& t : terms_) {
    const std::string s = term_to_string(t);
    const bool single = (t.require | t.forbid).members().size() == 1;
    parts.push_back(single ? s : fmt::format("({})", s));
  }
  return fmt::format("{}", fmt::join(parts, " | "));
}

}  // namespace tagop
