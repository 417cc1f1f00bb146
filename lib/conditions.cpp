#include <tagop/conditions.hpp>
#include <tagop/names.hpp>  // edit_distance

#include <algorithm>  // std::min, std::stable_sort
#include <array>      // std::array
#include <cctype>     // std::tolower

#include <fmt/format.h>  // fmt::join
#include <fmt/ranges.h>  // fmt::join over vectors

#include <tagop/measures.hpp>  // find_measure

namespace tagop {

namespace {

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::vector<Condition> ConditionSet::members() const {
  std::vector<Condition> out;
  for (std::size_t i = 0; i < condition_count; ++i) {
    Condition c{static_cast<std::uint8_t>(i)};
    if (contains(c)) out.push_back(c);
  }
  return out;
}

std::string ConditionSet::to_string() const {
  std::vector<std::string_view> names;
  for (Condition c : members()) names.push_back(c.name());
  return names.empty() ? "(none)" : fmt::format("{}", fmt::join(names, " & "));
}

namespace {

// The transitive closure of implication_table, once: by condition index,
// what each implies and what implies it.
struct Closure {
  std::array<ConditionSet, condition_count> implies{}, implied_by_others{};
  Closure() {
    for (const Implication& i : implication_table) implies[i.premise.index].insert(i.conclusion);
    // Few conditions, short chains: add what the implied imply until
    // nothing changes.
    for (bool grew = true; grew;) {
      grew = false;
      for (std::size_t c = 0; c < condition_count; ++c) {
        ConditionSet more = implies[c];
        for (Condition d : implies[c].members()) more |= implies[d.index];
        if (more != implies[c]) implies[c] = more, grew = true;
      }
    }
    for (std::size_t c = 0; c < condition_count; ++c)
      for (Condition d : implies[c].members()) implied_by_others[d.index].insert(Condition{static_cast<std::uint8_t>(c)});
  }
};

const Closure& closure() {
  static const Closure c;
  return c;
}

}  // namespace

ConditionSet implied_by(Condition c) { return closure().implies[c.index]; }
ConditionSet implying(Condition c) { return closure().implied_by_others[c.index]; }

bool consistent(const ConditionSet& hold, const ConditionSet& fail) {
  if (hold.intersects(fail)) return false;
  for (Condition c : hold.members())
    if (implied_by(c).intersects(fail)) return false;
  return true;
}

std::string implication_text(Condition premise, Condition conclusion) {
  if (!implied_by(premise).contains(conclusion)) return {};
  // The first step of a chain that still leads to the conclusion.
  for (const Implication& i : implication_table)
    if (i.premise == premise && (i.conclusion == conclusion || implied_by(i.conclusion).contains(conclusion)))
      return i.conclusion == conclusion ? std::string(i.why)
                                        : std::string(i.why) + ", and " + implication_text(i.conclusion, conclusion);
  return {};
}

std::optional<Condition> find_condition(std::string_view name) {
  const std::string wanted = lowercase(name);
  for (std::size_t i = 0; i < condition_count; ++i)
    if (condition_table[i].name == wanted) return Condition{static_cast<std::uint8_t>(i)};
  return std::nullopt;
}

std::vector<std::string_view> closest_condition_names(std::string_view name, std::size_t max) {
  const std::string wanted = lowercase(name);
  struct Candidate {
    std::string_view name;
    std::size_t score;
  };
  std::vector<Candidate> candidates;
  for (const ConditionInfo& info : condition_table) {
    std::size_t score = edit_distance(wanted, info.name);
    // A name that contains what was typed ("miss" in "dc.miss") is a good
    // guess even when the edit distance is large.
    if (!wanted.empty() && info.name.find(wanted) != std::string_view::npos)
      score = std::min<std::size_t>(score, 1 + (info.name.size() - wanted.size()) / 4);
    candidates.push_back({info.name, score});
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.score < b.score; });
  std::vector<std::string_view> out;
  const std::size_t limit = std::max<std::size_t>(2, wanted.size() / 2 + 1);
  for (const Candidate& c : candidates) {
    if (out.size() == max || c.score > limit) break;
    out.push_back(c.name);
  }
  return out;
}

std::optional<Measure> find_measure(std::string_view name) {
  const std::string wanted = lowercase(name);
  for (std::size_t i = 0; i < measure_count; ++i)
    if (measure_table[i].name == wanted) return Measure{static_cast<std::uint8_t>(i)};
  return std::nullopt;
}

}  // namespace tagop
