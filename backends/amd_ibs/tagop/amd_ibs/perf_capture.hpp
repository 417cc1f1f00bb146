#pragma once
// IBS samples in perf.data: which events of a capture are ibs_fetch and
// ibs_op (HEADER_PMU_MAPPINGS), which processor recorded them
// (HEADER_CPUID), and each PERF_SAMPLE_RAW payload decoded to a model
// sample. And the other way: writing IBS captures that perf reads.
//
// Thread safety: an IbsCapture is not thread-safe for decode() (its FastIbsDecoder caches): one per
// thread; an IbsCaptureWriter is not thread-safe.

#include <atomic>    // std::atomic
#include <cstdint>   // std::uint32_t, std::uint64_t
#include <cstring>   // std::memcpy
#include <memory>    // std::unique_ptr
#include <mutex>     // std::mutex
#include <optional>  // std::optional
#include <span>      // std::span
#include <string>    // std::string
#include <string_view>  // std::string_view
#include <vector>    // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/amd_ibs/fast_decoder.hpp>  // FastIbsDecoder
#include <tagop/amd_ibs/registers.hpp>     // IbsUnit, IbsRegisters
#include <tagop/cpu.hpp>                   // CpuId
#include <tagop/perf_data_reader.hpp>      // FileInfo, SampleRecord
#include <tagop/perf_data_writer.hpp>      // PerfDataWriter
#include <tagop/predicate.hpp>             // Predicate
#include <tagop/sample.hpp>                // Sample

namespace tagop TAGOP_API {
namespace amd_ibs {

/// What one IBS sample of a capture gives besides the model sample.
struct IbsSampleInfo {
  IbsUnit unit = IbsUnit::op;
  /// Ops (or fetches, or cycles) between samples: MaxCnt * 16 from the
  /// sample's own control register.
  std::uint64_t period = 0;
  /// Op sampling counted dispatched ops (IbsOpCntCtl), not cycles.
  bool counts_ops = false;
};

/// A sample's instruction (or fetch) address, and whether it is the
/// sampled op's own.
struct SampleIp {
  std::uint64_t ip = 0;
  bool exact = false;
};

/// What a capture's IBS event asked to be sampled, where it was not every op
/// (or fetch): L3MissOnly (Zen 4 and later: perf's ibs_op/l3missonly=1/,
/// attr.config bit 16; ibs_fetch's bit 59), and the load-latency filter
/// (Zen 5: ibs_op/ldlat=N/, attr.config1 bits 11:0, for which Linux keeps a
/// sample only of a load that missed the DC with a DcMissLat above N, and
/// sets L3MissOnly on Zen 5, erratum #1606). Every sample then meets
/// `population`: a count times the period estimates the ops (or fetches) of
/// a predicate that implies it, and of nothing wider.
struct SamplingFilter {
  bool l3_miss_only = false;
  std::uint32_t load_latency = 0;  ///< cycles (ldlat); 0: none
  Predicate population{};          ///< of the unit's kind when filtered ("op & l3.miss"); every sample otherwise
  std::string text{};              ///< what it keeps, in words, with perf's spelling
  bool any() const { return l3_miss_only || load_latency != 0; }
};

/// Where a payload's caps word disagrees with the payload or the processor.
enum class CapsProblem : std::uint8_t {
  shorter,     ///< the caps announce optional registers the payload lacks
  longer,      ///< the payload holds more registers than the caps announce
  garbage,     ///< no IBSFFV, no sampling bit for the unit, or bits no processor has
  other_cpu,   ///< the layout bits differ from what the recorded processor reports
  changed,     ///< the caps differ from the capture's first sample's
};

class IbsCapture {
 public:
  /// `cpu` replaces the file's HEADER_CPUID when given. Throws tagop::Error
  /// when the file has no IBS event, was not recorded on an AMD (or Hygon)
  /// processor with an IBS layout (the message lists the families that have
  /// one), or says nothing of its processor and `cpu` is not given.
  explicit IbsCapture(const perf_data::FileInfo& info, std::optional<CpuId> cpu = std::nullopt);
  ~IbsCapture();

