#include "report_tally.hpp"

#include <algorithm>  // std::min, std::max
#include <span>       // std::span

#include <tagop/error.hpp>  // Error

namespace tagop::cli {

void PeriodSeen::add(const amd_ibs::IbsCapture::Period& p, std::uint64_t n) {
  if (n == 0) return;
  samples += n;
  sum += p.period * n;
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
    kept[u] += o.kept[u];
    period[u].merge(o.period[u]);
  }
  where_undecided += o.where_undecided;
  damaged.merge(o.damaged);
}

IbsTally::IbsTally(const amd_ibs::IbsCapture& capture, const Predicate* where, const std::byte* file)
    : capture_(&capture), where_(where), file_(file), decoder_(capture.cpu().family, capture.cpu().model) {
  end_period_runs();  // sets the masks
}

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

// Once per sample: defined before their caller, to be inlined.
inline void IbsTally::count_period(amd_ibs::IbsUnit unit, std::uint64_t control) {
  PeriodRun& run = period_runs_[static_cast<std::size_t>(unit)];
  const std::uint64_t bits = control & run.mask;
  if (bits != run.bits) {
    counts_.period[static_cast<std::size_t>(unit)].add(run.period, run.samples);
    run = {run.mask, bits, capture_->period_of(unit, control), 0};
  }
  ++run.samples;
}

[[gnu::always_inline]] inline void IbsTally::add(const IbsWork& w) {
  const std::span<const std::byte> raw = w.raw();
  const amd_ibs::IbsUnit unit = w.unit();
  const std::uint32_t row = w.row();
  std::uint64_t control = 0;
  amd_ibs::FastIbsDecoder::Key key;
  bool cached = false;
  try {
    cached = decoder_.key_of(unit, raw, key, control);
  } catch (const Error& e) {
    counts_.damaged.add(static_cast<std::uint64_t>(w.record() - file_), e.what());
    return;
  }
  count_period(unit, control);
  if (row == IbsWork::not_kept) return;
  if (!cached) return add_uncached(unit, raw, row);

  std::uint32_t index = entry_by_key_.find(RowKey{key, row});
  if (index == FlatIndex<RowKey>::none) {
    index = new_entry(key, row, raw);
    if (index == FlatIndex<RowKey>::none) return add_uncached(unit, raw, row);
  }
  Entry& e = entries_[index];
  ++e.tally.count;
  amd_ibs::FastIbsDecoder::add_measures(e.measures, raw, e.tally.totals);
}

void IbsTally::add(std::span<const IbsWork> batch) {
  for (const IbsWork& w : batch) add(w);
}

std::uint32_t IbsTally::new_entry(const amd_ibs::FastIbsDecoder::Key& key, std::uint32_t row,
                                  std::span<const std::byte> raw) {
  // key_of() checked the payload's size, so its full decode cannot throw.
  const std::uint32_t kind = decoder_.kind_of(key, raw);
  if (kind == amd_ibs::FastIbsDecoder::no_kind) return FlatIndex<RowKey>::none;  // the kind cache is full
  const auto index = static_cast<std::uint32_t>(entries_.size());
  const Verdict v = kind_verdict(kind);
  const amd_ibs::FastIbsDecoder::MeasureFields none;
  entries_.push_back(Entry{row, kind, key.unit(), v, v == Verdict::passes ? decoder_.measure_fields(kind) : none, Tally{}});
  entry_by_key_.insert(RowKey{key, row}, index);
  return index;
}

void IbsTally::add_uncached(amd_ibs::IbsUnit unit, std::span<const std::byte> raw, std::uint32_t row) {
  Sample s;
  decoder_.decode_perf_raw(unit, raw, s);  // the payload was read once already: no throw
  const Verdict v = verdict(s.conditions, s.observed);
  counts_.where_undecided += v == Verdict::undecided;
  if (v != Verdict::passes) return;
  ++counts_.kept[static_cast<std::size_t>(unit)];
  uncached_.add(s, row);
}

void IbsTally::end_period_runs() {
  for (std::size_t u = 0; u < period_runs_.size(); ++u) {
    counts_.period[u].add(period_runs_[u].period, period_runs_[u].samples);
    period_runs_[u] = PeriodRun{};
    period_runs_[u].mask = capture_->period_bits(static_cast<amd_ibs::IbsUnit>(u));
  }
}

void IbsTally::drain_into(Aggregator& aggregator, IbsCounts& counts) {
  for (const Entry& e : entries_) {
    if (e.tally.count == 0) continue;
    if (e.verdict == Verdict::undecided) counts_.where_undecided += e.tally.count;
    if (e.verdict != Verdict::passes) continue;
    counts_.kept[static_cast<std::size_t>(e.unit)] += e.tally.count;
    const auto& facts = decoder_.facts(e.kind);
    aggregator.add(Signature{e.row, facts.measured, facts.conditions, facts.observed}, e.tally);
  }
  entries_.clear();
  entry_by_key_ = FlatIndex<RowKey>();
  aggregator.merge(uncached_);
  uncached_ = Aggregator();
  end_period_runs();
  counts.merge(counts_);
  counts_ = IbsCounts();
}

}  // namespace tagop::cli
