#pragma once
// A capture's model samples as a range-v3 input range: decoded lazily, a
// batch at a time, while the reader walks the file on a thread of the
// range's own (so memory stays bounded however long the capture), and
// pipelined through range-v3's views:
//
//   perf_data::PerfDataReader reader("perf.data");
//   amd_ibs::IbsCapture capture(reader.info());
//   auto misses = samples(reader, capture)   // amd_ibs/samples_range.hpp
//               | ranges::views::filter(where("load & dc.miss"))
//               | ranges::views::transform(&Sample::ip)
//               | ranges::to<std::vector>;   // then sort and chunk_by ...
//
// The range is single-pass (an input range, like istream_view): begin()
// starts the read, once. Errors of the read (tagop::Error) are thrown from
// begin() or ++it, on the thread that iterates.
//
// Thread safety: not thread-safe: one thread iterates a SampleRange, and
// nothing else uses its reader until the range is destroyed or at its end.

#include <cstddef>      // std::size_t
#include <functional>   // std::function
#include <memory>       // std::shared_ptr
#include <string_view>  // std::string_view
#include <type_traits>  // std::true_type

#include <range/v3/view/facade.hpp>  // ranges::view_facade

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/engine.hpp>            // decide, Decision
#include <tagop/perf_data_reader.hpp>  // PerfDataReader, SampleRecord, ReadSummary
#include <tagop/predicate.hpp>         // Predicate
#include <tagop/sample.hpp>            // Sample

namespace tagop TAGOP_API {

/// Turns one sample record into a model sample (given default-constructed);
/// false for a record it does not decode (not of its events, damaged).
using RecordDecoder = std::function<bool(const perf_data::SampleRecord&, Sample&)>;

namespace detail {
class SampleSource;
}

class SampleRange : public ranges::view_facade<SampleRange, ranges::unknown> {
 public:
  SampleRange() = default;
  /// The samples of `reader`'s capture that `decode` decodes, in file
  /// order. `reader` must outlive the range.
  SampleRange(perf_data::PerfDataReader& reader, RecordDecoder decode);

  /// Once the end was reached: what the reader met (records, damage ...).
  const perf_data::ReadSummary& summary() const;
  /// Once the end was reached: sample records `decode` refused.
  std::size_t undecoded() const;

 private:
  friend ranges::range_access;
  struct cursor {
    using single_pass = std::true_type;
    detail::SampleSource* source = nullptr;
    const Sample& read() const;
    void next();
    bool equal(ranges::default_sentinel_t) const;
  };
  cursor begin_cursor() const;

  std::shared_ptr<detail::SampleSource> source_;
};

/// The samples `decode` makes of `reader`'s capture.
SampleRange samples(perf_data::PerfDataReader& reader, RecordDecoder decode);

/// A filter for ranges::views::filter: the samples that decide `predicate`
/// yes (a sample that did not observe what it asks is left out, as the
/// report's --where leaves it out).
inline auto where(Predicate predicate) {
  return [p = std::move(predicate)](const Sample& s) { return decide(p, s.conditions, s.observed) == Decision::yes; };
}
/// where(Predicate::parse(text)); throws tagop::Error(bad_input) for a malformed one.
inline auto where(std::string_view text) { return where(Predicate::parse(text)); }

}  // namespace tagop
