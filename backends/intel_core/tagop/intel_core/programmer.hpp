#pragma once
// Vendor-neutral request -> the Silvermont/Goldmont MSR writes
// (IA32_PERFEVTSELx, IA32_PMCx, IA32_FIXED_CTR_CTRL, IA32_PEBS_ENABLE,
// MSR_OFFCORE_RSP_x, IA32_PERF_GLOBAL_CTRL) and the perf_event_attrs that
// do the same through perf_event_open.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/intel_core/events.hpp>  // Microarchitecture, EventSpec
#include <tagop/programming.hpp>        // Programming

namespace tagop TAGOP_API {
namespace intel_core {

struct EventRequest {
  /// SDM name (any case) or code:umask, e.g. "BR_INST_RETIRED.JCC", "c4:7e".
  std::string event{};
  /// A precise sample through PEBS (needs a PEBS-capable event).
  bool pebs = false;
  /// MSR_OFFCORE_RSP_x: request and response selection, for OFFCORE_RESPONSE_0/1 only.
  std::optional<std::uint64_t> offcore_response{};
};

struct Request {
  Microarchitecture uarch = Microarchitecture::silvermont;
  std::vector<EventRequest> events{};
  bool exclude_user = false;
  bool exclude_kernel = false;
  /// Events between samples; counting only when absent. PEBS without a
  /// period samples every `default_pebs_period`.
  std::optional<std::uint64_t> period{};
};

inline constexpr std::uint64_t default_pebs_period = 100003;

/// Where one requested event runs.
struct CounterAssignment {
  const EventSpec* event = nullptr;
  bool fixed = false;    ///< a fixed counter (IA32_FIXED_CTRn) or a general one (IA32_PMCn)
  unsigned index = 0;
  bool pebs = false;
};

/// Each event's counter, in request order: PEBS events on IA32_PMC0, the
/// rest on the lowest free general counter they may use, fixed-counter
/// events on their own. Throws tagop::Error with the reason when the events
/// do not fit.
std::vector<CounterAssignment> assign_counters(const Request& request);

/// Throws tagop::Error with the reason when the hardware cannot do it.
Programming program(const Request& request);

}  // namespace intel_core
}  // namespace tagop
