#pragma once
// One thread's share of an IBS report. Each raw payload is reduced to its
// key (FastIbsDecoder::key_of: the bits that decide its conditions), and
// the row and key find the sample's tally with one lookup. Only a new
// (row, key) looks further: for the key's kind (a payload of a new kind is
// decoded in full) and the kind's verdict on --where. The engine sees each
// (row, kind) once, at the end, with the count and measure totals of its
// samples.

#include <array>    // std::array
#include <cstddef>  // std::byte
#include <cstdint>  // std::uint32_t, std::uint64_t
#include <span>     // std::span
#include <vector>   // std::vector

#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCapture
#include <tagop/engine.hpp>                // Aggregator, Tally
#include <tagop/perf_data_reader.hpp>      // Skipped
#include <tagop/predicate.hpp>             // Predicate

#include "flat_index.hpp"

namespace tagop::cli {

/// One IBS sample as the reading thread hands it on: 16 bytes, since the
/// batches cross from core to core (at 32, the report took 10% longer).
class IbsWork {
 public:
  static constexpr std::uint32_t not_kept = 0x7FFFFFFFu;  // a row: filtered out by --cpu, --pid or --comm

  IbsWork() = default;  // for a batch's slots, which are written before they are read
  /// `raw` is the payload of the record at `record`: both lie in one
  /// record, whose size is a u16.
  IbsWork(const std::byte* record, std::span<const std::byte> raw, std::uint32_t row, amd_ibs::IbsUnit unit)
      : raw_(raw.data()),
        row_unit_(row << 1 | static_cast<std::uint32_t>(unit)),
        raw_size_(static_cast<std::uint16_t>(raw.size())),
        raw_at_(static_cast<std::uint16_t>(raw.data() - record)) {}

  std::span<const std::byte> raw() const { return {raw_, raw_size_}; }
  std::uint32_t row() const { return row_unit_ >> 1; }
  amd_ibs::IbsUnit unit() const { return static_cast<amd_ibs::IbsUnit>(row_unit_ & 1); }
  const std::byte* record() const { return raw_ - raw_at_; }

 private:
  const std::byte* raw_;  // the PERF_SAMPLE_RAW payload, after its size
  std::uint32_t row_unit_;
  std::uint16_t raw_size_, raw_at_;
};

/// The sampling period of one unit's samples, as read from them.
struct PeriodSeen {
  std::uint64_t samples = 0;
  std::uint64_t sum = 0, min = ~std::uint64_t{0}, max = 0;
  bool counts_ops = false;
  /// `n` samples of period `p`.
  void add(const amd_ibs::IbsCapture::Period& p, std::uint64_t n = 1);
  void merge(const PeriodSeen& o);
  double mean() const { return samples ? static_cast<double>(sum) / static_cast<double>(samples) : 0; }
};

/// What a report tells besides the engine's results; by IbsUnit. Every
/// sample read has a period: period[u].samples counts the samples read.
struct IbsCounts {
  std::array<std::uint64_t, 2> kept{};
  std::array<PeriodSeen, 2> period{};
  std::uint64_t where_undecided = 0;  // samples that did not observe what --where tests
  perf_data::Skipped damaged;
  void merge(const IbsCounts& o);
};

class IbsTally {
 public:
  /// `where` (may be null) must outlive the tally; `file` is the capture
  /// as mapped (for the offsets of damaged records).
  IbsTally(const amd_ibs::IbsCapture& capture, const Predicate* where, const std::byte* file);

  void add(std::span<const IbsWork> batch);
  /// Moves the tallies into `aggregator` and the counts into `counts`.
  void drain_into(Aggregator& aggregator, IbsCounts& counts);

 private:
  enum class Verdict : std::uint8_t { unknown, undecided, fails, passes };
  Verdict verdict(const ConditionSet& conditions, const ConditionSet& observed) const;
  Verdict kind_verdict(std::uint32_t kind);
  void add(const IbsWork& w);
  std::uint32_t new_entry(const amd_ibs::FastIbsDecoder::Key& key, std::uint32_t row, std::span<const std::byte> raw);
  void add_uncached(amd_ibs::IbsUnit unit, std::span<const std::byte> raw, std::uint32_t row);

  struct RowKey {
    amd_ibs::FastIbsDecoder::Key key;
    std::uint32_t row = 0;
    bool operator==(const RowKey& o) const { return row == o.row && key.same(o.key); }
    friend std::uint64_t flat_hash(const RowKey& k) { return k.key.hash(k.row); }
  };

  const amd_ibs::IbsCapture* capture_;
  const Predicate* where_;
  const std::byte* file_;
  amd_ibs::FastIbsDecoder decoder_;  // its own: the kind cache is not shared
  std::vector<Verdict> verdicts_;    // by kind
  FlatIndex<RowKey> entry_by_key_;
  // A (row, kind) with the kind's verdict. Its samples are counted whatever
  // the verdict, and their measures added when it passes; the counts of
  // those that fail or are undecided go to the report's counts at the end.
  // The kind's measure fields are kept here, none unless it passes: one
  // load fewer between a sample's key and its measures.
  struct Entry {
    std::uint32_t row, kind;
    amd_ibs::IbsUnit unit;
    Verdict verdict;
    amd_ibs::FastIbsDecoder::MeasureFields measures;
    Tally tally;
  };
  std::vector<Entry> entries_;
  Aggregator uncached_;  // samples of no kind (the kind cache was full)
  // By unit: the period of the last control register and the samples
  // since that had it; added to the counts when it changes, which is rare.
  // Every sample read is in a run: the runs count the samples read.
  struct PeriodRun {
    std::uint64_t mask = 0;                  // IbsCapture::period_bits
    std::uint64_t bits = ~std::uint64_t{0};  // of the control: none yet
    amd_ibs::IbsCapture::Period period;
    std::uint64_t samples = 0;
  };
  std::array<PeriodRun, 2> period_runs_;
  void count_period(amd_ibs::IbsUnit unit, std::uint64_t control);
  void end_period_runs();
  IbsCounts counts_;
};

}  // namespace tagop::cli
