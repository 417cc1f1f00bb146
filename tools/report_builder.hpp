#pragma once
// Reads an IBS capture for `tagop report`: tracks processes, decodes IBS
// samples, filters them, gives each a row (function, module, process,
// address or source line) and tallies it in the engine.

#include <cstdint>        // std::uint32_t, std::uint64_t
#include <optional>       // std::optional
#include <string>         // std::string
#include <unordered_map>  // row keys
#include <vector>         // std::vector

#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCapture
#include <tagop/engine.hpp>                // Aggregator
#include <tagop/perf_data_reader.hpp>      // RecordHandler
#include <tagop/predicate.hpp>             // Predicate
#include <tagop/process_table.hpp>         // ProcessTable

#include "report_symbols.hpp"

namespace tagop::cli {

enum class RowKind { function, module, process, address, line };

struct ReportFilters {
  std::vector<std::uint32_t> cpus;
  std::vector<std::uint32_t> pids;
  std::vector<std::string> comms;
  std::optional<Predicate> where;
};

/// u64 -> u32 by open addressing: the per-sample row lookup.
class FlatIndex {
 public:
  FlatIndex() : keys_(1024), values_(1024, 0) {}
  /// The value of `key`, or nullptr.
  const std::uint32_t* find(std::uint64_t key) const;
  void insert(std::uint64_t key, std::uint32_t value);

 private:
  std::size_t slot(std::uint64_t key) const;
  std::vector<std::uint64_t> keys_;
  std::vector<std::uint32_t> values_;  // value + 1; 0 = empty
  std::size_t size_ = 0;
};

struct Row {
  std::string name;    // what the report shows
  std::string module;  // full path, "" for processes
  std::uint64_t offset = 0;
  std::uint32_t pid = 0;
  bool has_offset = false;
};

/// The sampling period of one unit's samples, as read from them.
struct PeriodSeen {
  std::uint64_t samples = 0;
  std::uint64_t sum = 0, min = ~std::uint64_t{0}, max = 0;
  bool counts_ops = false;
  double mean() const { return samples ? static_cast<double>(sum) / static_cast<double>(samples) : 0; }
};

class ReportBuilder : public perf_data::RecordHandler {
 public:
  /// Without a capture (a file with no IBS events: cpu-clock, cycles ...)
  /// every sample is counted in its row, and nothing is decoded.
  ReportBuilder(const perf_data::FileInfo& info, const amd_ibs::IbsCapture* capture, RowKind by,
                ReportFilters filters, bool show_progress);

  void sample(const perf_data::SampleRecord& r) override;
  void comm(const perf_data::CommRecord& r) override { processes_.comm(r); }
  void mmap(const perf_data::MmapRecord& r) override;
  void task(const perf_data::TaskRecord& r) override { processes_.task(r); }
  void progress(std::uint64_t done, std::uint64_t total) override;

  /// Hands the tallies to the engine and names the process rows (their
  /// names may come after their samples).
  void finish();

  const Aggregator& aggregator() const { return aggregator_; }
  const std::vector<Row>& rows() const { return rows_; }
  std::uint64_t kept(amd_ibs::IbsUnit u) const { return kept_[static_cast<int>(u)]; }
  std::uint64_t read(amd_ibs::IbsUnit u) const { return read_[static_cast<int>(u)]; }
  const PeriodSeen& period(amd_ibs::IbsUnit u) const { return period_[static_cast<int>(u)]; }
  std::uint64_t other_samples() const { return other_; }
  /// Without a capture: the samples kept in each row (by row index).
  const std::vector<std::uint64_t>& plain_counts() const { return plain_counts_; }
  std::uint64_t where_undecided() const { return where_undecided_; }
  const perf_data::Skipped& damaged() const { return damaged_; }
  const std::vector<std::string>& warnings() const { return symbols_.warnings(); }

 private:
  std::uint32_t row_of(const Sample& s);
  template <typename MakeRow>
  std::uint32_t row_for(std::uint64_t key, MakeRow&& make);
  std::uint32_t row_named(Row row);
  bool passes(const Sample& s);

  const amd_ibs::IbsCapture* capture_;
  std::vector<std::uint64_t> plain_counts_;
  RowKind by_;
  ReportFilters filters_;
  bool show_progress_;
  ProcessTable processes_;
  ModuleSymbolCache symbols_;
  Aggregator aggregator_;
  std::vector<Row> rows_;
  FlatIndex row_by_key_;
  std::unordered_map<std::string, std::uint32_t> row_by_name_;
  std::uint64_t last_key_ = ~std::uint64_t{0};
  std::uint32_t last_row_ = 0;
  std::uint64_t kept_[2] = {0, 0}, read_[2] = {0, 0};
  PeriodSeen period_[2];
  std::uint64_t other_ = 0, where_undecided_ = 0;
  // Samples tallied by (row, decoded kind) before the engine sees them:
  // one probe of a u64 key instead of hashing the whole signature.
  void tally(const Sample& s, std::uint32_t row, std::uint32_t kind);
  FlatIndex tally_by_key_;
  std::vector<std::pair<Signature, Tally>> tallies_;
  perf_data::Skipped damaged_;
  std::unordered_map<std::uint32_t, bool> comm_passes_;  // by pid
};

}  // namespace tagop::cli