  const CpuId& cpu() const { return cpu_; }
  const IbsDecoder& decoder() const;
  /// A decoder of this capture's samples for a thread of its own: the
  /// layout and what the sampling filters say of every sample, as
  /// decoder()'s (a model newer than the table of generations reads as the
  /// nearest one it knows).
  FastIbsDecoder new_decoder() const;

  /// The unit of an event, nullopt for events that are not IBS.
  std::optional<IbsUnit> unit_of(const perf_data::EventAttr* attr) const;

  enum class Result { ok, not_ibs, damaged };
  /// Decodes one sample into `out`, which must be a default-constructed
  /// Sample: registers from its raw payload (sized by its own size field),
  /// the address as ip_of() gives it, pid/tid/cpu/time from the record. On
  /// `damaged`, `problem` says why. A payload whose caps word disagrees
  /// with it is decoded as check_payload() says, with a warning.
  Result decode(const perf_data::SampleRecord& record, Sample& out, IbsSampleInfo& info, std::string& problem) const;

  // decode() in parts, for callers that split the work across threads.

  /// The unit of a sample of event `event` (its FileInfo::attrs index)
  /// whose raw payload has `raw_size` bytes; nullopt when it is not IBS.
  std::optional<IbsUnit> unit_of(std::uint32_t event, std::size_t raw_size) const;
  /// Whether a sample is IBS, and of which unit (by record.event);
  /// `damaged` (with `problem`) when it is but has no raw payload. Its
  /// payload is checked by decoding.
  Result classify(const perf_data::SampleRecord& record, IbsUnit& unit, std::string_view& problem) const;
  /// The sample's address as Linux chooses it (perf_ibs_handle_irq):
  /// IbsOpRip (IbsFetchLinAd for a fetch) from the payload, exact; for an
  /// op whose IbsRipInvalid is set, the interrupted address that the
  /// record carries (PERF_SAMPLE_IP, written without
  /// PERF_RECORD_MISC_EXACT_IP), not exact, and 0 when the record has
  /// none. The payload's address is 0 when it is too short to hold it
  /// (decoding it reports the damage). What decode() puts in Sample::ip
  /// and Sample::ip_exact, and what a report must attribute the sample to.
  SampleIp ip_of(IbsUnit unit, const perf_data::SampleRecord& record) const;
  /// The same from a payload and the record's ip (nullopt when the record
  /// has none), for readers that take records apart themselves.
  SampleIp ip_of(IbsUnit unit, std::span<const std::byte> raw, std::optional<std::uint64_t> record_ip) const;
  /// Where ip_of() reads, for readers that take samples in place: the
  /// address's offset in a payload of `size` bytes, and the word and bits
  /// that say it is not valid (IbsOpData's IbsRipInvalid; a mask of 0 where
  /// the layout has none). When `invalid_mask` bits are set in the word at
  /// `invalid_at`, the address is the record's ip, not the payload's.
  /// nullopt when the payload is too short to hold them.
  struct IpPlace {
    std::size_t at = 0;
    std::size_t invalid_at = 0;
    std::uint64_t invalid_mask = 0;
  };
  std::optional<IpPlace> ip_offset(IbsUnit unit, std::size_t size) const {
    const IpPlace& p = ip_place_[static_cast<int>(unit)];
    return size >= ip_end_[static_cast<int>(unit)] ? std::optional<IpPlace>(p) : std::nullopt;
  }

