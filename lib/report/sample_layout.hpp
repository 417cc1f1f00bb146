#pragma once
// Where the report reads a sample's fields, per event, straight from the
// record: the fields of fixed size before the call chain at offsets
// computed once, then the call chain and the raw payload, whose sizes each
// sample gives. A sample of any other shape is parsed by the reader
// (perf_data::parse_sample) and handed over whole.

#include <linux/perf_event.h>  // perf_event_attr, PERF_SAMPLE_*

#include <cstddef>  // std::byte
#include <cstdint>  // std::uint16_t, std::uint64_t
#include <cstring>  // std::memcpy
#include <span>     // std::span

namespace tagop::report {

struct SampleLayout {
  // Offsets from the start of the record (its header included); 0: the
  // event's samples lack the field.
  std::uint16_t ip_at = 0, pid_at = 0, time_at = 0, cpu_at = 0, period_at = 0;
  /// Where the call chain (or, without one, the raw payload's u32 size) starts.
  std::uint16_t variable_at = 0;
  bool chain = false, raw = false;
  /// Every field is one of those above (or skipped by its fixed size), so
  /// that a sample is read in place.
  bool in_place = false;
  /// The period of a sample that carries none: attr.sample_period (the
  /// frequency, when the event samples by one, as perf takes it), or 1.
  std::uint64_t fixed_period = 1;

  static SampleLayout of(const perf_event_attr& attr);
};

/// A sample's variable parts, read in place: false when they run past the
/// record's `size` (the reader then parses it and says what is wrong).
struct SampleParts {
  const std::byte* chain = nullptr;  // chain_nr u64 addresses
  std::uint64_t chain_nr = 0;
  std::span<const std::byte> raw;  // after its u32 size

  bool read(const SampleLayout& l, const std::byte* record, std::uint16_t size) {
    std::size_t at = l.variable_at;
    if (l.chain) {
      if (std::size_t{size} < at + 8) return false;
      std::memcpy(&chain_nr, record + at, 8);
      if (chain_nr > (std::size_t{size} - at - 8) / 8) return false;
      chain = record + at + 8;
      at += 8 + chain_nr * 8;
    }
    if (l.raw) {
      if (std::size_t{size} < at + 4) return false;
      std::uint32_t n;
      std::memcpy(&n, record + at, 4);
      if (n > std::size_t{size} - at - 4) return false;
      raw = {record + at + 4, n};
    }
    return true;
  }
};

}  // namespace tagop::report
