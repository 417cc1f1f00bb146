#pragma once
// Reads an IBS capture for `tagop report`: tracks processes, filters the
// samples, gives each a row (function, module, process, address or source
// line) and hands it to the tallying threads (report_tally.hpp), whose
// tallies go to the engine at the end.

#include <cstddef>        // std::byte
#include <cstdint>        // std::uint32_t, std::uint64_t
#include <cstring>        // std::memcpy
#include <memory>         // std::unique_ptr
#include <optional>       // std::optional
#include <string>         // std::string
#include <unordered_map>  // row keys
#include <vector>         // std::vector

#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCapture
#include <tagop/engine.hpp>                // Aggregator
#include <tagop/perf_data_reader.hpp>      // RecordHandler
#include <tagop/predicate.hpp>             // Predicate
#include <tagop/process_table.hpp>         // ProcessTable

#include "batch_pool.hpp"
#include "flat_index.hpp"
#include "report_symbols.hpp"
#include "report_tally.hpp"

namespace tagop::cli {

enum class RowKind { function, module, process, address, line };

struct ReportFilters {
  std::vector<std::uint32_t> cpus;
  std::vector<std::uint32_t> pids;
  std::vector<std::string> comms;
  std::optional<Predicate> where;
};

struct Row {
  std::string name;    // what the report shows
  std::string module;  // full path, "" for processes
  std::uint64_t offset = 0;
  std::uint32_t pid = 0;
  bool has_offset = false;
};

class ReportBuilder final : public perf_data::RecordHandler {
 public:
  /// Without a capture (a file with no IBS events: cpu-clock, cycles ...)
  /// every sample is counted in its row, and nothing is decoded. IBS
  /// payloads are decoded and tallied by `threads` threads, this one among
  /// them (0: one per CPU).
  ReportBuilder(const perf_data::PerfDataReader& reader, const amd_ibs::IbsCapture* capture, RowKind by,
                ReportFilters filters, bool show_progress, std::size_t threads = 1);
  ~ReportBuilder() override;

  /// A sample the reader parsed: classified, filtered, given its row and
  /// queued; an IBS one teaches sample_in_place() its event's shape.
  void sample(const perf_data::SampleRecord& r) override;
  /// The common sample, taken before the reader parses it: one of an event
  /// whose shape (below) sample() learnt, whose row is a recent one, with
  /// room in the batch. Defined below, in sight of the reader's loop, which
  /// calls it directly (ReportBuilder is final); it calls nothing.
  bool sample_in_place(std::uint32_t event, const std::byte* record, std::uint16_t size);
  std::uint64_t sample_fields() const override;
  void comm(const perf_data::CommRecord& r) override { processes_.comm(r); }
  void mmap(const perf_data::MmapRecord& r) override;
  void task(const perf_data::TaskRecord& r) override;
  void progress(std::uint64_t done, std::uint64_t total) override;

  /// Waits for the tallying threads, hands their tallies to the engine and
  /// names the process rows (their names may come after their samples).
  /// The counts below are final after it.
  void finish();

  const Aggregator& aggregator() const { return aggregator_; }
  const std::vector<Row>& rows() const { return rows_; }
  std::uint64_t kept(amd_ibs::IbsUnit u) const { return counts_.kept[static_cast<int>(u)]; }
  std::uint64_t read(amd_ibs::IbsUnit u) const { return counts_.period[static_cast<int>(u)].samples; }
  const PeriodSeen& period(amd_ibs::IbsUnit u) const { return counts_.period[static_cast<int>(u)]; }
  std::uint64_t other_samples() const { return other_; }
  /// Without a capture: the samples kept in each row (by row index).
  const std::vector<std::uint64_t>& plain_counts() const { return plain_counts_; }
  std::uint64_t where_undecided() const { return counts_.where_undecided; }
  const perf_data::Skipped& damaged() const { return counts_.damaged; }
  const std::vector<std::string>& warnings() const { return symbols_.warnings(); }

