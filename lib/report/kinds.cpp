#include "kinds.hpp"

#include <fmt/format.h>  // fmt::format

#include <tagop/engine.hpp>  // decide
#include <tagop/error.hpp>   // Error
#include <tagop/mem_data_src.hpp>  // read_data_src

namespace tagop::report {

namespace {

Verdict verdict_of(const Predicate* where, const ConditionSet& conditions, const ConditionSet& observed) {
  if (!where) return Verdict::passes;
  // A sample that did not observe what decides the predicate cannot be
  // said to meet it (a fetch sample knows nothing of dc.miss).
  switch (decide(*where, conditions, observed)) {
    case Decision::yes: return Verdict::passes;
    case Decision::no: return Verdict::fails;
    case Decision::unknown: break;
  }
  return Verdict::undecided;
}

}  // namespace

std::size_t KindKeyHash::operator()(const KindKey& k) const {
  std::uint64_t h = (std::uint64_t{k.event} << 32 | k.measured) * 0x9E3779B97F4A7C15ull;
  h ^= (static_cast<std::uint64_t>(k.ibs) << 1 | static_cast<std::uint64_t>(k.unit)) * 0xC2B2AE3D27D4EB4Full;
  for (std::uint64_t w : {k.conditions.words[0], k.conditions.words[1], k.observed.words[0], k.observed.words[1]})
    h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
  return static_cast<std::size_t>(h ^ (h >> 31));
}

KindTable::KindTable(const Predicate* where, std::uint32_t needed_measures) : where_(where), needed_(needed_measures) {}

std::uint32_t KindTable::kind_of(const KindKey& key) {
  auto [it, fresh] = by_key_.try_emplace(key, static_cast<std::uint32_t>(kinds_.size()));
  if (!fresh) return it->second;
  Kind k;
  k.ibs = key.ibs;
  k.unit = key.unit;
  k.event = key.event;
  k.conditions = key.conditions;
  k.observed = key.observed;
  k.measured = key.measured;
  if (key.ibs) {
    k.verdict = verdict_of(where_, key.conditions, key.observed);
    k.rip_invalid = key.unit == amd_ibs::IbsUnit::op && key.conditions.contains(condition("op.rip_invalid"));
    for (std::uint8_t m = 0; m < measure_count; ++m)
      if (((key.measured & needed_) >> m & 1) && k.sum_count < max_sums) k.sums[k.sum_count++] = m;
  } else {
    // Without conditions (an event without data sources) any --where
    // that tests one is undecided.
    k.verdict = verdict_of(where_, key.conditions, key.observed);
    k.sums[k.sum_count++] = period_sum;
    if (key.measured >> measure("mem.load_latency").index & 1) k.sums[k.sum_count++] = measure("mem.load_latency").index;
  }
  kinds_.push_back(k);
  return it->second;
}

std::vector<std::uint32_t> KindUnion::add(const std::vector<Kind>& kinds) {
  std::vector<std::uint32_t> out;
  for (const Kind& k : kinds) {
    auto [it, fresh] = index_.try_emplace(KindKey::of(k), static_cast<std::uint32_t>(kinds_.size()));
    if (fresh) kinds_.push_back(k);
    else kinds_[it->second].samples += k.samples;
    out.push_back(it->second);
  }
  return out;
}

std::uint32_t KindTable::event_kind(std::uint32_t event) {
  return kind_of(KindKey{false, amd_ibs::IbsUnit::op, event, 0, {}, {}});
}

std::uint32_t KindTable::data_src_kind(std::uint32_t event, std::uint64_t data_src, bool weighted) {
  const DataSrcReading r = read_data_src(data_src);
  const bool load = r.conditions.contains(condition("load"));
  const std::uint32_t measured = weighted && load ? 1u << measure("mem.load_latency").index : 0;
  return kind_of(KindKey{false, amd_ibs::IbsUnit::op, event, measured, r.conditions, r.observed});
}

void KindTable::use_ibs(const amd_ibs::IbsCapture& capture) {
  capture_ = &capture;
  decoder_.emplace(capture.new_decoder());
}

const KeyKind* KindTable::add_key(const amd_ibs::FastIbsDecoder::Key& key, std::span<const std::byte> payload) {
  // key_of() checked the payload's size, so its full decode cannot throw.
  const std::uint32_t decoded = decoder_->kind_of(key, payload);
  if (decoded == amd_ibs::FastIbsDecoder::no_kind) return nullptr;  // the decoder's cache is full
  const auto& facts = decoder_->facts(decoded);
  const amd_ibs::IbsUnit unit = key.unit();
  KeyKind kk;
  kk.kind = kind_of(KindKey{true, unit, 0, facts.measured, facts.conditions, facts.observed});
  const Kind& kind = kinds_[kk.kind];
  kk.rip_invalid = kind.rip_invalid;
  kk.verdict = kind.verdict;
  const auto ip_place = capture_->ip_offset(unit, payload.size());
  kk.ip_at = static_cast<std::uint16_t>(ip_place ? ip_place->at : 0);
  const amd_ibs::FastIbsDecoder::MeasureFields& fields = decoder_->measure_fields(decoded);
  for (std::size_t f = 0; f < fields.count; ++f) {
    const auto& field = fields.fields[f];
    for (std::uint8_t s = 0; s < kind.sum_count; ++s)
      if (kind.sums[s] == field.measure) kk.spots[s] = KeyKind::Spot{field.at, field.lsb, field.mask};
  }
  key_kinds_.push_back(kk);
  if ((key_kinds_.size() + 1) * 2 > key_slots_.size()) {
    std::vector<KeySlot> old(key_slots_.size() * 2);
    old.swap(key_slots_);
    key_mask_ = key_slots_.size() - 1;
    --key_shift_;
    for (const KeySlot& s : old)
      if (s.kind) place(s);
  }
  place(KeySlot{key, &key_kinds_.back()});
  return &key_kinds_.back();
}

void KindTable::place(const KeySlot& s) {
  std::size_t i = slot_of(s.key);
  while (key_slots_[i].kind) i = (i + 1) & key_mask_;
  key_slots_[i] = s;
}

void KindTable::settle() {
  for (const KeyKind& kk : key_kinds_) {
    kinds_[kk.kind].samples += kk.samples;
    kk.samples = 0;
  }
}

std::uint32_t KindTable::decode(amd_ibs::IbsUnit unit, std::span<const std::byte> payload, std::uint64_t& ip,
                                std::array<std::uint64_t, max_sums>& sums) {
  Sample s;
  decoder_->decode_perf_raw(unit, payload, s);
  const std::uint32_t id = kind_of(KindKey{true, unit, 0, s.measured, s.conditions, s.observed});
  const Kind& kind = kinds_[id];
  for (std::uint8_t i = 0; i < kind.sum_count; ++i) sums[i] = s.measures[kind.sums[i]];
  ip = s.ip;
  return id;
}

}  // namespace tagop::report
