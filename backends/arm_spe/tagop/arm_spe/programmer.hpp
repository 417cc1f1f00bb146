#pragma once
// Vendor-neutral request -> the arm_spe PMU's perf_event_attr. The PMU's
// format (drivers/perf/arm_spe_pmu.c, /sys/bus/event_source/devices/
// arm_spe_0/format) is declared once, in `format_fields()`:
//   ts_enable config:0, pa_enable config:1, pct_enable config:2,
//   jitter config:16, branch_filter config:32, load_filter config:33,
//   store_filter config:34, event_filter config1:0-63, min_latency config2:0-11.
// What SPE can filter in hardware (PMSFCR_EL1, PMSEVFR_EL1, PMSLATFR_EL1):
// - op types, ORed: a sample is kept when the op is any of the chosen
//   types (load, store, branch);
// - events, ANDed: kept when every chosen event bit is set: Retired (1),
//   L1D refill (3), TLB walk (5), Mispredicted (7), the bits every SPE
//   implementation filters on;
// - a minimum total latency.
// The part of a predicate the filters cannot say is left to the samples
// (`tagop report --where`), and the notes say which.
//
//   Programming p = program({.predicate = Predicate::parse("load & dc.miss"), .period = 4096});
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <cstdint>      // std::uint8_t, std::uint64_t
#include <span>         // std::span
#include <string_view>  // std::string_view

#include <tagop/api.hpp>          // TAGOP_API
#include <tagop/predicate.hpp>    // Predicate
#include <tagop/programming.hpp>  // Programming

namespace tagop TAGOP_API {
namespace arm_spe {

/// The perf_event_attr field a format term lives in.
enum class ConfigWord : std::uint8_t { config, config1, config2 };

/// One term of the arm_spe PMU's format.
struct FormatField {
  std::string_view name;  ///< "load_filter"
  ConfigWord word;  ///< config, config1 or config2
  std::uint8_t low = 0;   ///< the field's lowest bit
  std::uint8_t high = 0;  ///< its highest bit (inclusive)
  std::string_view what;  ///< the register field it sets
};

/// The arm_spe PMU's format terms (Linux 6.1's drivers/perf/arm_spe_pmu.c).
std::span<const FormatField> format_fields();

/// `value` placed in `field` of `attr` (bits outside the field's width are
/// refused with tagop::Error).
void set_field(perf_event_attr& attr, std::string_view field, std::uint64_t value);

/// What to sample.
struct SpeRequest {
  /// The ops wanted; the filters take what they can of it.
  Predicate predicate{};
  std::uint64_t period = 4096;  ///< operations between samples (the driver rounds up to the PMU's minimum)
  std::uint32_t min_latency = 0;  ///< keep ops whose total latency is at least this (0: off; at most 4095)
  bool jitter = true;             ///< randomise the interval a little (PMSIRR_EL1.RND), as perf's default
  bool timestamps = true;         ///< ts_enable
  bool physical_addresses = false;  ///< pa_enable (needs CAP_PERFMON or root)
  bool exclude_user = false;    ///< sample kernel code only
  bool exclude_kernel = false;  ///< sample user code only
};

/// The event for the arm_spe_0 PMU (attr.type its sysfs type here, or
/// unresolved_pmu_type). Throws tagop::Error (bad_input) for a
/// min_latency over 4095 or a predicate no op can meet.
Programming program(const SpeRequest& request);

}  // namespace arm_spe
}  // namespace tagop
