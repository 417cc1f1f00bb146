#include <tagop/amd_ibs/fast_decoder.hpp>

namespace tagop::amd_ibs {

namespace {

constexpr std::size_t slot_count = 1 << 14;
constexpr std::size_t max_entries = slot_count / 2;

std::uint64_t field_mask(const FieldSpec& f) {
  return f.width == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << f.width) - 1) << f.lsb;
}

bool decides_conditions(const FieldSpec& f) { return !conditions_of(f).empty(); }

}  // namespace

FastIbsDecoder::FastIbsDecoder(unsigned family, unsigned model) : decoder_(family, model), slots_(slot_count, 0) {
  for (IbsUnit unit : {IbsUnit::fetch, IbsUnit::op}) {
    UnitPlan& plan = plans_[static_cast<std::size_t>(unit)];
    for (const FieldSpec* f : decoder_.fields(unit)) {
      if (f->measure || f->address != AddressSlot::none) plan.values.push_back(f);
      if (!decides_conditions(*f)) continue;
      auto it = std::find_if(plan.condition_bits.begin(), plan.condition_bits.end(),
                             [&](const auto& p) { return p.first == f->reg; });
      if (it == plan.condition_bits.end()) {
        plan.condition_bits.emplace_back(f->reg, 0);
        it = plan.condition_bits.end() - 1;
      }
      it->second |= field_mask(*f);
    }
    plan.cacheable = plan.condition_bits.size() <= key_registers;
  }
}

FastIbsDecoder::Key FastIbsDecoder::key_of(const IbsRegisters& regs) const {
  Key k;
  k.present = regs.present;
  k.unit = regs.unit;
  const UnitPlan& plan = plans_[static_cast<std::size_t>(regs.unit)];
  for (std::size_t i = 0; i < plan.condition_bits.size(); ++i)
    k.bits[i] = regs.get(plan.condition_bits[i].first) & plan.condition_bits[i].second;
  return k;
}

const FastIbsDecoder::Decided& FastIbsDecoder::decided(const IbsRegisters& regs) const {
  const Key key = key_of(regs);
  std::uint64_t h = (std::uint64_t{key.present} << 1 | static_cast<std::uint64_t>(key.unit)) * 0x9E3779B97F4A7C15ull;
  for (std::uint64_t w : key.bits) {
    h ^= w + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
  }
  h ^= h >> 29;
  const std::size_t mask = slot_count - 1;
  std::size_t i = h & mask;
  for (;; i = (i + 1) & mask) {
    if (slots_[i] == 0) break;
    const Decided& d = entries_[slots_[i] - 1];
    if (d.key == key) return d;
  }
  // Only the condition-deciding bits are in the key, so the full decode of
  // this sample decides them for every sample with the same key.
  const Sample s = decoder_.decode(regs);
  Decided fresh{key, s.conditions, s.observed, s.measured};
  if (entries_.size() >= max_entries) {
    scratch_ = fresh;
    return scratch_;
  }
  entries_.push_back(fresh);
  slots_[i] = static_cast<std::uint32_t>(entries_.size());
  return entries_.back();
}

Sample FastIbsDecoder::decode(const IbsRegisters& regs) const {
  const UnitPlan& plan = plans_[static_cast<std::size_t>(regs.unit)];
  if (!plan.cacheable) return decoder_.decode(regs);
  const Decided& d = decided(regs);
  Sample s;
  s.conditions = d.conditions;
  s.observed = d.observed;
  s.measured = d.measured;
  for (const FieldSpec* f : plan.values) {
    if (!regs.has(f->reg)) continue;
    if (f->only_if && !s.conditions.contains(*f->only_if)) continue;
    const std::uint64_t v = f->extract(regs.get(f->reg));
    if (f->measure) s.measures[f->measure->index] = static_cast<std::uint32_t>(v);
    switch (f->address) {
      case AddressSlot::none: break;
      case AddressSlot::ip: s.ip = v; break;
      case AddressSlot::ip_physical: s.ip_physical = v; break;
      case AddressSlot::data_linear: s.data_linear = v; break;
      case AddressSlot::data_physical: s.data_physical = v; break;
      case AddressSlot::branch_target: s.branch_target = v; break;
    }
  }
  return s;
}

}  // namespace tagop::amd_ibs
