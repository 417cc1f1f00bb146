#include <tagop/amd_ibs/fast_decoder.hpp>

#include <algorithm>  // std::find_if
#include <cstring>    // std::memcpy

#include <tagop/amd_ibs/families.hpp>  // capabilities_of

namespace tagop::amd_ibs {

namespace {

constexpr std::size_t slot_count = 1 << 14;
constexpr std::size_t max_entries = slot_count / 2;

bool decides_conditions(const FieldSpec& f) { return !conditions_of(f).empty(); }

// Register access alike for IbsRegisters and for a payload with offsets.
struct GivenRegisters {
  const IbsRegisters& regs;
  bool has(IbsRegister r) const { return regs.has(r); }
  std::uint64_t get(IbsRegister r) const { return regs.get(r); }
};
struct PayloadRegisters {
  const std::byte* payload;
  const std::array<std::int16_t, register_count>& offsets;
  bool has(IbsRegister r) const { return offsets[static_cast<std::size_t>(r)] >= 0; }
  std::uint64_t get(IbsRegister r) const {
    const std::int16_t at = offsets[static_cast<std::size_t>(r)];
    if (at < 0) return 0;
    std::uint64_t v;
    std::memcpy(&v, payload + at, 8);
    return v;
  }
};

}  // namespace

FastIbsDecoder::FastIbsDecoder(unsigned family, unsigned model, std::optional<std::uint32_t> caps)
    : family_(family), model_(model), slots_(slot_count, 0) {
  variants_.push_back(make_variant(family, model, caps.value_or(capabilities_of(family, model))));
}

FastIbsDecoder::~FastIbsDecoder() = default;
FastIbsDecoder::FastIbsDecoder(FastIbsDecoder&&) noexcept = default;

void FastIbsDecoder::assume(IbsUnit unit, const ConditionSet& hold) {
  assumed_[static_cast<std::size_t>(unit)] = hold;
  for (auto& v : variants_) v->decoder.assume(unit, hold);
}

std::unique_ptr<FastIbsDecoder::Variant> FastIbsDecoder::make_variant(unsigned family, unsigned model,
                                                                    std::uint32_t caps) const {
  auto v = std::unique_ptr<Variant>(new Variant{caps & layout_caps_mask(), IbsDecoder(family, model, caps), {}});
  for (IbsUnit unit : {IbsUnit::fetch, IbsUnit::op}) v->decoder.assume(unit, assumed_[static_cast<std::size_t>(unit)]);
  for (IbsUnit unit : {IbsUnit::fetch, IbsUnit::op}) {
    UnitPlan& plan = v->plans[static_cast<std::size_t>(unit)];
    for (const FieldSpec* f : v->decoder.fields(unit)) {
      if (f->measure || f->address != AddressSlot::none) plan.values.push_back(f);
      if (!decides_conditions(*f)) continue;
      auto it = std::find_if(plan.condition_bits.begin(), plan.condition_bits.end(),
                             [&](const auto& p) { return p.first == f->reg; });
      if (it == plan.condition_bits.end()) {
        plan.condition_bits.emplace_back(f->reg, 0);
        it = plan.condition_bits.end() - 1;
      }
      it->second |= f->mask();
    }
    plan.cacheable = plan.condition_bits.size() <= key_registers;
  }
  return v;
}

std::uint32_t FastIbsDecoder::variant_of(std::uint32_t caps) const {
  const std::uint32_t layout = caps & layout_caps_mask();
  for (std::size_t i = 0; i < variants_.size(); ++i)
    if (variants_[i]->layout_caps == layout) return static_cast<std::uint32_t>(i);
  // The layout bits are few, so the variants are too (and fit the key's byte).
  variants_.push_back(make_variant(family_, model_, caps));
  return static_cast<std::uint32_t>(variants_.size() - 1);
}

const FastIbsDecoder::Decided* FastIbsDecoder::find(const Key& key, std::size_t& slot) const {
  const std::size_t mask = slot_count - 1;
  for (slot = key.hash() & mask;; slot = (slot + 1) & mask) {
    if (slots_[slot] == 0) return nullptr;
    const Decided& d = entries_[slots_[slot] - 1];
    if (d.key.same(key)) return &d;
  }
}

const FastIbsDecoder::Decided& FastIbsDecoder::insert(const Key& key, std::size_t slot, const Sample& s,
                                                     const std::array<std::int16_t, register_count>* offsets) const {
  // Only the condition-deciding bits are in the key, so the full decode of
  // this sample decides them for every sample with the same key.
  Decided fresh{key, {s.conditions, s.observed, s.measured}, {}};
  if (offsets) {
    // Where a payload of this kind (its registers are in the key) keeps
    // each measure it reports, as fill() would find them.
    for (const FieldSpec* f : plan_of(key).values) {
      const std::int16_t at = (*offsets)[static_cast<std::size_t>(f->reg)];
      if (!f->measure || at < 0 || !gates_pass(*f, s.conditions)) continue;
      const MeasureField m{static_cast<std::uint16_t>(at), f->lsb, f->measure->index,
                           static_cast<std::uint32_t>(f->width >= 32 ? ~0u : (1u << f->width) - 1)};
      MeasureFields& mine = fresh.measures;
      auto* const end = mine.fields.begin() + mine.count;
      auto* same = std::find_if(mine.fields.begin(), end, [&](const MeasureField& o) { return o.measure == m.measure; });
      *same = m;  // a later field of the same measure wins, as in fill()
      if (same == end) ++mine.count;
    }
  }
  if (entries_.size() >= max_entries) {
    scratch_ = fresh;
    return scratch_;
  }
  entries_.push_back(fresh);
  slots_[slot] = static_cast<std::uint32_t>(entries_.size());
  return entries_.back();
}

template <typename Registers>
void FastIbsDecoder::fill(const Decided& d, const UnitPlan& plan, const Registers& regs, Sample& s) const {
  s.conditions = d.facts.conditions;
  s.observed = d.facts.observed;
  s.measured = d.facts.measured;
  for (const FieldSpec* f : plan.values) {
    if (!regs.has(f->reg)) continue;
    if (!gates_pass(*f, s.conditions)) {
      if (f->address == AddressSlot::ip) s.ip_exact = false;
      continue;
    }
    const std::uint64_t v = f->extract(regs.get(f->reg));
    if (f->measure) s.measures[f->measure->index] = static_cast<std::uint32_t>(v);
    store_address(s, f->address, v);
  }
}

void FastIbsDecoder::decode(const IbsRegisters& regs, Sample& s) const {
  const Variant& variant = *variants_[0];
  const UnitPlan& plan = variant.plans[static_cast<std::size_t>(regs.unit)];
  if (!plan.cacheable) {
    s = variant.decoder.decode(regs);
    return;
  }
  Key key{};
  key.head = Key::head_of(regs.unit, regs.present);
  for (std::size_t i = 0; i < plan.condition_bits.size(); ++i)
    key.bits[i] = regs.get(plan.condition_bits[i].first) & plan.condition_bits[i].second;
  std::size_t slot = 0;
  const Decided* d = find(key, slot);
  if (!d) d = &insert(key, slot, variant.decoder.decode(regs), nullptr);
  fill(*d, plan, GivenRegisters{regs}, s);
}

const FastIbsDecoder::RawLayout& FastIbsDecoder::new_raw_layout(IbsUnit unit, std::uint32_t caps,
                                                               std::size_t size) const {
  RawLayout l;
  // Linux puts its IBS capabilities, which always have IBSFFV and the
  // unit's sampling bit, first in every payload: a word without them is
  // not the processor's, and the layout is taken from its family instead.
  const std::uint32_t used = plausible_caps(unit, caps) ? caps : variants_[0]->decoder.caps();
  l.offsets = perf_raw_offsets(unit, used, size);  // throws for sizes parse_perf_raw refuses
  l.caps = caps;
  l.size = size;
  l.variant = variant_of(used);
  std::uint32_t present = 0;
  for (std::size_t r = 0; r < register_count; ++r)
    if (l.offsets[r] >= 0) present |= 1u << r;
  l.head = Key::head_of(unit, present, l.variant);
  auto at = [&](IbsRegister r) { return l.offsets[static_cast<std::size_t>(r)]; };
  l.control_at = static_cast<std::uint16_t>(at(unit == IbsUnit::fetch ? IbsRegister::IbsFetchCtl : IbsRegister::IbsOpCtl));
  const UnitPlan& plan = variants_[l.variant]->plans[static_cast<std::size_t>(unit)];
  l.cacheable = plan.cacheable;
  for (std::size_t i = 0; i < plan.condition_bits.size() && i < key_registers; ++i) {
    const auto [reg, mask] = plan.condition_bits[i];
    if (at(reg) < 0) continue;  // read as 0, as IbsRegisters::get gives it
    l.key_at[i] = static_cast<std::uint16_t>(at(reg));
    l.key_mask[i] = mask;
  }
  ++layout_changes_;
  return layouts_[static_cast<std::size_t>(unit)] = l;
}

IbsRegisters FastIbsDecoder::registers_at(std::span<const std::byte> payload, const RawLayout& layout) {
  IbsRegisters regs;
  regs.unit = static_cast<IbsUnit>(layout.head & 1);
  for (std::size_t r = 0; r < register_count; ++r) {
    if (layout.offsets[r] < 0) continue;
    std::uint64_t v;
    std::memcpy(&v, payload.data() + layout.offsets[r], 8);
    regs.set(static_cast<IbsRegister>(r), v);
  }
  return regs;
}

bool plausible_caps(IbsUnit unit, std::uint32_t caps_word) {
  const std::uint32_t sampling = unit == IbsUnit::fetch ? caps::FetchSam : caps::OpSam;
  return (caps_word & caps::IBSFFV) && (caps_word & sampling);
}

const FastIbsDecoder::Decided* FastIbsDecoder::raw_entry(IbsUnit unit, std::span<const std::byte> payload,
                                                       std::uint64_t& control) const {
  Key key;
  if (!key_of(unit, payload, key, control)) return nullptr;
  return entry_of(key, payload);
}

const FastIbsDecoder::Decided* FastIbsDecoder::entry_of(const Key& key, std::span<const std::byte> payload) const {
  std::size_t slot = 0;
  if (const Decided* d = find(key, slot)) return d;
  // key_of() read this payload: its layout is the unit's last one.
  const RawLayout& layout = layouts_[static_cast<std::size_t>(key.unit())];
  return &insert(key, slot, variants_[key.variant()]->decoder.decode(registers_at(payload, layout)), &layout.offsets);
}

std::uint64_t FastIbsDecoder::decode_perf_raw(IbsUnit unit, std::span<const std::byte> payload, Sample& s) const {
  std::uint64_t control = 0;
  const Decided* d = raw_entry(unit, payload, control);
  const RawLayout& layout = layouts_[static_cast<std::size_t>(unit)];
  const Variant& variant = *variants_[layout.variant];
  if (!d) {
    s = variant.decoder.decode(registers_at(payload, layout));
    return control;
  }
  fill(*d, variant.plans[static_cast<std::size_t>(unit)], PayloadRegisters{payload.data(), layout.offsets}, s);
  return control;
}

std::uint32_t FastIbsDecoder::kind_of(IbsUnit unit, std::span<const std::byte> payload, std::uint64_t& control) const {
  const Decided* d = raw_entry(unit, payload, control);
  return d && d != &scratch_ ? static_cast<std::uint32_t>(d - entries_.data()) : no_kind;
}

std::uint32_t FastIbsDecoder::kind_of(const Key& key, std::span<const std::byte> payload) const {
  const Decided* d = entry_of(key, payload);
  return d != &scratch_ ? static_cast<std::uint32_t>(d - entries_.data()) : no_kind;
}

}  // namespace tagop::amd_ibs
