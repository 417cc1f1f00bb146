#include <tagop/amd_ibs/decoder.hpp>

#include <algorithm>  // std::find_if

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/families.hpp>  // require_ibs_family, capabilities_of
#include <tagop/error.hpp>             // Error

namespace tagop::amd_ibs {

namespace {

bool has_values(const FieldSpec& f) { return !f.values.empty(); }

ConditionSet gate_reads(const FieldSpec& f) {
  ConditionSet read = f.only_if.require | f.only_if.forbid | f.valid_if.require | f.valid_if.forbid;
  for (const ValueMeaning& v : f.values) read |= v.only_if.require | v.only_if.forbid;
  return read;
}

// Orders the gated fields so that each comes after those that decide the
// conditions its gates read (Zen 3's IbsL2Miss, gated by erratum #1293,
// before the DataSrc that needs a load that missed the L2), else in table
// order. A cycle is a table error.
std::vector<const FieldSpec*> dependency_order(std::vector<const FieldSpec*> pending) {
  std::vector<const FieldSpec*> out;
  while (!pending.empty()) {
    auto ready = std::find_if(pending.begin(), pending.end(), [&](const FieldSpec* f) {
      for (const FieldSpec* other : pending)
        if (other != f && gate_reads(*f).intersects(conditions_of(*other))) return false;
      return true;
    });
    if (ready == pending.end())
      throw Error(fmt::format("IBS field table: the gates of {} and others depend on each other", pending[0]->name));
    out.push_back(*ready);
    pending.erase(ready);
  }
  return out;
}

}  // namespace

void store_address(Sample& s, AddressSlot slot, std::uint64_t value) {
  switch (slot) {
    case AddressSlot::none: break;
    case AddressSlot::ip: s.ip = value; break;
    case AddressSlot::ip_physical: s.ip_physical = value; break;
    case AddressSlot::data_linear: s.data_linear = value; break;
    case AddressSlot::data_physical: s.data_physical = value; break;
    case AddressSlot::branch_target: s.branch_target = value; break;
  }
}

std::string bits_text(const FieldSpec& f) {
  auto span = [](unsigned lsb, unsigned width) {
    return width == 1 ? fmt::format("{}", lsb) : fmt::format("{}:{}", lsb + width - 1, lsb);
  };
  if (f.high_width) return fmt::format("[{},{}]", span(f.high_lsb, f.high_width), span(f.lsb, f.width));
  return fmt::format("[{}]", span(f.lsb, f.width));
}

ConditionSet decidable_by(const FieldSpec& f) {
  ConditionSet out;
  if (f.flag) out.insert(*f.flag);
  if (f.nonzero) out.insert(*f.nonzero);
  for (const ValueMeaning& v : f.values) out |= v.conditions | v.excludes;
  return out;
}

ConditionSet conditions_of(const FieldSpec& f) {
  ConditionSet out = decidable_by(f);
  for (const ValueMeaning& v : f.values) out |= v.unknown;
  return out;
}

IbsDecoder::Plan IbsDecoder::compile(IbsUnit unit, unsigned family, unsigned model, std::uint32_t caps) {
  Plan p;
  std::vector<const FieldSpec*> with_gates;
  for (const FieldSpec& f : field_table()) {
    if (info(f.reg).unit != unit || !f.exists(family, model, caps)) continue;
    p.fields.push_back(&f);
    const auto r = static_cast<std::size_t>(f.reg);
    p.observed_by_register[r] |= decidable_by(f);
    if (f.measure) {
      p.measures.push_back(&f);
      p.measured_by_register[r] |= 1u << f.measure->index;
    }
    if (f.address != AddressSlot::none) p.addresses.push_back(&f);
    const bool has_gate = gated(f.only_if) || gated(f.valid_if);
    if (has_values(f) || f.nonzero || (f.flag && has_gate)) {
      with_gates.push_back(&f);
      continue;
    }
    if (!f.flag) continue;
    const unsigned shift = f.lsb & ~7u;
    auto byte = std::find_if(p.flag_bytes.begin(), p.flag_bytes.end(),
                             [&](const FlagByte& b) { return b.reg == f.reg && b.shift == shift; });
    if (byte == p.flag_bytes.end()) byte = p.flag_bytes.insert(p.flag_bytes.end(), FlagByte{f.reg, shift, {}});
    for (unsigned value = 0; value < 256; ++value)
      if ((value >> (f.lsb - shift)) & 1) byte->conditions[value].insert(*f.flag);
  }
  p.gated = dependency_order(std::move(with_gates));
  // A value's exclusions override what another field reports: where no
  // field of this processor reports a condition (Zen 3 has no CacheHitSt),
  // there is nothing to override, and the sample does not observe it.
  ConditionSet reported, excluded_only;
  for (const FieldSpec* f : p.fields) {
    if (f->flag) reported.insert(*f->flag);
    if (f->nonzero) reported.insert(*f->nonzero);
    for (const ValueMeaning& v : f->values) {
      reported |= v.conditions;
      excluded_only |= v.excludes;
    }
  }
  excluded_only.erase(reported);
  for (ConditionSet& observed : p.observed_by_register) observed.erase(excluded_only);
  for (const DerivedCondition& d : derived_condition_table())
    if (d.unit == unit && d.applies_to(family, model)) p.derived.push_back(&d);
  for (const UndecidedRule& r : undecided_rule_table())
    if (r.unit == unit && r.applies_to(family, model, caps)) p.rules.push_back(&r);
  return p;
}

IbsDecoder::IbsDecoder(unsigned family, unsigned model, std::optional<std::uint32_t> caps)
    : family_(family), model_(model), caps_(caps.value_or(capabilities_of(family, model))) {
  require_ibs_family(family);
  fetch_ = compile(IbsUnit::fetch, family, model, caps_);
  op_ = compile(IbsUnit::op, family, model, caps_);
}

Sample IbsDecoder::decode(const IbsRegisters& regs) const {
  const Plan& p = plan(regs.unit);
  Sample s;
  s.conditions.insert(regs.unit == IbsUnit::fetch ? condition("fetch") : condition("op"));
  s.observed = ConditionSet{condition("fetch"), condition("op")};
  for (std::size_t r = 0; r < register_count; ++r) {
    if (!((regs.present >> r) & 1)) continue;
    s.observed |= p.observed_by_register[r];
    s.measured |= p.measured_by_register[r];
  }
  for (const FlagByte& b : p.flag_bytes)
    if (regs.has(b.reg)) s.conditions |= b.conditions[(regs.get(b.reg) >> b.shift) & 0xFF];
  // Encoded fields and gated flags after the plain flags, which their
  // gates read; each after the gated fields it depends on.
  ConditionSet unknown, excluded;
  for (const FieldSpec* f : p.gated) {
    if (!regs.has(f->reg)) continue;
    if (!f->valid_if.matches(s.conditions)) {
      unknown |= conditions_of(*f);
      continue;
    }
    if (!f->only_if.matches(s.conditions)) continue;
    const std::uint64_t v = f->extract(regs.get(f->reg));
    if (f->flag && v) s.conditions.insert(*f->flag);
    if (f->nonzero && v) s.conditions.insert(*f->nonzero);
    const ValueMeaning* m = f->meaning(v);
    if (!m || !m->only_if.matches(s.conditions)) continue;
    s.conditions |= m->conditions;
    unknown |= m->unknown;
    excluded |= m->excludes;
  }
  s.conditions.erase(excluded);
  std::uint32_t unmeasured = 0;
  for (const UndecidedRule* r : p.rules)
    if (r->when.matches(s.conditions)) {
      unknown |= r->unknown;
      unmeasured |= r->unmeasured;
    }
  // A derived condition is decided when its term is: all it reads is
  // known, or one thing it reads is known to make it false.
  ConditionSet known = s.observed;
  known.erase(unknown);
  ConditionSet known_false = known;
  known_false.erase(s.conditions);
  for (const DerivedCondition* d : p.derived) {
    const bool fails = d->when.require.intersects(known_false) || d->when.forbid.intersects(s.conditions & known);
    if (!fails && !known.contains_all(d->when.require | d->when.forbid)) continue;
    s.observed.insert(d->condition);
    if (!fails && d->when.matches(s.conditions)) s.conditions.insert(d->condition);
  }
  // What a sample leaves undecided is neither true nor false.
  s.observed.erase(unknown);
  s.observed |= p.assumed;
  s.conditions = (s.conditions | p.assumed) & s.observed;
  // Measures and addresses by the sample's conditions as decided (what
  // FastIbsDecoder::fill() reads them by too).
  for (const FieldSpec* f : p.measures) {
    if (!regs.has(f->reg)) continue;
    if (!gates_pass(*f, s.conditions)) {
      s.measured &= ~(1u << f->measure->index);
      continue;
    }
    s.measures[f->measure->index] = static_cast<std::uint32_t>(f->extract(regs.get(f->reg)));
  }
  s.measured &= ~unmeasured;
  for (const FieldSpec* f : p.addresses) {
    if (!regs.has(f->reg)) continue;
    if (gates_pass(*f, s.conditions)) store_address(s, f->address, f->extract(regs.get(f->reg)));
    else if (f->address == AddressSlot::ip) s.ip_exact = false;  // IbsRipInvalid: the op's address is not known
  }
  return s;
}

std::vector<DecodedField> IbsDecoder::explain(const IbsRegisters& regs) const {
  std::vector<DecodedField> out;
  const Sample decoded = decode(regs);
  ConditionSet decided_false = decoded.observed;
  decided_false.erase(decoded.conditions);
  for (const FieldSpec* f : fields(regs.unit)) {
    if (!regs.has(f->reg)) continue;
    const std::uint64_t v = f->extract(regs.get(f->reg));
    std::string meaning;
    ConditionSet sets;  // what its value says holds
    if (f->flag && v) sets.insert(*f->flag);
    if (f->nonzero && v) sets.insert(*f->nonzero);
    if (has_values(*f)) {
      const ValueMeaning* m = f->meaning(v);
      meaning = m ? std::string(m->text) : "reserved";
      if (m && m->only_if.matches(decoded.conditions)) sets |= m->conditions;
    }
    // Gates read the decoded conditions; a gate over an undecided
    // condition fails. A field whose every condition the sample left
    // undecided (another field's value or a rule says it is not reported),
    // or whose measure a rule takes back, is not valid either.
    const ConditionSet decides = decidable_by(*f);
    const bool measure_taken_back = f->measure && f->only_if.matches(decoded.conditions) &&
                                    !((decoded.measured >> f->measure->index) & 1);
    const bool invalid = !f->valid_if.matches(decoded.conditions) ||
                         (!decides.empty() && !decoded.observed.intersects(decides)) || measure_taken_back;
    // A value that another field overrides (RmtNode for a source that is
    // never remote, the state of a line whose source reports none) means
    // nothing either.
    const bool ignored = !invalid && (!f->only_if.matches(decoded.conditions) || sets.intersects(decided_false));
    out.push_back({f, v, std::move(meaning), ignored, invalid});
  }
  return out;
}

ConditionSet IbsDecoder::observable(IbsUnit unit) const {
  const Plan& p = plan(unit);
  ConditionSet out = ConditionSet{condition("fetch"), condition("op")} | p.assumed;
  for (const ConditionSet& c : p.observed_by_register) out |= c;
  for (const DerivedCondition* d : p.derived)
    if (out.contains_all(d->when.require | d->when.forbid)) out.insert(d->condition);
  return out;
}

}  // namespace tagop::amd_ibs
