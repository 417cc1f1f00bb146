#include <tagop/amd_ibs/decoder.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop::amd_ibs {

namespace {

const ValueMeaning* meaning_of(const FieldSpec& f, std::uint64_t value) {
  for (const ValueMeaning& v : f.values)
    if (!v.text.empty() && v.value == value) return &v;
  return nullptr;
}

bool has_values(const FieldSpec& f) { return !f.values[0].text.empty(); }

}  // namespace

ConditionSet conditions_of(const FieldSpec& f) {
  ConditionSet out;
  if (f.flag) out.insert(*f.flag);
  if (f.nonzero) out.insert(*f.nonzero);
  for (const ValueMeaning& v : f.values)
    if (v.condition) out.insert(*v.condition);
  return out;
}

IbsDecoder::IbsDecoder(unsigned family, unsigned model) : family_(family), model_(model) {
  if (family < 0x10 || family == 0x14)
    throw Error(fmt::format("family {:#x} has no Instruction-Based Sampling (IBS starts with Family 10h; "
                            "Family 14h has none)",
                            family));
  for (const FieldSpec& f : field_table()) {
    if (!f.exists_on(family, model)) continue;
    (info(f.reg).unit == IbsUnit::fetch ? fetch_fields_ : op_fields_).push_back(&f);
  }
}

Sample IbsDecoder::decode(const IbsRegisters& regs) const {
  Sample s;
  const bool fetch = regs.unit == IbsUnit::fetch;
  s.conditions.insert(fetch ? condition("fetch") : condition("op"));
  s.observed = ConditionSet{condition("fetch"), condition("op")};
  for (const FieldSpec* f : fields(regs.unit)) {
    if (!regs.has(f->reg)) continue;
    s.observed |= conditions_of(*f);
    if (f->only_if && !s.conditions.contains(*f->only_if)) continue;
    const std::uint64_t v = f->extract(regs.get(f->reg));
    if (f->flag && v) s.conditions.insert(*f->flag);
    if (f->nonzero && v) s.conditions.insert(*f->nonzero);
    if (const ValueMeaning* m = meaning_of(*f, v); m && m->condition) s.conditions.insert(*m->condition);
    if (f->measure) s.set_measure(*f->measure, static_cast<std::uint32_t>(v));
    switch (f->address) {
      case AddressSlot::none: break;
      case AddressSlot::ip: s.ip = v; break;
      case AddressSlot::ip_physical: s.ip_physical = v; break;
      case AddressSlot::data_linear: s.data_linear = v; break;
      case AddressSlot::data_physical: s.data_physical = v; break;
      case AddressSlot::branch_target: s.branch_target = v; break;
    }
  }
  for (const DerivedCondition& d : derived_condition_table()) {
    if (d.unit != regs.unit) continue;
    if (!s.observed.contains_all(d.when.require | d.when.forbid)) continue;
    s.observed.insert(d.condition);
    if (d.when.matches(s.conditions)) s.conditions.insert(d.condition);
  }
  return s;
}

std::vector<DecodedField> IbsDecoder::explain(const IbsRegisters& regs) const {
  std::vector<DecodedField> out;
  Sample decoded = decode(regs);
  for (const FieldSpec* f : fields(regs.unit)) {
    if (!regs.has(f->reg)) continue;
    const std::uint64_t v = f->extract(regs.get(f->reg));
    std::string meaning;
    if (has_values(*f)) {
      const ValueMeaning* m = meaning_of(*f, v);
      meaning = m ? std::string(m->text) : "reserved";
    }
    const bool ignored = f->only_if && !decoded.conditions.contains(*f->only_if);
    out.push_back({f, v, std::move(meaning), ignored});
  }
  return out;
}

ConditionSet IbsDecoder::observable(IbsUnit unit) const {
  IbsRegisters all;
  all.unit = unit;
  for (const RegisterInfo& r : register_table)
    if (r.unit == unit) all.set(r.id, 0);
  return decode(all).observed;
}

}  // namespace tagop::amd_ibs
