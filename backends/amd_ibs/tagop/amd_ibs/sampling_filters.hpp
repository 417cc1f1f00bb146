#pragma once
// The ways to program IBS so that it samples only some ops or fetches, and
// the population every sample then belongs to: what a capture made with
// one can say (IbsCapture::filter), and what `tagop compare` offers for a
// question no unfiltered IBS sample answers (did the load miss the L3?).
//
// Thread safety: the table is constant: safe to share.

#include <span>         // std::span
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/amd_ibs/registers.hpp>  // IbsUnit

namespace tagop TAGOP_API {
namespace amd_ibs {

enum class SamplingFilterKind : std::uint8_t { l3_miss_only, load_latency };

struct SamplingFilterSpec {
  IbsUnit unit;
  SamplingFilterKind kind;
  std::string_view name;        ///< "L3MissOnly", as the PPR names the bit
  std::string_view perf_event;  ///< how perf record asks for it: "ibs_op/l3missonly=1/"
  std::string_view population;  ///< a predicate every sample meets: "op & l3.miss"
  std::string_view keeps;       ///< the samples kept, in words
  std::string_view processors;  ///< where Linux offers it
};

std::span<const SamplingFilterSpec> sampling_filter_table();

}  // namespace amd_ibs
}  // namespace tagop
