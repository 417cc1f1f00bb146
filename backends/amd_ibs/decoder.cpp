#include <tagop/amd_ibs/decoder.hpp>

#include <algorithm>  // std::find_if

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

ConditionSet conditions_of(const FieldSpec& f) {
  ConditionSet out;
  if (f.flag) out.insert(*f.flag);
  if (f.nonzero) out.insert(*f.nonzero);
  for (const ValueMeaning& v : f.values)
    if (v.condition) out.insert(*v.condition);
  return out;
}

IbsDecoder::Plan IbsDecoder::compile(IbsUnit unit, unsigned family, unsigned model) {
  Plan p;
  for (const FieldSpec& f : field_table()) {
    if (info(f.reg).unit != unit || !f.exists_on(family, model)) continue;
    p.fields.push_back(&f);
    const auto r = static_cast<std::size_t>(f.reg);
    p.observed_by_register[r] |= conditions_of(f);
    if (f.measure) {
      p.measures.push_back(&f);
      p.measured_by_register[r] |= 1u << f.measure->index;
    }
    if (f.address != AddressSlot::none) p.addresses.push_back(&f);
    if (has_values(f) || f.nonzero) p.encoded.push_back(&f);
    if (!f.flag) continue;
    const unsigned shift = f.lsb & ~7u;
    auto byte = std::find_if(p.flag_bytes.begin(), p.flag_bytes.end(),
                             [&](const FlagByte& b) { return b.reg == f.reg && b.shift == shift; });
    if (byte == p.flag_bytes.end()) byte = p.flag_bytes.insert(p.flag_bytes.end(), FlagByte{f.reg, shift, {}});
    for (unsigned value = 0; value < 256; ++value)
      if ((value >> (f.lsb - shift)) & 1) byte->conditions[value].insert(*f.flag);
  }
  return p;
}

IbsDecoder::IbsDecoder(unsigned family, unsigned model) : family_(family), model_(model) {
  if (family < 0x10 || family == 0x14)
    throw Error(fmt::format("family {:#x} has no Instruction-Based Sampling (IBS starts with Family 10h; "
                            "Family 14h has none)",
                            family));
  fetch_ = compile(IbsUnit::fetch, family, model);
  op_ = compile(IbsUnit::op, family, model);
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
  // Encoded fields after the flags: their only_if conditions are flags.
  for (const FieldSpec* f : p.encoded) {
    if (!regs.has(f->reg) || (f->only_if && !s.conditions.contains(*f->only_if))) continue;
    const std::uint64_t v = f->extract(regs.get(f->reg));
    if (f->nonzero && v) s.conditions.insert(*f->nonzero);
    if (const ValueMeaning* m = meaning_of(*f, v); m && m->condition) s.conditions.insert(*m->condition);
  }
  for (const FieldSpec* f : p.measures)
    if (regs.has(f->reg)) s.measures[f->measure->index] = static_cast<std::uint32_t>(f->extract(regs.get(f->reg)));
  for (const FieldSpec* f : p.addresses) {
    if (!regs.has(f->reg) || (f->only_if && !s.conditions.contains(*f->only_if))) continue;
    const std::uint64_t v = f->extract(regs.get(f->reg));
    store_address(s, f->address, v);
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