  /// Checks a payload's caps word against its size, the recorded processor
  /// and the capture's first payload, and records a warning the first time
  /// each kind of disagreement is seen (with the record's file offset).
  /// Cheap when a payload is like the one before (inline: a few
  /// instructions a sample). decode() calls it; a reader that decodes
  /// payloads itself calls it too.
  void check_payload(IbsUnit unit, std::span<const std::byte> raw, std::uint64_t offset) const {
    std::uint32_t caps_word = 0;
    if (raw.size() >= 4) std::memcpy(&caps_word, raw.data(), 4);
    const std::uint64_t key = std::uint64_t{caps_word} << 32 | raw.size();
    if (checked_[static_cast<int>(unit)].load(std::memory_order_relaxed) != key) [[unlikely]]
      check_new_payload(unit, caps_word, key, raw.size(), offset);
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
  /// What the unit's event asked to be sampled (its attr.config and
  /// config1, as Linux reads them on this processor).
  const SamplingFilter& filter(IbsUnit unit) const { return filters_[static_cast<int>(unit)]; }

  /// Things the caller should tell the user (inferred units, payloads that
  /// disagree with their caps word, ...). Read it after the samples.
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
  unsigned layout_model_ = 0;  ///< cpu_.model, or the nearest one the table of generations knows
  std::unique_ptr<FastIbsDecoder> decoder_;
  // The period and selection fields, from the layout table.
  const FieldSpec* fetch_max_cnt_ = nullptr;
  const FieldSpec* op_max_cnt_ = nullptr;
  const FieldSpec* op_max_cnt_ext_ = nullptr;  ///< absent before Family 12h
  const FieldSpec* op_cnt_ctl_ = nullptr;
  std::uint64_t period_bits_[2] = {0, 0};  ///< by unit
  std::uint64_t requested_period_[2] = {0, 0};
  SamplingFilter filters_[2];
  // By unit: where ip_of() reads, and the payload size that holds it (the
  // end of the address and of the invalid bit's word); past any payload
  // when the layout has none.
  IpPlace ip_place_[2];
  std::size_t ip_end_[2] = {~std::size_t{0}, ~std::size_t{0}};
  // check_payload(): the last (caps, size) checked per unit, the first
  // caps seen, and which problems were reported.
  mutable std::atomic<std::uint64_t> checked_[2] = {~std::uint64_t{0}, ~std::uint64_t{0}};
  void check_new_payload(IbsUnit unit, std::uint32_t caps_word, std::uint64_t key, std::size_t size,
                         std::uint64_t offset) const;
  void read_filters(const perf_data::FileInfo& info);
  mutable std::mutex check_mutex_;
  mutable std::optional<std::uint32_t> first_caps_;
  mutable std::uint32_t reported_ = 0;  ///< bit per CapsProblem
  mutable std::vector<std::string> warnings_;
};

/// What is wrong with a payload of `unit` with this caps word and `size`
/// bytes (after its u32 size) on this processor: each disagreement, with a
/// sentence that says it. Empty when the caps and payload agree.
std::vector<std::pair<CapsProblem, std::string>> caps_problems(IbsUnit unit, std::uint32_t caps, std::size_t size,
                                                               unsigned family, unsigned model);

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

inline SampleIp IbsCapture::ip_of(IbsUnit unit, std::span<const std::byte> raw,
                                  std::optional<std::uint64_t> record_ip) const {
  const std::optional<IpPlace> place = ip_offset(unit, raw.size());
  if (!place) return {};
  std::uint64_t word = 0;
  if (place->invalid_mask) std::memcpy(&word, raw.data() + place->invalid_at, 8);
  if (word & place->invalid_mask) return {record_ip.value_or(0), false};
  SampleIp out{0, true};
  std::memcpy(&out.ip, raw.data() + place->at, 8);
  return out;
}

inline SampleIp IbsCapture::ip_of(IbsUnit unit, const perf_data::SampleRecord& r) const {
  return ip_of(unit, r.raw, (r.sample_type & PERF_SAMPLE_IP) ? std::optional<std::uint64_t>(r.ip) : std::nullopt);
}

inline IbsCapture::Period IbsCapture::period_of(IbsUnit unit, std::uint64_t control) const {
  if (unit == IbsUnit::fetch) return {fetch_max_cnt_->extract(control) << 4, false};
  std::uint64_t max = op_max_cnt_->extract(control);
  if (op_max_cnt_ext_) max |= op_max_cnt_ext_->extract(control) << 16;
  return {max << 4, op_cnt_ctl_->extract(control) != 0};
}

/// Writes IBS captures as `perf record -e ibs_fetch// -e ibs_op// --raw-samples`
/// would: two events (sample_type IDENTIFIER|IP|TID|TIME|CPU|PERIOD|RAW,
/// sample_id_all), HEADER_CPUID, HEADER_PMU_MAPPINGS, HEADER_EVENT_DESC,
/// and HEADER_PMU_CAPS with the PMUs' sysfs capabilities (Zen 4's
/// zen4_ibs_extensions, which perf needs to read DataSrcHi).
struct IbsCaptureOptions {
  unsigned family = 0x10, model = 4, stepping = 2;
  std::uint32_t fetch_type = 8, op_type = 9;  ///< the PMUs' sysfs type numbers
  std::uint64_t fetch_period = 0x10000, op_period = 0x10000;
  bool op_counts_dispatched = true;           ///< ibs_op/cnt_ctl=1/
  std::optional<std::uint32_t> capabilities{};  ///< the caps word; default from family and model
  /// The op event's sample_type, where it is not the fetch event's
  /// (perf record gives each event its own: -e ibs_op//... --call-graph,
  /// say). It must keep IDENTIFIER and RAW.
  std::optional<std::uint64_t> op_sample_type{};
  /// Sampling filters, as perf record -e 'ibs_op/l3missonly=1,ldlat=N/'
  /// writes them into the attrs; the samples' control registers get the
  /// bits Linux sets (L3MissOnly, LdLatThrsh, LdLatEn). The samples given
  /// are written as they are: a test gives those the filter keeps.
  bool op_l3_miss_only = false, fetch_l3_miss_only = false;
  std::uint32_t op_load_latency = 0;  ///< ldlat, 128-2048 cycles; 0: none
};

class IbsCaptureWriter {
 public:
  IbsCaptureWriter(const std::string& path, const IbsCaptureOptions& options);
  perf_data::PerfDataWriter& perf() { return writer_; }
  std::uint32_t capabilities() const { return caps_; }

