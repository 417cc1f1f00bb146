#include <tagop/amd_ibs/event_availability.hpp>

#include <algorithm>  // std::find
#include <map>        // std::map
#include <optional>   // std::optional

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/families.hpp>  // generation
#include <tagop/engine.hpp>            // decide

namespace tagop::amd_ibs {

namespace {

using Verdict = EventAvailability::Verdict;

// Past this many free conditions the enumeration below gives up and says
// "depends": no derived event comes near it.
constexpr std::size_t max_enumerated = 16;

std::string field_text(const FieldSpec& f) { return fmt::format("{} ({}{})", f.name, info(f.reg).name, bits_text(f)); }

std::string range_text(const CpuRange& r) {
  if (r.last_family == 0xFF && r.last_model == 0xFF)
    return r.first_model == 0 ? fmt::format("Family {:X}h and later", r.first_family)
                              : fmt::format("Family {:X}h model {:02X}h and later", r.first_family, r.first_model);
  if (r.first_model == 0 && r.last_model == 0xFF)
    return r.first_family == r.last_family ? fmt::format("Family {:X}h", r.first_family)
                                           : fmt::format("Families {:X}h-{:X}h", r.first_family, r.last_family);
  if (r.first_family == r.last_family)
    return fmt::format("Family {:X}h models {:02X}h-{:02X}h", r.first_family, r.first_model, r.last_model);
  return fmt::format("Family {:X}h model {:02X}h to Family {:X}h model {:02X}h", r.first_family, r.first_model,
                     r.last_family, r.last_model);
}

std::string where_text(const FieldSpec& f) {
  std::string out;
  for (const CpuRange& r : f.cpus)
    if (!r.empty()) out += (out.empty() ? "" : ", ") + range_text(r);
  for (std::uint32_t bit = 0; bit < 32; ++bit) {
    if ((f.needs_caps >> bit) & 1) out += fmt::format(", with IBS capability bit {}", bit);
    if ((f.unless_caps >> bit) & 1) out += fmt::format(", without IBS capability bit {}", bit);
  }
  return out;
}

std::string values_with(const FieldSpec& f, Condition c, ConditionSet ValueMeaning::*which) {
  std::string out;
  for (const ValueMeaning& v : f.values)
    if ((v.*which).contains(c)) out += fmt::format("{}{}", out.empty() ? "" : " or ", v.value);
  return out;
}

// What decides `c` on this processor, field by field, and which values
// leave it undecided.
std::string decider_text(Condition c, const IbsDecoder& d, IbsUnit unit) {
  std::vector<std::string> parts, undecided;
  const bool observable = d.observable(unit).contains(c);
  for (const FieldSpec* f : d.fields(unit)) {
    if (!observable) break;  // a value may exclude it, but no field here reports it
    if (const std::string values = values_with(*f, c, &ValueMeaning::unknown); !values.empty())
      undecided.push_back(fmt::format("{} = {}", f->name, values));
    if (!decidable_by(*f).contains(c)) continue;
    std::string part = field_text(*f);
    const std::string values = values_with(*f, c, &ValueMeaning::conditions);
    const std::string excluding = values_with(*f, c, &ValueMeaning::excludes);
    if (!values.empty()) part += " = " + values;
    else if (f->nonzero == c) part += " != 0";
    if (!excluding.empty()) part += fmt::format("{} = {} rules it out", values.empty() ? "" : ",", excluding);
    if (gated(f->only_if)) part += fmt::format(" (when {})", Predicate::of(f->only_if).to_string());
    if (gated(f->valid_if)) part += fmt::format(" (valid with {})", Predicate::of(f->valid_if).to_string());
    parts.push_back(part);
  }
  if (parts.empty())
    for (const DerivedCondition& dc : derived_condition_table())
      if (dc.unit == unit && dc.condition == c && dc.applies_to(d.family(), d.model()))
        parts.push_back(fmt::format("derived: {}", Predicate::of(dc.when).to_string()));
  std::string out = fmt::format("{}: ", c.name());
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i];
  if (parts.empty()) out += "reported by no field here";
  for (std::size_t i = 0; i < undecided.size(); ++i) out += (i ? ", " : "; undecided when ") + undecided[i];
  return out;
}

// Whether a field's bits can say that `c` holds (not only rule it out).
bool reports(const FieldSpec& f, Condition c) {
  if (f.flag == c || f.nonzero == c) return true;
  for (const ValueMeaning& v : f.values)
    if (v.conditions.contains(c)) return true;
  return false;
}

// Where in the table a condition is reported, for "not here, but there".
std::string elsewhere_text(Condition c) {
  std::vector<std::string> where;
  for (const FieldSpec& f : field_table())
    if (reports(f, c))
      where.push_back(fmt::format("{} on {}", field_text(f), where_text(f)));
  if (where.empty()) return "no IBS field reports it";
  std::string out = "IBS reports it in ";
  for (std::size_t i = 0; i < where.size(); ++i) out += (i ? "; " : "") + where[i];
  return out;
}

// A sample's possible states: some conditions fixed true or false, some
// undecided, the rest free. Whether some assignment of the free ones (that
// meets `must`, and fails `must_fail` when given) leaves `p` undecided, or
// decides it true.
struct Scenario {
  std::map<std::uint8_t, bool> fixed{};  // by condition index
  ConditionSet unknown{};
  Term must{};
  std::optional<Term> must_fail{};
};

struct Outcomes {
  bool some_undecided = false, some_true = false;
};

Outcomes explore(const Predicate& p, const ConditionSet& used, const ConditionSet& observable, const Scenario& s) {
  std::vector<Condition> free;
  ConditionSet unknown = s.unknown;
  for (Condition c : used.members()) {
    if (!observable.contains(c)) unknown.insert(c);
    else if (!s.fixed.count(c.index) && !unknown.contains(c)) free.push_back(c);
  }
  for (Condition c : (s.must.require | s.must.forbid).members())
    if (!s.fixed.count(c.index) && !unknown.contains(c) && !used.contains(c)) free.push_back(c);
  if (s.must_fail)
    for (Condition c : (s.must_fail->require | s.must_fail->forbid).members())
      if (!s.fixed.count(c.index) && std::find(free.begin(), free.end(), c) == free.end()) free.push_back(c);
  Outcomes out;
  if (free.size() > max_enumerated) return {true, true};
  ConditionSet observed = used | s.must.require | s.must.forbid;
  for (const auto& [index, value] : s.fixed) observed.insert(Condition{index});
  for (Condition c : free) observed.insert(c);
  observed.erase(unknown);
  ConditionSet assigned;
  for (const auto& [index, value] : s.fixed) assigned.insert(Condition{index});
  for (Condition c : free) assigned.insert(c);
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << free.size()); ++bits) {
    ConditionSet conditions;
    for (const auto& [index, value] : s.fixed) conditions.set(Condition{index}, value);
    for (std::size_t i = 0; i < free.size(); ++i) conditions.set(free[i], (bits >> i) & 1);
    // No op breaks the vocabulary's implications (an L2 miss is a DC miss).
    ConditionSet fail = assigned;
    fail.erase(conditions);
    if (!consistent(conditions, fail)) continue;
    if (!s.must.matches(conditions)) continue;
    if (s.must_fail && s.must_fail->matches(conditions)) continue;
    conditions = conditions & observed;
    switch (decide(p, conditions, observed)) {
      case Decision::unknown: out.some_undecided = true; break;
      case Decision::yes: out.some_true = true; break;
      case Decision::no: break;
    }
  }
  return out;
}

