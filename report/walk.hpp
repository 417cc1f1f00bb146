#pragma once
// The report's one pass over a capture: each sample is reduced to its
// space (process and mappings), address, kind and call chain, and counted
// in one entry of the tally table, with its measures or period summed
// beside it. Nothing here knows rows, names or symbols: those come after
// the walk, once per distinct address (rows.hpp).

#include <algorithm>    // std::find
#include <array>        // std::array
#include <cstddef>      // std::byte
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <cstring>      // std::memcpy
#include <functional>   // std::function
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCapture
#include <tagop/error.hpp>                 // Error
#include <tagop/perf_data_reader.hpp>      // RecordHandler
#include <tagop/report/report.hpp>         // Filters, PeriodSeen

#include "chain_table.hpp"
#include "entry_table.hpp"
#include "kinds.hpp"
#include "sample_layout.hpp"
#include "space_log.hpp"

namespace tagop::report {

class Walk final : public perf_data::RecordHandler {
 public:
  /// `capture`: the IBS events (null for a capture without them, whose
  /// events are counted by period). `needed_measures`: a bit per measure
  /// that the queries sum.
  Walk(const perf_data::PerfDataReader& reader, const amd_ibs::IbsCapture* capture, const Filters& filters,
       std::uint32_t needed_measures, std::function<void(std::uint64_t, std::uint64_t)> progress);

  void sample(const perf_data::SampleRecord& r) override;
  /// The common sample, read in place (sample_layout.hpp); defined below,
  /// in sight of the reader's loop, which calls it directly.
  bool sample_in_place(std::uint32_t event, const std::byte* record, std::uint16_t size);
  std::uint64_t sample_fields() const override;
  void mmap(const perf_data::MmapRecord& r) override { spaces_.mmap(r); }
  void comm(const perf_data::CommRecord& r) override { spaces_.comm(r); }
  void task(const perf_data::TaskRecord& r) override { spaces_.task(r); }
  void progress(std::uint64_t done, std::uint64_t total) override {
    if (progress_) progress_(done, total);
  }
  /// Ends the period runs: the counts are final.
  void finish();

  EntryTable& entries() { return entries_; }
  ChainTable& chains() { return chains_; }
  const KindTable& kinds() const { return kinds_; }
  const SpaceLog& spaces() const { return spaces_; }
  std::uint64_t other_samples() const { return other_; }
  const perf_data::Skipped& damaged() const { return damaged_; }
  const std::array<PeriodSeen, 2>& periods() const { return periods_; }

 private:
  // How one event's samples are read.
  struct EventPlan {
    SampleLayout layout;
    bool ibs = false;            // IBS (its unit by the capture), else a counted event
    std::uint32_t kind = 0;      // of a counted event
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
  bool passes(const Fields& f) const;
  void ibs_sample(std::uint32_t event, const Fields& f, bool kept, const std::byte* record);
  void ibs_decoded(amd_ibs::IbsUnit unit, const Fields& f, std::uint32_t space);
  void count_period(amd_ibs::IbsUnit unit, std::uint64_t control);
  void end_period_runs();
  void tally(std::uint64_t ip, std::uint32_t space, std::uint32_t kind, const Fields& f, const KeyKind* key_kind,
             const std::uint64_t* values);

