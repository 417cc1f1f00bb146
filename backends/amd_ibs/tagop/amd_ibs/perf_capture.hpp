#pragma once
// IBS samples in perf.data: which events of a capture are ibs_fetch and
// ibs_op (HEADER_PMU_MAPPINGS), which processor recorded them
// (HEADER_CPUID), and each PERF_SAMPLE_RAW payload decoded to a model
// sample. And the other way: writing IBS captures that perf reads.

#include <cstdint>   // std::uint32_t, std::uint64_t
#include <cstring>   // std::memcpy
#include <memory>    // std::unique_ptr
#include <optional>  // std::optional
#include <span>      // std::span
#include <string>    // std::string
#include <string_view>  // std::string_view
#include <vector>    // std::vector

#include <tagop/amd_ibs/fast_decoder.hpp>  // FastIbsDecoder
#include <tagop/amd_ibs/registers.hpp>     // IbsUnit, IbsRegisters
#include <tagop/cpu.hpp>                   // CpuId
#include <tagop/perf_data_reader.hpp>      // FileInfo, SampleRecord
#include <tagop/perf_data_writer.hpp>      // PerfDataWriter
#include <tagop/sample.hpp>                // Sample

namespace tagop::amd_ibs {

/// What one IBS sample of a capture gives besides the model sample.
struct IbsSampleInfo {
  IbsUnit unit = IbsUnit::op;
  /// Ops (or fetches, or cycles) between samples: MaxCnt * 16 from the
  /// sample's own control register.
  std::uint64_t period = 0;
  /// Op sampling counted dispatched ops (IbsOpCntCtl), not cycles.
  bool counts_ops = false;
};

class IbsCapture {
 public:
  /// `cpu` replaces the file's HEADER_CPUID when given. Throws tagop::Error
  /// when the file has no IBS event, was not recorded on an AMD processor
  /// with IBS, or says nothing of its processor and `cpu` is not given.
  explicit IbsCapture(const perf_data::FileInfo& info, std::optional<CpuId> cpu = std::nullopt);
  ~IbsCapture();

  const CpuId& cpu() const { return cpu_; }
  const IbsDecoder& decoder() const;

  /// The unit of an event, nullopt for events that are not IBS.
  std::optional<IbsUnit> unit_of(const perf_data::EventAttr* attr) const;

  enum class Result { ok, not_ibs, damaged };
  /// Decodes one sample into `out`, which must be a default-constructed
  /// Sample: registers from its raw payload (sized by its own size field),
  /// pid/tid/cpu/time from the record. On `damaged`, `problem` says why.
  Result decode(const perf_data::SampleRecord& record, Sample& out, IbsSampleInfo& info, std::string& problem) const;

  // decode() in parts, for callers that split the work across threads.

  /// The unit of a sample of event `event` (its FileInfo::attrs index)
  /// whose raw payload has `raw_size` bytes; nullopt when it is not IBS.
  std::optional<IbsUnit> unit_of(std::uint32_t event, std::size_t raw_size) const;
  /// Whether a sample is IBS, and of which unit (by record.event);
  /// `damaged` (with `problem`) when it is but has no raw payload. Its
  /// payload is checked by decoding.
  Result classify(const perf_data::SampleRecord& record, IbsUnit& unit, std::string_view& problem) const;
  /// The sample's instruction (or fetch) address, as decode() gives it in
  /// Sample::ip: from the payload's fixed registers; 0 when the payload is
  /// too short to hold them (decoding it reports the damage).
  std::uint64_t ip_of(IbsUnit unit, std::span<const std::byte> raw) const;
  /// Where ip_of() reads the address in a payload of `size` bytes; nullopt
  /// when it gives 0 there.
  std::optional<std::size_t> ip_offset(IbsUnit unit, std::size_t size) const {
    const std::size_t end = ip_end_[static_cast<int>(unit)];
    return size >= end ? std::optional<std::size_t>(end - 8) : std::nullopt;
  }
  struct Period {
    std::uint64_t period = 0;
    bool counts_ops = false;
  };
  /// The period and what it counts, from a sample's control register
  /// (FastIbsDecoder::decode_perf_raw or kind_of gives it).
  Period period_of(IbsUnit unit, std::uint64_t control) const;
  /// The bits of a control register that period_of() reads: controls equal
  /// in them have the same period.
  std::uint64_t period_bits(IbsUnit unit) const { return period_bits_[static_cast<int>(unit)]; }

  /// The sampling period the event asked for (attr.sample_period), or 0
  /// when it sampled by frequency or gave MaxCnt in attr.config.
  std::uint64_t requested_period(IbsUnit unit) const;

  /// Things the caller should tell the user (inferred units, ...).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  // The unit of a payload by its size, in a file whose PMU mappings were
  // lost.
  static std::optional<IbsUnit> unit_from_raw_size(std::size_t size) {
    // Raw payload sizes (after the u32 size) of each unit with and without
    // its optional registers: they never overlap.
    if (size == 28 || size == 36) return IbsUnit::fetch;
    if (size == 60 || size == 68 || size == 76) return IbsUnit::op;
    return std::nullopt;
  }

