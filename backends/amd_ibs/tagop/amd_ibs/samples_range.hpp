#pragma once
// An IBS capture's model samples as a range (see tagop/samples_range.hpp):
// `samples(reader, capture)` finds this overload by argument-dependent
// lookup.
//
// Thread safety: as SampleRange: one thread iterates; `capture` decodes on
// the range's reading thread only, so it must not decode elsewhere meanwhile.

#include <string>  // std::string

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCapture
#include <tagop/samples_range.hpp>         // SampleRange

namespace tagop TAGOP_API {
namespace amd_ibs {

/// The fetch and op samples of `reader`'s capture, decoded by `capture`
/// (made from the same reader's info()); samples of other events and
/// damaged ones are left out (SampleRange::undecoded() counts them). Both
/// must outlive the range.
inline SampleRange samples(perf_data::PerfDataReader& reader, const IbsCapture& capture) {
  return SampleRange(reader, [&capture](const perf_data::SampleRecord& record, Sample& out) {
    IbsSampleInfo info;
    std::string problem;
    return capture.decode(record, out, info, problem) == IbsCapture::Result::ok;
  });
}

}  // namespace amd_ibs
}  // namespace tagop
