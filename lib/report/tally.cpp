#include "tally.hpp"

#include <algorithm>  // std::min, std::max
#include <bit>        // std::popcount

namespace tagop::report {

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

Tally::Tally(const amd_ibs::IbsCapture* capture, const Predicate* where, std::uint32_t needed_measures,
             std::uint8_t width, std::size_t events, const std::byte* file,
             const std::vector<std::uint64_t>* data_src_values)
    : capture_(capture), file_(file), kinds_(where, needed_measures), data_src_values_(data_src_values), entries_(width) {
  if (capture_) kinds_.use_ibs(*capture_);
  else
    for (std::uint32_t e = 0; e < events; ++e) event_kinds_.push_back(kinds_.event_kind(e));
  end_period_runs();  // sets the masks
}

Tally::Tally(Tally&& o) noexcept
    : capture_(o.capture_),
      file_(o.file_),
      kinds_(std::move(o.kinds_)),
      event_kinds_(std::move(o.event_kinds_)),
      data_src_values_(o.data_src_values_),
      data_src_kinds_(std::move(o.data_src_kinds_)),
      entries_(std::move(o.entries_)),
      pending_(o.pending_),
      queued_(o.queued_),
      damaged_(std::move(o.damaged_)),
      period_runs_(o.period_runs_),
      periods_(o.periods_) {}

void Tally::check_payload(const Item& item) {
  capture_->check_payload(item.unit(), {item.raw(), item.raw_size()},
                          static_cast<std::uint64_t>(item.raw() - item.raw_at() - file_));
}

void Tally::decoded(const Item& item, std::span<const std::byte> raw) {
  std::uint64_t ip = 0;
  std::array<std::uint64_t, max_sums> values{};
  const std::uint32_t id = kinds_.decode(item.unit(), raw, ip, values);
  Kind& kind = kinds_.kinds()[id];
  ++kind.samples;
  if (kind.verdict != Verdict::passes) return;
  if (kind.rip_invalid || (item.flags() & Item::data_address)) ip = item.ip;
  // At once: its sums are values of its own, not in the payload at offsets.
  const std::size_t slot = entries_.find(ip, item.place, id, EntryTable::hash(ip, item.place, id));
  ++entries_.at(slot).count;
  std::uint64_t* sums = entries_.sums(slot);
  for (std::size_t i = 0; i < kind.sum_count; ++i) sums[i] += values[i];
}

void Tally::with_data_src(const Item& item) {
  const std::uint32_t key = std::uint32_t{item.event()} << 16 | item.data_src_id();
  auto [it, fresh] = data_src_kinds_.try_emplace(key, 0);
  if (fresh)
    it->second = kinds_.data_src_kind(item.event(), (*data_src_values_)[item.data_src_id()], item.flags() & Item::weighted);
  Kind& kind = kinds_.kinds()[it->second];
  ++kind.samples;
  if (kind.verdict != Verdict::passes) return;
  if (kind.sum_count == 1) return queue(item.ip, item.place, it->second, nullptr, item.payload_or_period);
  // A load with its latency: the period and the latency, at once (as a
  // decoded IBS payload's values are).
  const std::size_t slot =
      entries_.find(item.ip, item.place, it->second, EntryTable::hash(item.ip, item.place, it->second));
  ++entries_.at(slot).count;
  std::uint64_t* sums = entries_.sums(slot);
  sums[0] += item.payload_or_period;
  sums[1] += item.weight();
}

void Tally::end_period_runs() {
  if (!capture_) return;
  for (std::size_t u = 0; u < period_runs_.size(); ++u) {
    periods_[u].add(period_runs_[u].period, period_runs_[u].samples);
    period_runs_[u] = PeriodRun{};
    period_runs_[u].mask = capture_->period_bits(static_cast<amd_ibs::IbsUnit>(u));
  }
}

void Tally::finish() {
  for (std::uint64_t i = queued_ > pending_depth ? queued_ - pending_depth : 0; i < queued_; ++i)
    count(pending_[i & (pending_depth - 1)]);
  queued_ = 0;
  end_period_runs();
  kinds_.settle();
}

}  // namespace tagop::report
