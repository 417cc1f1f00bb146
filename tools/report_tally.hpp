#pragma once
// One thread's share of an IBS report. Each raw payload is reduced to its
// kind (FastIbsDecoder::kind_of: only a payload of a new kind is decoded in
// full), tallied by row and kind with the measures it reports, and checked
// against --where once per kind. The engine sees each (row, kind) once, at
// the end, with the count and measure totals of its samples.

#include <array>    // std::array
#include <cstddef>  // std::byte
#include <cstdint>  // std::uint32_t, std::uint64_t
#include <vector>   // std::vector

#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCapture
#include <tagop/engine.hpp>                // Aggregator, Tally
#include <tagop/perf_data_reader.hpp>      // Skipped
#include <tagop/predicate.hpp>             // Predicate

#include "flat_index.hpp"

namespace tagop::cli {

/// One IBS sample as the reading thread hands it on.
struct IbsWork {
  const std::byte* raw = nullptr;  // the PERF_SAMPLE_RAW payload, after its size
  std::uint32_t raw_size = 0;
  std::uint32_t row = 0;           // IbsTally::not_kept: filtered out by --cpu, --pid or --comm
  std::uint64_t offset = 0;        // of its record, for the damage report
  amd_ibs::IbsUnit unit = amd_ibs::IbsUnit::op;
};

/// The sampling period of one unit's samples, as read from them.
struct PeriodSeen {
  std::uint64_t samples = 0;
  std::uint64_t sum = 0, min = ~std::uint64_t{0}, max = 0;
  bool counts_ops = false;
  void add(const amd_ibs::IbsCapture::Period& p);
  void merge(const PeriodSeen& o);
  double mean() const { return samples ? static_cast<double>(sum) / static_cast<double>(samples) : 0; }
};

/// What a report tells besides the engine's results; by IbsUnit.
struct IbsCounts {
  std::array<std::uint64_t, 2> read{}, kept{};
  std::array<PeriodSeen, 2> period{};
  std::uint64_t where_undecided = 0;  // samples that did not observe what --where tests
  perf_data::Skipped damaged;
  void merge(const IbsCounts& o);
};

class IbsTally {
 public:
  static constexpr std::uint32_t not_kept = 0xFFFFFFFFu;

  /// `where` (may be null) must outlive the tally.
  IbsTally(const amd_ibs::IbsCapture& capture, const Predicate* where);

  void add(const IbsWork& w);
  /// Moves the tallies into `aggregator` and the counts into `counts`.
  void drain_into(Aggregator& aggregator, IbsCounts& counts);

 private:
  enum class Verdict : std::uint8_t { unknown, undecided, fails, passes };
  Verdict verdict(const ConditionSet& conditions, const ConditionSet& observed) const;
  Verdict kind_verdict(std::uint32_t kind);

  const amd_ibs::IbsCapture* capture_;
  const Predicate* where_;
  amd_ibs::FastIbsDecoder decoder_;  // its own: the kind cache is not shared
  std::vector<Verdict> verdicts_;    // by kind
  FlatIndex tally_by_key_;           // row << 32 | kind -> index
  struct Entry {
    std::uint32_t row, kind;
    Tally tally;
  };
  std::vector<Entry> entries_;
  Aggregator uncached_;  // samples of no kind (the kind cache was full)
  IbsCounts counts_;
};

}  // namespace tagop::cli
