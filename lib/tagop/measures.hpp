#pragma once
// Numeric facts about a sampled operation (latencies, counts), written once.
// Latency-style events sum one of these over the samples their predicate
// selects.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint8_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {

struct MeasureInfo {
  std::string_view name;
  std::string_view unit;
  std::string_view description;
};

// The order is part of the ABI, as the conditions' is (conditions.hpp):
// new measures go at the end. Sample's array has one slot per measure, so
// a new one changes Sample's size: a new minor version (a new soname).
inline constexpr MeasureInfo measure_table[] = {
    {"fetch.latency", "cycles", "cycles from the start of the fetch to its completion or abort"},
    {"fetch.itlb_refill_latency", "cycles", "cycles to refill the ITLB for this fetch"},
    {"op.tag_to_retire", "cycles", "cycles from when the op was tagged to when it retired"},
    {"op.comp_to_retire", "cycles", "cycles from when the op completed to when it retired"},
    {"dc.miss_latency", "cycles", "cycles from the data-cache miss to the data's arrival"},
    {"dtlb.refill_latency", "cycles", "cycles to refill the L1 DTLB for this access"},
    {"mem.width", "bytes", "size of the load or store"},
    {"mem.open_requests", "requests", "memory requests outstanding when this miss's fill arrived"},
    {"mem.load_latency", "cycles",
     "cycles from the load's dispatch to its data's arrival, as a perf mem sample's weight says (PERF_SAMPLE_WEIGHT: "
     "Intel's load latency, perf mem on IBS or SPE)"},
    {"op.total_latency", "cycles", "cycles from the op's dispatch to its completion (Arm SPE's total latency counter)"},
    {"op.issue_latency", "cycles", "cycles from the op's dispatch to its issue (Arm SPE's issue latency counter)"},
    {"mem.translation_latency", "cycles",
     "cycles to translate the access's virtual address, TLB hit or walk (Arm SPE's translation latency counter)"},
};

inline constexpr std::size_t measure_count = std::size(measure_table);

struct Measure {
  std::uint8_t index;
  friend constexpr bool operator==(Measure, Measure) = default;
  constexpr std::string_view name() const { return measure_table[index].name; }
};

/// The measure with this name; unknown names are a compile error.
consteval Measure measure(std::string_view name) {
  for (std::size_t i = 0; i < measure_count; ++i)
    if (measure_table[i].name == name) return Measure{static_cast<std::uint8_t>(i)};
  throw "unknown measure name";
}

std::optional<Measure> find_measure(std::string_view name);

}  // namespace tagop
