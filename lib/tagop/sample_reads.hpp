#pragma once
// Samples that carry counter values (PERF_SAMPLE_READ) read as perf reads
// them: `perf record -e '{cycles,page-faults}:S'` samples the leader and
// writes every member's count into the leader's samples. perf (session.c,
// deliver_sample_value) turns each value into a sample of the value's own
// event whose period is how far that counter moved since its last sample,
// and drops values that did not move. The sample's own period is not used.

#include <cstdint>        // std::uint32_t, std::uint64_t
#include <span>           // std::span
#include <unordered_map>  // by id
#include <vector>         // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/perf_data_reader.hpp>  // FileInfo, SampleRecord

namespace tagop TAGOP_API {
namespace perf_data {

/// One event's part of a sample: the event (an index in FileInfo::attrs)
/// and its period.
struct ReadShare {
  std::uint32_t event = 0;
  std::uint64_t period = 0;
};

/// The counter values of samples, each turned into its event's share.
/// Holds each counter's last value, so one object reads one pass over a
/// file, its samples in order. Not thread-safe: one reading thread.
class SampleReads {
 public:
  explicit SampleReads(const FileInfo& info);

  /// Whether the samples of `event` stand for the counters they read
  /// (PERF_SAMPLE_READ) rather than for their own period.
  bool reads(std::uint32_t event) const { return event < reads_.size() && reads_[event]; }

  /// The shares of `r`, a sample of an event that reads(): valid until the
  /// next call. Values of counters that did not move give none; so do
  /// values whose id no event of the file has (counted by unknown_values()),
  /// as perf counts them in its "unknown id" statistic.
  std::span<const ReadShare> shares(const SampleRecord& r);

  std::uint64_t unknown_values() const { return unknown_; }

 private:
  struct Counter {
    std::uint32_t event = 0;
    std::uint64_t last = 0;
  };
  std::vector<bool> reads_;                          ///< by event
  std::unordered_map<std::uint64_t, Counter> by_id_;  ///< every id of every attr
  std::vector<ReadShare> shares_;
  std::uint64_t unknown_ = 0;
};

}  // namespace perf_data
}  // namespace tagop
