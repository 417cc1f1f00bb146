#pragma once
// Vendor-neutral request -> the Zen core counter MSR writes (PERF_CTLn,
// PERF_CTRn, and on Zen 4 PerfCntrGlobalCtl) and the perf_event_attrs that
// do the same through perf_event_open.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include <tagop/api.hpp>                // TAGOP_API
#include <tagop/amd_core/events.hpp>    // Generation, ZenEventSpec
#include <tagop/programming.hpp>        // Programming

namespace tagop TAGOP_API {
namespace amd_core {

/// One event of a request, and how to count it.
struct ZenEventRequest {
  /// perf name or code: "ex_ret_brn_misp", "0x0C3", "0x18E:0x18", "r5300c3".
  std::string event{};
  CounterModifiers modifiers{};  ///< Edge, Inv, CntMask; none by default
};

/// What to count or sample on one Zen core.
struct ZenRequest {
  Generation generation = Generation::zen3;  ///< which table and PMU
  std::vector<ZenEventRequest> events{};     ///< one core counter each
  bool exclude_user = false;    ///< count only kernel code
  bool exclude_kernel = false;  ///< count only user code
  /// Events (or, with a CntMask, cycles) between samples; counting only when absent.
  std::optional<std::uint64_t> period{};
  /// Asks for a precise sample: refused (Zen's core counters have none; IBS is the precise mechanism).
  bool precise = false;
};

/// The largest period: Linux's AMD max_period, 2^47 - 1 (the 48-bit
/// counter's overflow is its top bit).
inline constexpr std::uint64_t max_period = (std::uint64_t{1} << 47) - 1;

/// Throws tagop::Error with the reason when the hardware cannot do it: a
/// precise sample (not_supported), more events than counters, a period out
/// of range, Inv without a CntMask (bad_input), an event the generation
/// does not have (not_found).
Programming program(const ZenRequest& request);

}  // namespace amd_core
}  // namespace tagop
