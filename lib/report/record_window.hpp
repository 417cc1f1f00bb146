#pragma once
// The window in which a capture's samples wait for the records of their
// time, for the readers that stream a capture in the file's order (the
// JSON lines, export_lines.cpp; ingest, ingest.cpp).
//
// perf record writes each CPU's buffer in turn, so a sample can come in
// the file before the MMAP or COMM record of its time (an exec's, written
// from another CPU's buffer), and perf, which sorts records by time, names
// it all the same. So here, as in the report (space_log.hpp), a sample
// waits until the records of the next `window` samples are read, and the
// records that change processes wait for the samples' times: when a sample
// is released, the records up to its time are taken first. Memory stays
// flat: a ring of `window` samples and the records of their times.
//
// A capture whose samples have no time (no PERF_SAMPLE_TIME) is taken in
// the file's order, records and samples as they come.

#include <algorithm>  // std::push_heap, std::pop_heap
#include <cstdint>    // std::uint64_t
#include <variant>    // std::variant
#include <vector>     // std::vector

#include <tagop/perf_data_reader.hpp>  // MmapRecord, CommRecord, TaskRecord

namespace tagop::report {

/// A record that changes a capture's processes or their mappings.
using ProcessRecord = std::variant<perf_data::MmapRecord, perf_data::CommRecord, perf_data::TaskRecord>;

/// The window (the file's comment). `Sink` has `apply(const ProcessRecord&)`,
/// which takes a record into its process table, and `write(const Line&)`,
/// which writes a released sample; `Line` has `time()`. The records'
/// strings are the reader's mapping's: the window is finished before the
/// reader goes.
template <typename Line, typename Sink>
class RecordWindow {
 public:
  static constexpr std::size_t window = 16384;  // samples, as the report's (walk.hpp)

  RecordWindow(bool timed, Sink& sink) : sink_(sink), timed_(timed) {
    if (timed_) lines_.resize(window);
  }
  // The sink is referred to: not to be copied with another's.
  RecordWindow(const RecordWindow&) = delete;
  RecordWindow& operator=(const RecordWindow&) = delete;

  /// A process record of `time` (a task record's own time, the others' sample_id time).
  void record(const ProcessRecord& r, std::uint64_t time) {
    if (!timed_) return sink_.apply(r);
    waiting_.push_back({time, order_++, r});
    std::push_heap(waiting_.begin(), waiting_.end());
  }

  /// Hands on a sample's line, which the sink writes when its time comes.
  void queue(Line&& line) {
    if (!timed_) return sink_.write(line);
    Line& slot = lines_[queued_++ % window];
    if (queued_ > window) release(slot);
    slot = std::move(line);
  }

  /// Writes the samples still waiting, then takes the records left.
  void finish() {
    for (std::uint64_t i = queued_ > window ? queued_ - window : 0; i < queued_; ++i) release(lines_[i % window]);
    queued_ = 0;
    take_up_to(~std::uint64_t{0});
  }

 private:
  struct Waiting {
    std::uint64_t time, order;
    ProcessRecord record;
    // The heap's order: the earliest first, the file's order among equals.
    bool operator<(const Waiting& o) const { return time != o.time ? time > o.time : order > o.order; }
  };
  void take_up_to(std::uint64_t time) {
    while (!waiting_.empty() && waiting_.front().time <= time) {
      std::pop_heap(waiting_.begin(), waiting_.end());
      sink_.apply(waiting_.back().record);
      waiting_.pop_back();
    }
  }
  void release(const Line& line) {
    take_up_to(line.time());
    sink_.write(line);
  }

  Sink& sink_;
  bool timed_;
  std::vector<Line> lines_;  // a ring of `window`, when timed
  std::uint64_t queued_ = 0;
  std::vector<Waiting> waiting_;  // a heap
  std::uint64_t order_ = 0;
};

}  // namespace tagop::report
