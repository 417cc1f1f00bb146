#pragma once
// The report's one pass over a capture. The reading thread keeps the
// processes (spaces), filters each sample, interns its call chain and
// hands it on, by a hash of its address, to one shard of the tallies
// (tally.hpp), its own or a worker thread's. Nothing here knows rows,
// names or symbols: those come after the walk, once per distinct address
// (rows.cpp).

#include <algorithm>    // std::find
#include <cstddef>      // std::byte
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <cstring>      // std::memcpy
#include <functional>   // std::function
#include <optional>     // std::optional
#include <vector>       // std::vector

#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCapture
#include <tagop/perf_data_reader.hpp>      // RecordHandler
#include <tagop/report/report.hpp>         // Filters

#include "chain_table.hpp"
#include "sample_layout.hpp"
#include "shard_pool.hpp"
#include "space_log.hpp"
#include "tally.hpp"

namespace tagop::report {

class Walk final : public perf_data::RecordHandler {
 public:
  /// `capture`: the IBS events (null for a capture without them, whose
  /// events are counted by period). `needed_measures`: a bit per measure
  /// that the queries sum. `threads`: the tallies' shards (0: by the CPUs).
  Walk(const perf_data::PerfDataReader& reader, const amd_ibs::IbsCapture* capture, const Filters& filters,
       std::uint32_t needed_measures, std::size_t threads, std::function<void(std::uint64_t, std::uint64_t)> progress);

  void sample(const perf_data::SampleRecord& r) override;
  /// The common sample, read in place (sample_layout.hpp); defined below,
  /// in sight of the reader's loop, which calls it directly.
  bool sample_in_place(std::uint32_t event, const std::byte* record, std::uint16_t size);
  std::uint64_t sample_fields() const override;
  void mmap(const perf_data::MmapRecord& r) override { spaces_.mmap(r); }
  void comm(const perf_data::CommRecord& r) override { spaces_.comm(r); }
  void task(const perf_data::TaskRecord& r) override { spaces_.task(r); }
  void progress(std::uint64_t done, std::uint64_t total) override {
    rebalance();
    if (progress_) progress_(done, total);
  }
  /// Waits for the shards: their tallies are final.
  std::vector<Tally>& finish();

  ChainTable& chains() { return chains_; }
  const SpaceLog& spaces() const { return spaces_; }
  std::uint64_t other_samples() const { return other_; }
  const perf_data::Skipped& damaged() const { return damaged_; }

 private:
  // How one event's samples are read.
  struct EventPlan {
    SampleLayout layout;
    bool ibs = false;  // IBS (its unit by the capture), else a counted event
    // IBS of one unit, in place, without a call chain, nothing to filter
    // by the sample: ibs_in_place().
    bool direct = false;
    amd_ibs::IbsUnit unit = amd_ibs::IbsUnit::op;
    std::uint16_t payload_ip_at = 0;  // direct: the address in the payload (IbsCapture::ip_offset)
    std::uint32_t payload_ip_end = 0;
  };
  // The fields of a sample the report reads.
  struct Fields {
    std::uint32_t pid = 0, tid = 0, cpu = 0;
    std::uint64_t time = 0, ip = 0, period = 0;
    const std::byte* chain = nullptr;
    std::uint64_t chain_nr = 0;
    std::span<const std::byte> raw;
  };
  void take(std::uint32_t event, const EventPlan& plan, const Fields& f, const std::byte* record);
  bool ibs_in_place(std::uint32_t event, const EventPlan& plan, const std::byte* record, std::uint16_t size);
  bool passes(const Fields& f) const;
  // A sample waits here while the next records are read: one that comes
  // later in the file but earlier in time still decides the sample's
  // space (space_log.hpp). Only in a timed capture.
  struct Delayed {
    Item item;
    std::uint64_t address, time;  // the address picks the shard
    std::uint32_t pid;
  };
  static constexpr std::size_t delay_depth = 16384;  // a power of two
  // A sample is written straight into the slot next_delayed() gives (one
  // that waited there is released first), then hand_on(): in an untimed
  // capture the slot is a scratch one, released at once.
  Delayed& next_delayed();
  void hand_on(Delayed& d);
  void release(Delayed& d);
  // A direct sample (EventPlan::direct) waits as its record alone, in a
  // ring of its own (a quarter of the bytes, so that it stays in the L2
  // cache), and is read when it is released. Samples of the two rings
  // may be released out of their order in the file: any order is right,
  // as long as each waited (space_at takes any time).
  struct DelayedRecord {
    const std::byte* record;
    std::uint32_t event, raw_size;
  };
  void release(const DelayedRecord& d);
  // The shard of an address: the reading thread's own (0) takes a smaller
  // share, since reading is work too (own_share in walk.cpp).
  std::size_t shard_of(std::uint64_t ip, std::uint32_t space) const {
    if (shards_ == 1) return 0;
    const std::uint64_t h = ((ip ^ std::uint64_t{space} << 40) * 0x9E3779B97F4A7C15ull) >> 32;
    return h < own_share_ ? 0 : 1 + (((h - own_share_) * worker_scale_) >> 32);
  }

  // Moves the reading thread's share of the tallies towards the point
  // where neither it nor the workers wait (ShardPool::waits()).
  void rebalance();

