#pragma once
// A profile as the exporters see it: sample types, samples (values, a stack
// of locations, labels), locations, mappings, the sampling period and a few
// notes. It is neutral on purpose: a report row's totals and a single
// decoded sample both fit, and pprof, folded stacks and the HTML page are
// all written from it.
//
// Storage is flat (one array of values, one of stack entries, one of
// sample records), so a profile of millions of samples costs a few tens of
// bytes each, and locations and mappings are interned: adding the same one
// twice returns the same id, which is the de-duplication pprof expects.
//
//   Profile p({{"samples", "count"}, {"ibs_dc_miss", "count", 65536}});
//   MappingId exe = p.add_mapping({0x400000, 0x500000, 0, "/usr/bin/prog", "ab12..."});
//   LocationId leaf = p.add_location({0x401234, exe, {{"work", "_Z4workv", "prog.cpp", 42}}});
//   LocationId root = p.add_location({0x401010, exe, {{"main", "", "prog.cpp", 7}}});
//   p.add_sample({{10, 3}}, {{leaf, root}}, {.pid = 4242, .tid = 4242, .cpu = 1, .comm = "prog"});

#include <cmath>          // std::llround
#include <cstdint>        // std::int64_t, std::uint32_t, std::uint64_t
#include <initializer_list>  // Profile({...})
#include <limits>         // std::numeric_limits
#include <optional>       // std::optional
#include <span>           // std::span
#include <string>         // std::string
#include <string_view>    // std::string_view
#include <unordered_map>  // interning
#include <vector>         // std::vector

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {
namespace profiles {

/// What one value of every sample counts. `period` is how many events one
/// unit of the value stands for (the sampling period); exporters write
/// value x period, so a profile keeps sampled counts and sums while pprof
/// and the flame graphs show tagop's estimates (samples x period). Use 1
/// for values already in their own units (the sample count itself).
struct SampleType {
  std::string name;  ///< "ibs_dc_miss", "dc_miss_latency", "samples"
  std::string unit;  ///< "count", "cycles", "nanoseconds"
  double period = 1;
};

/// pprof's ValueType: the profile's period_type.
struct ValueType {
  std::string type;  ///< "ops", "cpu"
  std::string unit;  ///< "count", "nanoseconds"
};

/// An executable or library mapped into a process.
struct Mapping {
  std::uint64_t start = 0;  ///< first address
  std::uint64_t limit = 0;  ///< one past the last
  std::uint64_t file_offset = 0;
  std::string path;      ///< "/usr/lib/x86_64-linux-gnu/libc.so.6", "[kernel.kallsyms]"
  std::string build_id;  ///< lower-case hex, "" when not known
  friend bool operator==(const Mapping&, const Mapping&) = default;
};

/// One function at a location. A location whose code was inlined has one
/// frame per inlined call, innermost first; the last is the function that
/// holds the address (pprof's Location.line order).
struct Frame {
  std::string function;     ///< as people read it (demangled); "" when not known
  std::string system_name;  ///< as the linker knows it (mangled); "" when the same
  std::string file;         ///< source file, "" when not known
  std::int64_t line = 0;    ///< source line, 0 when not known
  friend bool operator==(const Frame&, const Frame&) = default;
};

using MappingId = std::uint32_t;
using LocationId = std::uint32_t;

struct Location {
  std::uint64_t address = 0;          ///< 0 for a location that is a whole function or row
  std::optional<MappingId> mapping;  ///< from add_mapping
  std::vector<Frame> frames;
  friend bool operator==(const Location&, const Location&) = default;
};

/// Where a sample was taken. A row's totals over many threads leave out
/// what its samples do not share.
struct Labels {
  std::optional<std::uint32_t> pid{}, tid{}, cpu{};
  std::string_view comm{};  ///< "" when not known
};

/// The time the samples span, in nanoseconds since the Unix epoch (pprof's
/// time_nanos and duration_nanos); 0 where not known.
struct TimeRange {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
};

/// One sample as stored: spans into the profile, valid until the next add.
struct SampleView {
  std::span<const std::int64_t> values;  ///< one per sample type
  std::span<const LocationId> stack;     ///< leaf first
  Labels labels;
};

/// a + b, or INT64_MAX (INT64_MIN) where the sum would not fit: sums of
/// periods from a capture, whose 64-bit fields may hold anything, must not
/// overflow (undefined behaviour).
inline std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
}

class Profile {
 public:
  /// Throws tagop::Error when there are no sample types, or a period is not
  /// positive.
  explicit Profile(std::vector<SampleType> sample_types);
  /// Profile p({{"samples", "count"}, {"ibs_dc_miss", "count", 65536}});
  Profile(std::initializer_list<SampleType> sample_types) : Profile(std::vector<SampleType>(sample_types)) {}

  // What pprof calls the profile's header: informational, but it travels
  // with the profile and pprof shows it.
  ValueType period_type;              ///< e.g. {"ops", "count"}
  std::int64_t period = 0;            ///< e.g. 65536
  std::vector<std::string> comments;  ///< e.g. "emulated (model: zen3)"
  TimeRange time;
  std::optional<std::size_t> default_sample_type;  ///< index; pprof shows the last one otherwise

  const std::vector<SampleType>& sample_types() const { return sample_types_; }

  /// The id of this mapping, added if new.
  MappingId add_mapping(const Mapping& mapping);
  /// The id of this location, added if new. Throws tagop::Error when its
  /// mapping id is not one of this profile's.
  LocationId add_location(const Location& location);
  /// Adds a sample. `values` has one value per sample type; `stack` holds
  /// ids from add_location, leaf first (empty: no location). Throws
  /// tagop::Error, naming what is wrong, otherwise.
  void add_sample(std::span<const std::int64_t> values, std::span<const LocationId> stack, const Labels& labels = {});

  const std::vector<Mapping>& mappings() const { return mappings_; }
  const std::vector<Location>& locations() const { return locations_; }
  std::size_t sample_count() const { return samples_.size(); }
  SampleView sample(std::size_t index) const;

  /// A sample's value as exported: value x its type's period, rounded,
  /// and at most INT64_MAX (pprof's values are int64).
  std::int64_t exported_value(std::size_t sample, std::size_t type) const {
    const std::int64_t value = values_[sample * sample_types_.size() + type];
    const double scale = sample_types_[type].period;
    if (scale == 1) return value;
    const double product = static_cast<double>(value) * scale;
    // 2^63 as a double: a product from there up does not fit.
    if (product >= 9223372036854775808.0) return std::numeric_limits<std::int64_t>::max();
    return static_cast<std::int64_t>(std::llround(product));
  }
  /// The sum of exported values of one sample type over all samples
  /// (saturating_add: at most INT64_MAX).
  std::int64_t exported_total(std::size_t type) const;

 private:
  struct StoredSample {
    std::uint32_t first_frame = 0, frame_count = 0;
    std::uint32_t pid = 0, tid = 0, cpu = 0;
    std::uint32_t comm = 0;   ///< index into comms_; 0 is ""
    std::uint8_t present = 0;  ///< bits: pid, tid, cpu
  };

  std::vector<SampleType> sample_types_;
  std::vector<Mapping> mappings_;
  std::vector<Location> locations_;
  std::unordered_multimap<std::size_t, LocationId> location_by_hash_;
  std::vector<std::int64_t> values_;  ///< sample_count x sample type count
  std::vector<LocationId> frames_;
  std::vector<StoredSample> samples_;
  std::vector<std::string> comms_{""};
  std::unordered_map<std::string, std::uint32_t> comm_ids_{{"", 0}};
};

}  // namespace profiles
}  // namespace tagop
