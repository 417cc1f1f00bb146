#include <tagop/compare/target.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/conditions.hpp>    // condition, ConditionSet
#include <tagop/error.hpp>         // Error
#include <tagop/event_search.hpp>  // find_events, closest_event_names

namespace tagop::compare {

namespace {

bool mentions_kind(const Predicate& p) {
  const ConditionSet used = p.used();
  return used.contains(condition("fetch")) || used.contains(condition("op"));
}

bool is_fetch_condition(std::string_view name) {
  return name.starts_with("fetch") || name.starts_with("ic.") || name.starts_with("itlb.");
}

}  // namespace

// A sampling or tagging event without a predicate takes every op (IBS's
// "all op samples"); a PEBS event without one is an event the model cannot
// state (FRONTEND_RETIRED, a load-latency threshold), not every op.
bool has_op_predicate(const EventEntry& e) {
  return !e.predicate.empty() || e.mechanism == Mechanism::instruction_sampling ||
         e.mechanism == Mechanism::at_retirement_tagging;
}

Predicate effective_predicate(const EventEntry& e) {
  const Predicate kind = Predicate::parse(e.kind == SampleKind::fetch ? "fetch" : "op");
  return e.predicate.empty() ? kind : kind & Predicate::parse(e.predicate);
}

Target resolve_target(std::string_view text) {
  const auto found = find_events(text);
  if (!found.empty()) {
    const EventEntry& e = *found.front();
    if (!has_op_predicate(e))
      throw Error(fmt::format("{} ({}) counts occurrences, not ops: it has no predicate to compare", e.name, e.backend));
    return {fmt::format("{} {} ({}), counting {}", e.code, e.name, e.backend, counting_unit_name(e.unit)),
            effective_predicate(e), e.unit};
  }
  Predicate p;
  try {
    p = Predicate::parse(text);
  } catch (const Error& error) {
    std::string close;
    for (const std::string& n : closest_event_names(text)) close += (close.empty() ? "" : ", ") + n;
    throw Error(fmt::format("'{}' is neither an event (did you mean {}?) nor a predicate ({})", text, close, error.what()));
  }
  // A predicate asks for ops unless its conditions are of fetches.
  if (!mentions_kind(p)) {
    bool fetch = false;
    for (Condition c : p.used().members()) fetch = fetch || is_fetch_condition(c.name());
    p = Predicate::parse(fetch ? "fetch" : "op") & p;
  }
  return {p.to_string(), p};
}

}  // namespace tagop::compare