  const perf_data::EventAttr* first_attr_ = nullptr;
  // What each event's samples are, by attr index: fetch and op as IbsUnit
  // has them; by_size: infer the unit from the payload's size.
  enum class Route : std::uint8_t { fetch, op, by_size, not_ibs };
  static_assert(static_cast<int>(Route::fetch) == static_cast<int>(IbsUnit::fetch) &&
                static_cast<int>(Route::op) == static_cast<int>(IbsUnit::op));
  std::vector<Route> routes_;
  CpuId cpu_;
  std::unique_ptr<FastIbsDecoder> decoder_;
  // The period and selection fields, from the layout table.
  const FieldSpec* fetch_max_cnt_ = nullptr;
  const FieldSpec* op_max_cnt_ = nullptr;
  const FieldSpec* op_max_cnt_ext_ = nullptr;  // absent before Family 12h
  const FieldSpec* op_cnt_ctl_ = nullptr;
  std::uint64_t period_bits_[2] = {0, 0};  // by unit
  std::uint64_t requested_period_[2] = {0, 0};
  // By unit: where ip_of() reads, as the payload size that holds it (the
  // end of the address); past any payload when the layout has none.
  std::size_t ip_end_[2] = {~std::size_t{0}, ~std::size_t{0}};
  std::vector<std::string> warnings_;
};

// Once per sample: inline.

inline std::optional<IbsUnit> IbsCapture::unit_of(std::uint32_t event, std::size_t raw_size) const {
  const Route route = event < routes_.size() ? routes_[event] : Route::not_ibs;
  switch (route) {
    case Route::fetch:
    case Route::op: return static_cast<IbsUnit>(route);
    case Route::by_size: return unit_from_raw_size(raw_size);
    case Route::not_ibs: break;
  }
  return std::nullopt;
}

inline IbsCapture::Result IbsCapture::classify(const perf_data::SampleRecord& r, IbsUnit& unit,
                                               std::string_view& problem) const {
  const std::optional<IbsUnit> u = unit_of(r.event, r.raw.size());
  if (!u) return Result::not_ibs;
  unit = *u;
  if (!(r.sample_type & PERF_SAMPLE_RAW)) {
    problem = "IBS sample without its raw registers (record with --raw-samples)";
    return Result::damaged;
  }
  return Result::ok;
}

inline std::uint64_t IbsCapture::ip_of(IbsUnit unit, std::span<const std::byte> raw) const {
  std::uint64_t ip = 0;
  if (const std::optional<std::size_t> at = ip_offset(unit, raw.size())) std::memcpy(&ip, raw.data() + *at, 8);
  return ip;
}

inline IbsCapture::Period IbsCapture::period_of(IbsUnit unit, std::uint64_t control) const {
  if (unit == IbsUnit::fetch) return {fetch_max_cnt_->extract(control) << 4, false};
  std::uint64_t max = op_max_cnt_->extract(control);
  if (op_max_cnt_ext_) max |= op_max_cnt_ext_->extract(control) << 16;
  return {max << 4, op_cnt_ctl_->extract(control) != 0};
}

/// Writes IBS captures as `perf record -e ibs_fetch// -e ibs_op// --raw-samples`
/// would: two events (sample_type IDENTIFIER|IP|TID|TIME|CPU|PERIOD|RAW,
/// sample_id_all), HEADER_CPUID, HEADER_PMU_MAPPINGS, HEADER_EVENT_DESC.
struct IbsCaptureOptions {
  unsigned family = 0x10, model = 4, stepping = 2;
  std::uint32_t fetch_type = 8, op_type = 9;  // the PMUs' sysfs type numbers
  std::uint64_t fetch_period = 0x10000, op_period = 0x10000;
  bool op_counts_dispatched = true;           // ibs_op/cnt_ctl=1/
  std::optional<std::uint32_t> capabilities{};  // the caps word; default from family and model
};

class IbsCaptureWriter {
 public:
  IbsCaptureWriter(const std::string& path, const IbsCaptureOptions& options);
  perf_data::PerfDataWriter& perf() { return writer_; }
  std::uint32_t capabilities() const { return caps_; }

  /// One sample: its registers (IbsFetchCtl/IbsOpCtl get the period and
  /// the valid bit filled in when their MaxCnt is 0), the ip from
  /// IbsFetchLinAd or IbsOpRip.
  void sample(const IbsRegisters& regs, std::uint32_t pid, std::uint32_t tid, std::uint32_t cpu, std::uint64_t time);
  void finish() { writer_.finish(); }

  static constexpr std::uint64_t fetch_id = 1, op_id = 2;

 private:
  IbsCaptureOptions options_;
  std::uint32_t caps_;
  perf_data::PerfDataWriter writer_;
  std::vector<std::byte> raw_;
};

}  // namespace tagop::amd_ibs