 private:
  // The rows of recent (pid, ip) pairs, direct-mapped: most samples repeat
  // an address seen lately, and a hit skips the process table and the row
  // keys. An MMAP or FORK may change what an address is: it starts a new
  // generation, which empties the cache at once.
  struct RecentRow {
    std::uint64_t ip = 0;
    std::uint64_t who = 0;  // pid << 32 | generation; generation 0 is none
    std::uint32_t row = 0;
    bool holds(std::uint64_t ip_, std::uint64_t who_) const { return ((ip ^ ip_) | (who ^ who_)) == 0; }
  };
  // Once per sample: inline.
  std::uint64_t who(std::uint32_t pid) const { return std::uint64_t{pid} << 32 | generation_; }
  RecentRow& recent_row(std::uint64_t ip, std::uint64_t who) {
    return recent_rows_[((ip ^ who) * 0x9E3779B97F4A7C15ull) >> (64 - recent_row_bits)];
  }
  std::uint32_t row_of(std::uint32_t pid, std::uint64_t ip) {
    const std::uint64_t w = who(pid);
    RecentRow& recent = recent_row(ip, w);
    if (!recent.holds(ip, w)) recent = {ip, w, resolve_row(pid, ip)};
    return recent.row;
  }
  // Where an event's IBS samples keep what sample_in_place() reads, learnt
  // from one that sample() was given: a later sample of the event with the
  // same record size and payload size has the same layout, so the same
  // offsets, and is of the same unit.
  struct SampleShape {
    std::uint16_t size = 0;    // of the record; 0: none learnt (no record is that small)
    std::uint16_t pid_at = 0;  // TID's, from the record's start; 0: the event's samples have none at a fixed offset
    std::uint16_t raw_at = 0;  // the payload's, after its u32 size
    std::uint16_t ip_at = 0;   // the address ip_of() reads
    std::uint16_t invalid_at = 0;  // the word whose invalid_mask bits say it is not the address (IbsRipInvalid)
    std::uint64_t invalid_mask = 0;
    std::uint32_t raw_size = 0;
    amd_ibs::IbsUnit unit = amd_ibs::IbsUnit::op;
  };
  void learn_shape(const perf_data::SampleRecord& r, amd_ibs::IbsUnit unit);
  std::uint32_t resolve_row(std::uint32_t pid, std::uint64_t ip);
  template <typename MakeRow>
  std::uint32_t row_for(std::uint64_t key, MakeRow&& make);
  std::uint32_t row_named(Row row);
  bool passes(std::uint32_t pid, std::uint32_t cpu);

  const amd_ibs::IbsCapture* capture_;
  const std::byte* file_;  // as mapped: a record is at file_ + its offset
  std::vector<std::uint64_t> plain_counts_;
  RowKind by_;
  ReportFilters filters_;
  bool filtering_ = false;  // by --cpu, --pid or --comm
  bool fast_ = false;       // IBS, not filtering: sample() may take its fast path
  bool show_progress_;
  ProcessTable processes_;
  ModuleSymbolCache symbols_;
  Aggregator aggregator_;
  std::vector<Row> rows_;
  FlatIndex<std::uint64_t> row_by_key_;
  std::unordered_map<std::string, std::uint32_t> row_by_name_;
  static constexpr unsigned recent_row_bits = 12;
  std::vector<RecentRow> recent_rows_ = std::vector<RecentRow>(std::size_t{1} << recent_row_bits);
  std::uint32_t generation_ = 1;
  std::uint64_t other_ = 0;
  IbsCounts counts_;
  std::vector<SampleShape> shapes_;  // by event; learnt only without --cpu, --pid, --comm (sample_in_place() filters nothing)
  std::unique_ptr<BatchPool<IbsWork, IbsTally>> pool_;
  std::unordered_map<std::uint32_t, bool> comm_passes_;  // by pid
};

inline bool ReportBuilder::sample_in_place(std::uint32_t event, const std::byte* record, std::uint16_t size) {
  const SampleShape& shape = shapes_[event];
  // The size first: it keeps the reads below inside the record.
  if (size != shape.size || !pool_->has_room()) return false;
  std::uint32_t raw_size, pid;
  std::memcpy(&raw_size, record + shape.raw_at - 4, 4);
  if (raw_size != shape.raw_size) return false;
  std::memcpy(&pid, record + shape.pid_at, 4);
  std::uint64_t ip, invalid;
  std::memcpy(&ip, record + shape.ip_at, 8);
  std::memcpy(&invalid, record + shape.invalid_at, 8);
  if (invalid & shape.invalid_mask) return false;  // IbsRipInvalid: sample() takes the record's own ip
  const std::uint64_t w = who(pid);
  const RecentRow& recent = recent_row(ip, w);
  if (!recent.holds(ip, w)) return false;
  pool_->add(IbsWork(record, {record + shape.raw_at, raw_size}, recent.row, shape.unit));
  return true;
}

}  // namespace tagop::cli
