#pragma once
// Vendor-neutral request -> the Intel core PMU's MSR writes
// (IA32_PERFEVTSELx, IA32_PMCx, IA32_FIXED_CTR_CTRL, IA32_PEBS_ENABLE,
// MSR_OFFCORE_RSP_x, MSR_PEBS_LD_LAT_THRESHOLD, MSR_PEBS_FRONTEND,
// IA32_PERF_GLOBAL_CTRL) and the perf_event_attrs that do the same through
// perf_event_open (precise_ip; ldlat and frontend in config1, as perf's
// cpu PMU formats say: ldlat=config1:0-15, frontend=config1:0-23).
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

/// One event of a Request.
struct EventRequest {
  /// SDM name (any case) or code:umask, e.g. "BR_INST_RETIRED.JCC", "c4:7e".
  std::string event{};
  /// A precise sample through PEBS (needs a PEBS-capable event).
  bool pebs = false;
  /// MSR_OFFCORE_RSP_x: request and response selection, for OFFCORE_RESPONSE_0/1 only.
  std::optional<std::uint64_t> offcore_response{};
  /// MEM_TRANS_RETIRED.LOAD_LATENCY: the latency threshold in cycles
  /// (1-65535; perf's ldlat=N), instead of the one the row is named for.
  std::optional<std::uint32_t> ldlat{};
};

/// What to program: events on one microarchitecture's PMU.
struct Request {
  Microarchitecture uarch = Microarchitecture::silvermont;
  std::vector<EventRequest> events{};
  bool exclude_user = false;
  bool exclude_kernel = false;
  /// Events between samples; counting only when absent. PEBS without a
  /// period samples every `default_pebs_period`.
  std::optional<std::uint64_t> period{};
};

/// The period PEBS samples with when the request gives none.
inline constexpr std::uint64_t default_pebs_period = 100003;

/// Where one requested event runs.
struct CounterAssignment {
  const EventSpec* event = nullptr;
  bool fixed = false;    ///< a fixed counter (IA32_FIXED_CTRn) or a general one (IA32_PMCn)
  unsigned index = 0;
  bool pebs = false;
};

/// Each event's counter, in request order: PEBS events on the lowest free
/// counter that can do PEBS for them (IA32_PMC0 on Silvermont/Goldmont),
/// the rest on the lowest free general counter they may use, fixed-counter
/// events on their own. Throws tagop::Error with the reason when the events
/// do not fit.
std::vector<CounterAssignment> assign_counters(const Request& request);

/// Throws tagop::Error with the reason when the hardware cannot do it.
Programming program(const Request& request);

}  // namespace intel_core
}  // namespace tagop