  const amd_ibs::IbsCapture* capture_;
  const std::byte* file_;
  Filters filters_;
  bool filtering_ = false;  // by --cpu, --tid or --time (per sample)
  std::vector<EventPlan> plans_;
  SpaceLog spaces_;
  KindTable kinds_;
  EntryTable entries_;
  ChainTable chains_;
  std::uint64_t other_ = 0;
  perf_data::Skipped damaged_;
  std::function<void(std::uint64_t, std::uint64_t)> progress_;
  // By unit: the period of the last control register and the samples
  // since that had it; added to the counts when it changes, which is rare.
  struct PeriodRun {
    std::uint64_t mask = 0;                  // IbsCapture::period_bits
    std::uint64_t bits = ~std::uint64_t{0};  // of the control: none yet
    amd_ibs::IbsCapture::Period period;
    std::uint64_t samples = 0;
  };
  std::array<PeriodRun, 2> period_runs_{};
  std::array<PeriodSeen, 2> periods_{};
};

// Once per sample: inline, in sight of the reader's loop.

inline bool Walk::passes(const Fields& f) const {
  const Filters& x = filters_;
  if (!x.cpus.empty() && std::find(x.cpus.begin(), x.cpus.end(), f.cpu) == x.cpus.end()) return false;
  if (!x.tids.empty() && std::find(x.tids.begin(), x.tids.end(), f.tid) == x.tids.end()) return false;
  if (x.time && (f.time < x.time->start || f.time > x.time->stop)) return false;
  return true;
}

inline void Walk::count_period(amd_ibs::IbsUnit unit, std::uint64_t control) {
  PeriodRun& run = period_runs_[static_cast<std::size_t>(unit)];
  const std::uint64_t bits = control & run.mask;
  if (bits != run.bits) {
    periods_[static_cast<std::size_t>(unit)].add(run.period, run.samples);
    run = {run.mask, bits, capture_->period_of(unit, control), 0};
  }
  ++run.samples;
}

inline void Walk::tally(std::uint64_t ip, std::uint32_t space, std::uint32_t kind_id, const Fields& f,
                        const KeyKind* key_kind, const std::uint64_t* values) {
  const Kind& kind = kinds_.kinds()[kind_id];
  const std::uint32_t chain = f.chain_nr ? chains_.intern(f.chain, f.chain_nr) : 0;
  Entry& e = entries_.find(ip, space, kind_id, chain, EntryTable::hash(ip, space, kind_id, chain), kind.sum_count);
  ++e.count;
  std::uint64_t* sums = entries_.sums(e);
  if (key_kind) {
    key_kind->add_measures(f.raw.data(), sums);
  } else if (values) {
    for (std::size_t i = 0; i < kind.sum_count; ++i) sums[i] += values[i];
  } else {
    sums[0] += f.period;
  }
}

inline void Walk::ibs_sample(std::uint32_t event, const Fields& f, bool kept, const std::byte* record) {
  const std::optional<amd_ibs::IbsUnit> unit = capture_->unit_of(event, f.raw.size());
  if (!unit) {
    ++other_;
    return;
  }
  amd_ibs::FastIbsDecoder::Key key;
  std::uint64_t control = 0;
  const KeyKind* key_kind = nullptr;
  std::uint32_t space = 0;
  try {
    if (f.raw.empty()) throw Error("IBS sample without its raw registers (record with --raw-samples)");
    const bool keyed = kinds_.decoder().key_of(*unit, f.raw, key, control);
    // Filtered-out samples are read all the same: their period counts.
    count_period(*unit, control);
    if (!kept) return;
    space = spaces_.space_of(f.pid);
    if (!spaces_.space(space).passes) return;
    if (keyed) key_kind = kinds_.find(key, f.raw);
    if (!key_kind) return ibs_decoded(*unit, f, space);
  } catch (const Error& e) {
    damaged_.add(static_cast<std::uint64_t>(record - file_), e.what());
    return;
  }
  Kind& kind = kinds_.kinds()[key_kind->kind];
  ++kind.samples;
  if (kind.verdict != Verdict::passes) return;
  std::uint64_t ip = f.ip;  // IbsRipInvalid: the interrupted ip, as perf recorded it
  if (!key_kind->rip_invalid) std::memcpy(&ip, f.raw.data() + key_kind->ip_at, 8);
  tally(ip, space, key_kind->kind, f, key_kind, nullptr);
}

inline void Walk::take(std::uint32_t event, const EventPlan& plan, const Fields& f, const std::byte* record) {
  const bool kept = !filtering_ || passes(f);
  if (plan.ibs) return ibs_sample(event, f, kept, record);
  if (!kept) return;
  const std::uint32_t space = spaces_.space_of(f.pid);
  if (!spaces_.space(space).passes) return;
  ++kinds_.kinds()[plan.kind].samples;
  tally(f.ip, space, plan.kind, f, nullptr, nullptr);
}

inline bool Walk::sample_in_place(std::uint32_t event, const std::byte* record, std::uint16_t size) {
  const EventPlan& plan = plans_[event];
  const SampleLayout& l = plan.layout;
  if (!l.in_place || size < l.variable_at) return false;
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
  if (filtering_) {
    f.time = u64_at(l.time_at, 0);
    f.cpu = static_cast<std::uint32_t>(u64_at(l.cpu_at, 0));
  }
  f.chain = parts.chain;
  f.chain_nr = parts.chain_nr;
  f.raw = parts.raw;
  take(event, plan, f, record);
  return true;
}

}  // namespace tagop::report