void fix(Scenario& s, const Term& t) {
  for (Condition c : t.require.members()) s.fixed[c.index] = true;
  for (Condition c : t.forbid.members()) s.fixed[c.index] = false;
}

}  // namespace

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::available: return "available";
    case Verdict::depends: return "depends on the samples";
    case Verdict::not_available: return "not available";
  }
  return "?";
}

std::string processor_text(const IbsDecoder& d) {
  const std::string_view zen = generation(d.family(), d.model());
  return fmt::format("Family {:X}h model {:02X}h{}, IBS capabilities {:#x}", d.family(), d.model(),
                     zen.empty() ? "" : fmt::format(" ({})", zen), d.caps());
}

EventAvailability event_availability(const IbsDerivedEventSpec& event, const IbsDecoder& decoder) {
  EventAvailability out;
  const IbsUnit unit = event.unit;
  const Predicate p = event.predicate.empty() ? Predicate() : Predicate::parse(event.predicate);
  ConditionSet used = p.used();
  used.erase(ConditionSet{condition("fetch"), condition("op")});
  const ConditionSet observable = decoder.observable(unit);
  for (Condition c : used.members()) out.deciders.push_back(decider_text(c, decoder, unit));
  for (const EventReading& r : event.readings)
    if (r.processors.contains(decoder.family(), decoder.model(), decoder.caps())) out.readings.push_back(&r);

  // A condition no field decides here rules nothing out: an event whose
  // every term needs one cannot be counted (the engine's rule).
  ConditionSet missing = used;
  missing.erase(observable);
  for (Condition c : missing.members())
    out.reasons.push_back(fmt::format("{} is not reported on {} ({})", c.name(), processor_text(decoder),
                                      elsewhere_text(c)));
  const auto& terms = p.terms();
  if (!terms.empty() && std::all_of(terms.begin(), terms.end(), [&](const Term& t) {
        return (t.require | t.forbid).intersects(missing);
      })) {
    out.verdict = Verdict::not_available;
    return out;
  }
  if (explore(p, used, observable, Scenario{}).some_undecided) out.verdict = Verdict::depends;

  // Samples that leave a condition undecided: a value that does not say
  // (Zen 1-3's local node cache), a field the hardware reports invalid.
  for (const FieldSpec* f : decoder.fields(unit)) {
    const ConditionSet decided = conditions_of(*f);
    if (!decided.intersects(used)) continue;
    if (gated(f->valid_if)) {
      Scenario s;
      s.unknown = decided;
      s.must_fail = f->valid_if;
      if (explore(p, used, observable, s).some_undecided) {
        out.verdict = Verdict::depends;
        out.reasons.push_back(fmt::format("undecided for a sample without {}: {} is not valid then ({})",
                                          Predicate::of(f->valid_if).to_string(), f->name, f->why));
      }
    }
    for (const ValueMeaning& v : f->values) {
      if (!v.unknown.intersects(used)) continue;
      Scenario s;
      s.unknown = v.unknown;
      for (Condition c : decided.members())
        if (!v.unknown.contains(c)) s.fixed[c.index] = v.conditions.contains(c);
      fix(s, f->only_if);
      fix(s, v.only_if);
      if (!explore(p, used, observable, s).some_undecided) continue;
      out.verdict = Verdict::depends;
      out.reasons.push_back(fmt::format("undecided for a sample with {} = {} ({}): it leaves {} undecided", f->name,
                                        v.value, v.text, (v.unknown & used).to_string()));
    }
  }

  // Rules that take back what the fields decided, for some samples.
  const std::optional<Measure> sums = event.sums.empty() ? std::nullopt : find_measure(event.sums);
  for (const UndecidedRule& r : undecided_rule_table()) {
    if (r.unit != unit || !r.applies_to(decoder.family(), decoder.model(), decoder.caps())) continue;
    const bool takes_sum = sums && ((r.unmeasured >> sums->index) & 1);
    Scenario s;
    fix(s, r.when);
    s.unknown = r.unknown;
    // A condition derived from one it leaves undecided may be undecided too.
    for (const DerivedCondition& d : derived_condition_table())
      if (d.unit == unit && (d.when.require | d.when.forbid).intersects(r.unknown)) s.unknown.insert(d.condition);
    if (!s.unknown.intersects(used) && !takes_sum) continue;
    const Outcomes o = explore(p, used, observable, s);
    if (!o.some_undecided && !(takes_sum && o.some_true)) continue;
    out.verdict = Verdict::depends;
    out.reasons.push_back(fmt::format("undecided for a sample with {}: {}", Predicate::of(r.when).to_string(), r.why));
  }
  return out;
}

}  // namespace tagop::amd_ibs
