#pragma once
// Vendor-neutral request -> the Pentium 4 MSR writes (ESCRs, CCCRs,
// counters, IA32_PEBS_ENABLE, MSR_PEBS_MATRIX_VERT, MSR_TC_PRECISE_EVENT)
// and the Linux perf_event_attrs, with ESCRs and counters allocated so that
// every requested event fits, or the reason it cannot.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <cstdint>   // std::uint32_t, std::uint64_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <string_view>  // std::string_view
#include <vector>    // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/intel_p4/tables.hpp>  // MetricSpec, EventSpec
#include <tagop/programming.hpp>      // Programming

namespace tagop TAGOP_API {
namespace intel_p4 {

/// One thing to measure: a metric ("1stL_cache_load_miss_retired") or a raw
/// event with its mask bits ("replay_event:NBOGUS:BOGUS").
struct P4EventRequest {
  std::string name;
  /// Precise samples through PEBS (metrics only; one at a time).
  bool pebs = false;
};

struct P4Request {
  std::vector<P4EventRequest> events;
  bool exclude_user = false;
  bool exclude_kernel = false;
  /// The logical processor to count on: 0, or 1 with Hyper-Threading.
  unsigned thread = 0;
  /// Sample every `period` events; count when empty.
  std::optional<std::uint64_t> period;
};

/// A request's name resolved against the tables.
struct ResolvedName {
  const MetricSpec* metric = nullptr;  ///< set for a metric
  const EventSpec* event = nullptr;    ///< set for a raw event
  std::uint32_t mask = 0;              ///< the raw event's mask bits (bit k = ESCR bit 9+k)
};

/// Throws tagop::Error naming the closest metrics and events, or the
/// event's mask bits, when `name` is not one of them.
ResolvedName resolve(std::string_view name);

/// Throws tagop::Error with the reason when the hardware cannot do it.
Programming program(const P4Request& request);

}  // namespace intel_p4
}  // namespace tagop
