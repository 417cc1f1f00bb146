#include "report_tally.hpp"

#include <algorithm>  // std::min, std::max
#include <span>       // std::span

#include <tagop/error.hpp>  // Error

namespace tagop::cli {

void PeriodSeen::add(const amd_ibs::IbsCapture::Period& p) {
  ++samples;
  sum += p.period;
  min = std::min(min, p.period);
  max = std::max(max, p.period);
  counts_ops = counts_ops || p.counts_ops;
}

void PeriodSeen::merge(const PeriodSeen& o) {
  samples += o.samples;
  sum += o.sum;
  min = std::min(min, o.min);
  max = std::max(max, o.max);
  counts_ops = counts_ops || o.counts_ops;
}

void IbsCounts::merge(const IbsCounts& o) {
  for (std::size_t u = 0; u < 2; ++u) {
    read[u] += o.read[u];
    kept[u] += o.kept[u];
    period[u].merge(o.period[u]);
  }
  where_undecided += o.where_undecided;
  damaged.merge(o.damaged);
}

IbsTally::IbsTally(const amd_ibs::IbsCapture& capture, const Predicate* where)
    : capture_(&capture), where_(where), decoder_(capture.cpu().family, capture.cpu().model) {}

IbsTally::Verdict IbsTally::verdict(const ConditionSet& conditions, const ConditionSet& observed) const {
  if (!where_) return Verdict::passes;
  // A sample that did not observe what the predicate tests cannot be said
  // to meet it (a fetch sample knows nothing of dc.miss).
  if (!observed.contains_all(where_->used())) return Verdict::undecided;
  return where_->matches(conditions) ? Verdict::passes : Verdict::fails;
}

IbsTally::Verdict IbsTally::kind_verdict(std::uint32_t kind) {
  if (kind >= verdicts_.size()) verdicts_.resize(kind + 1, Verdict::unknown);
  Verdict& v = verdicts_[kind];
  if (v == Verdict::unknown) {
    const auto& facts = decoder_.facts(kind);
    v = verdict(facts.conditions, facts.observed);
  }
  return v;
}

void IbsTally::add(const IbsWork& w) {
  const std::span<const std::byte> raw(w.raw, w.raw_size);
  const auto u = static_cast<std::size_t>(w.unit);
  std::uint64_t control = 0;
  std::uint32_t kind = amd_ibs::FastIbsDecoder::no_kind;
  try {
    kind = decoder_.kind_of(w.unit, raw, control);
  } catch (const Error& e) {
    counts_.damaged.add(w.offset, e.what());
    return;
  }
  ++counts_.read[u];
  counts_.period[u].add(capture_->period_of(w.unit, control));
  if (w.row == not_kept) return;

  if (kind == amd_ibs::FastIbsDecoder::no_kind) {
    Sample s;
    decoder_.decode_perf_raw(w.unit, raw, s);  // the payload decoded once already: no throw
    const Verdict v = verdict(s.conditions, s.observed);
    counts_.where_undecided += v == Verdict::undecided;
    if (v != Verdict::passes) return;
    ++counts_.kept[u];
    uncached_.add(s, w.row);
    return;
  }
  const Verdict v = kind_verdict(kind);
  counts_.where_undecided += v == Verdict::undecided;
  if (v != Verdict::passes) return;
  ++counts_.kept[u];
  const std::uint64_t key = std::uint64_t{w.row} << 32 | kind;
  std::uint32_t index = tally_by_key_.find(key);
  if (index == FlatIndex::none) {
    index = static_cast<std::uint32_t>(entries_.size());
    entries_.push_back(Entry{w.row, kind, Tally{}});
    tally_by_key_.insert(key, index);
  }
  Tally& t = entries_[index].tally;
  ++t.count;
  decoder_.add_measures(kind, raw, t.totals);
}

void IbsTally::drain_into(Aggregator& aggregator, IbsCounts& counts) {
  for (const Entry& e : entries_) {
    const auto& facts = decoder_.facts(e.kind);
    aggregator.add(Signature{e.row, facts.measured, facts.conditions, facts.observed}, e.tally);
  }
  entries_.clear();
  tally_by_key_ = FlatIndex();
  aggregator.merge(uncached_);
  uncached_ = Aggregator();
  counts.merge(counts_);
  counts_ = IbsCounts();
}

}  // namespace tagop::cli
