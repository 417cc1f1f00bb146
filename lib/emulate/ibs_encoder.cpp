#include <tagop/emulate/ibs_encoder.hpp>

#include <algorithm>  // std::min

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop::emulate {

namespace {

using amd_ibs::AddressSlot;
using amd_ibs::FieldSpec;
using amd_ibs::IbsRegister;
using amd_ibs::IbsRegisters;
using amd_ibs::IbsUnit;

// The value of an encoded field that says the most of what the sample
// holds: all of its conditions hold, and of those it leaves undecided (Zen
// 1-3's "local node cache" is the L3 or another core's cache) the sample
// holds one. nullptr when no value fits.
const amd_ibs::ValueMeaning* best_value(const FieldSpec& f, const ConditionSet& holds) {
  const amd_ibs::ValueMeaning* best = nullptr;
  std::size_t best_score = 0;
  for (const amd_ibs::ValueMeaning& v : f.values) {
    if (!holds.contains_all(v.conditions)) continue;
    const std::size_t score = v.conditions.members().size() + (v.unknown & holds).members().size();
    if (score > best_score) best = &v, best_score = score;
  }
  return best;
}

std::uint64_t address_of(const Sample& s, AddressSlot slot) {
  switch (slot) {
    case AddressSlot::ip: return s.ip;
    case AddressSlot::data_linear:
      return s.conditions.contains(condition("dc.lin_addr_valid")) ? s.data_linear : 0;
    case AddressSlot::branch_target: return s.branch_target;
    // The model knows no physical addresses (their valid bits stay 0).
    case AddressSlot::ip_physical:
    case AddressSlot::data_physical:
    case AddressSlot::none: return 0;
  }
  return 0;
}

// What IBS reports of loads alone: the data source (IbsOpData2, the
// northbridge's report before Zen) and IbsDcMissLat. The model knows them
// for stores too (its op samples and counts keep them), but the register
// image is what the hardware writes: zero there for an op that loads nothing.
bool load_only(const FieldSpec& f) {
  return f.reg == IbsRegister::IbsOpData2 || (f.measure && *f.measure == measure("dc.miss_latency"));
}

}  // namespace

IbsEncoder::IbsEncoder(unsigned family, unsigned model) : decoder_(family, model) {}

const FieldSpec* IbsEncoder::field(IbsUnit unit, std::string_view name) const {
  for (const FieldSpec* f : decoder_.fields(unit))
    if (f->name == name) return f;
  return nullptr;
}

void IbsEncoder::set(IbsRegisters& regs, const FieldSpec& f, std::uint64_t value) const {
  // A counter past its field saturates, as the hardware's do.
  const std::uint64_t limit = f.width == 64 ? value : (std::uint64_t{1} << (f.width + f.high_width)) - 1;
  regs.set(f.reg, f.insert(regs.get(f.reg), std::min(value, limit)));
}

void IbsEncoder::set(IbsRegisters& regs, std::string_view name, std::uint64_t value) const {
  const FieldSpec* f = field(regs.unit, name);
  if (!f) throw Error(fmt::format("IBS family {:x}h has no field {}", decoder_.family(), name));
  set(regs, *f, value);
}

std::uint64_t IbsEncoder::max_period(IbsUnit unit) const {
  auto all_ones = [](const FieldSpec& f) { return f.low_mask(); };
  if (unit == IbsUnit::fetch) return all_ones(*field(unit, "IbsFetchMaxCnt")) << 4;
  const FieldSpec& low = *field(unit, "IbsOpMaxCnt");
  std::uint64_t max_count = all_ones(low);
  if (const FieldSpec* ext = field(unit, "IbsOpMaxCntExt")) max_count |= all_ones(*ext) << low.width;
  return max_count << 4;
}

amd_ibs::IbsRegisters IbsEncoder::encode(const Sample& s, std::uint64_t period) const {
  IbsRegisters regs;
  regs.unit = s.kind() == SampleKind::fetch ? IbsUnit::fetch : IbsUnit::op;
  for (const FieldSpec* f : decoder_.fields(regs.unit)) regs.set(f->reg, 0);  // every register present
  const bool loads = s.conditions.contains(condition("load"));
  for (const FieldSpec* f : decoder_.fields(regs.unit)) {
    if (!loads && load_only(*f)) continue;
    if (f->flag && s.conditions.contains(*f->flag)) set(regs, *f, 1);
    if (f->measure && s.has_measure(*f->measure)) set(regs, *f, s.measures[f->measure->index]);
    if (f->address != AddressSlot::none) set(regs, *f, address_of(s, f->address));
    if (const amd_ibs::ValueMeaning* v = best_value(*f, s.conditions)) set(regs, *f, v->value);
  }
  // The control register as the hardware leaves it when the sample is
  // taken: enabled, valid, the period's MaxCnt (and, for fetches, random
  // tagging on, as Linux's ibs_fetch sets IbsRandEn).
  const std::uint64_t max_count = period >> 4;
  if (regs.unit == IbsUnit::fetch) {
    set(regs, "IbsFetchMaxCnt", max_count);
    set(regs, "IbsFetchCnt", max_count);
    set(regs, "IbsFetchEn", 1);
    set(regs, "IbsFetchVal", 1);
    set(regs, "IbsRandEn", 1);
  } else {
    // MaxCnt's low bits, then (from Family 12h) its extension.
    const FieldSpec& low = *field(regs.unit, "IbsOpMaxCnt");
    set(regs, low, max_count & low.low_mask());
    if (const FieldSpec* ext = field(regs.unit, "IbsOpMaxCntExt")) set(regs, *ext, max_count >> low.width);
    set(regs, "IbsOpEn", 1);
    set(regs, "IbsOpVal", 1);
    set(regs, "IbsOpCntCtl", 1);
  }
  return regs;
}

}  // namespace tagop::emulate