  /// One sample: its registers (IbsFetchCtl/IbsOpCtl get the period and
  /// the valid bit filled in when their MaxCnt is 0), the ip from
  /// IbsFetchLinAd or IbsOpRip, marked exact; for an op whose IbsOpData
  /// has IbsRipInvalid set, `interrupted_ip` instead, not marked exact, as
  /// Linux writes it.
  void sample(const IbsRegisters& regs, std::uint32_t pid, std::uint32_t tid, std::uint32_t cpu, std::uint64_t time,
              std::uint64_t interrupted_ip = 0);
  /// The same, with a call chain (addresses and PERF_CONTEXT_* markers, as
  /// the kernel writes PERF_SAMPLE_CALLCHAIN), for an op event whose
  /// sample_type has it (IbsCaptureOptions::op_sample_type: perf record -e
  /// ibs_op// -g).
  void sample(const IbsRegisters& regs, std::uint32_t pid, std::uint32_t tid, std::uint32_t cpu, std::uint64_t time,
              std::uint64_t interrupted_ip, std::span<const std::uint64_t> callchain);
  void finish() { writer_.finish(); }

  static constexpr std::uint64_t fetch_id = 1, op_id = 2;

 private:
  IbsCaptureOptions options_;
  std::uint32_t caps_;
  perf_data::PerfDataWriter writer_;
  std::vector<std::byte> raw_;
};

}  // namespace amd_ibs
}  // namespace tagop