  const amd_ibs::IbsCapture* capture_;
  const std::byte* file_;
  Filters filters_;
  bool filtering_ = false;  // by --cpu, --tid or --time (per sample)
  std::vector<EventPlan> plans_;
  bool timed_;
  SpaceLog spaces_;
  ChainTable chains_;
  std::vector<Delayed> delayed_;
  std::uint64_t delayed_count_ = 0;
  Delayed undelayed_{};
  std::vector<DelayedRecord> delayed_records_;
  std::uint64_t delayed_record_count_ = 0;
  std::size_t shards_;
  std::uint64_t own_share_;  // of 2^32
  // The workers' part of the hash onto 0 .. shards - 2, by a multiply (a
  // divide here was 10 of the reading thread's instructions a sample, and slow):
  // (shards - 1) * 2^32 / (2^32 - own_share_).
  std::uint64_t worker_scale_;
  ShardPool<Item, Tally> pool_;
  std::uint64_t other_ = 0;
  perf_data::Skipped damaged_;
  std::function<void(std::uint64_t, std::uint64_t)> progress_;
};

// Once per sample: inline, in sight of the reader's loop.

inline bool Walk::passes(const Fields& f) const {
  const Filters& x = filters_;
  if (!x.cpus.empty() && std::find(x.cpus.begin(), x.cpus.end(), f.cpu) == x.cpus.end()) return false;
  if (!x.tids.empty() && std::find(x.tids.begin(), x.tids.end(), f.tid) == x.tids.end()) return false;
  if (x.time && (f.time < x.time->start || f.time > x.time->stop)) return false;
  return true;
}

[[gnu::always_inline]] inline void Walk::release(Delayed& d) {
  Item& item = d.item;
  item.space = spaces_.space_at(d.pid, d.time);
  if (!spaces_.space(item.space).passes) {
    // IBS: read all the same, for the period; any other: not at all.
    if (!(item.flags & Item::ibs)) return;
    item.flags |= Item::filtered_out;
  }
  pool_.add(shard_of(d.address, item.space), item);
}

[[gnu::always_inline]] inline Walk::Delayed& Walk::next_delayed() {
  if (!timed_) return undelayed_;
  Delayed& slot = delayed_[delayed_count_++ & (delay_depth - 1)];
  if (delayed_count_ > delay_depth) release(slot);
  return slot;
}

[[gnu::always_inline]] inline void Walk::hand_on(Delayed& d) {
  if (!timed_) release(d);
}

[[gnu::always_inline]] inline void Walk::release(const DelayedRecord& d) {
  const EventPlan& plan = plans_[d.event];
  const SampleLayout& l = plan.layout;
  const std::byte* raw = d.record + l.variable_at + 4;
  std::uint32_t pid;
  std::memcpy(&pid, d.record + l.pid_at, 4);
  std::uint64_t time = 0;
  if (l.time_at) std::memcpy(&time, d.record + l.time_at, 8);
  Item item;
  item.payload_or_period = reinterpret_cast<std::uint64_t>(raw);
  if (l.ip_at) std::memcpy(&item.ip, d.record + l.ip_at, 8);
  item.raw_size = static_cast<std::uint16_t>(d.raw_size);
  item.raw_at = static_cast<std::uint16_t>(l.variable_at + 4);
  item.unit = plan.unit;
  item.flags = Item::ibs;
  item.space = spaces_.space_at(pid, time);
  // Read all the same when filtered out by process: the period counts.
  if (!spaces_.space(item.space).passes) item.flags |= Item::filtered_out;
  std::uint64_t address = 0;
  if (shards_ > 1) std::memcpy(&address, raw + plan.payload_ip_at, 8);
  pool_.add(shard_of(address, item.space), item);
}

[[gnu::always_inline]] inline bool Walk::ibs_in_place(std::uint32_t event, const EventPlan& plan,
                                                      const std::byte* record, std::uint16_t size) {
  const SampleLayout& l = plan.layout;
  std::uint32_t n;
  std::memcpy(&n, record + l.variable_at, 4);
  if (n > std::size_t{size} - l.variable_at - 4 || n < plan.payload_ip_end) return false;
  const DelayedRecord d{record, event, n};
  if (!timed_) {
    release(d);
    return true;
  }
  DelayedRecord& slot = delayed_records_[delayed_record_count_++ & (delay_depth - 1)];
  if (delayed_record_count_ > delay_depth) release(slot);
  slot = d;
  return true;
}

[[gnu::always_inline]] inline bool Walk::sample_in_place(std::uint32_t event, const std::byte* record,
                                                        std::uint16_t size) {
  const EventPlan& plan = plans_[event];
  const SampleLayout& l = plan.layout;
  if (plan.direct) return size >= l.variable_at + 4 && ibs_in_place(event, plan, record, size);
  if (!l.in_place || size < l.variable_at + (l.raw ? 4 : 0)) return false;
  Fields f;
  SampleParts parts;
  if (!parts.read(l, record, size)) return false;
  auto u64_at = [&](std::uint16_t at, std::uint64_t otherwise) {
    std::uint64_t v = otherwise;
    if (at) std::memcpy(&v, record + at, 8);
    return v;
  };
  const std::uint64_t ids = u64_at(l.pid_at, 0);
  f.pid = static_cast<std::uint32_t>(ids);
  f.tid = static_cast<std::uint32_t>(ids >> 32);
  f.ip = u64_at(l.ip_at, 0);
  f.period = u64_at(l.period_at, l.fixed_period);
  f.time = u64_at(l.time_at, 0);
  if (filtering_) f.cpu = static_cast<std::uint32_t>(u64_at(l.cpu_at, 0));
  f.chain = parts.chain;
  f.chain_nr = parts.chain_nr;
  f.raw = parts.raw;
  take(event, plan, f, record);
  return true;
}

}  // namespace tagop::report
