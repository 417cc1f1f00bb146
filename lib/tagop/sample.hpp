#pragma once
// One sampled operation in vendor-neutral terms: what every decoder produces
// and what the engine aggregates.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <array>    // std::array
#include <cstdint>  // std::uint32_t, std::uint64_t
#include <span>     // std::span

#include <tagop/call_chain.hpp>  // ChainFrame

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/conditions.hpp>  // ConditionSet
#include <tagop/measures.hpp>    // measure_count

namespace tagop TAGOP_API {

enum class SampleKind : std::uint8_t { fetch, op };

struct Sample {
  /// The conditions that hold. Always contains `fetch` or `op`.
  ConditionSet conditions;
  /// The conditions the mechanism could see for this sample, true or false.
  /// An IBS op sample observes every op condition its family reports; a
  /// PEBS sample of one event observes only that event's conditions. A
  /// condition outside this set is unknown, not false.
  ConditionSet observed;
  /// Numeric facts, indexed by Measure; which are valid is `measured`.
  std::array<std::uint32_t, measure_count> measures{};
  std::uint32_t measured = 0;  ///< bit i: measures[i] was reported

  std::uint64_t ip = 0;                ///< instruction (or fetch) address
  std::uint64_t ip_physical = 0;       ///< physical fetch address, when itlb.translated
  std::uint64_t data_linear = 0;       ///< when dc.lin_addr_valid
  std::uint64_t data_physical = 0;     ///< when dc.phys_addr_valid
  std::uint64_t branch_target = 0;     ///< when the hardware reports it (0 otherwise)
  std::uint64_t time = 0;   ///< perf's clock (PERF_SAMPLE_TIME), in nanoseconds; 0 when not recorded
  std::uint32_t pid = 0;    ///< the process
  std::uint32_t tid = 0;    ///< the thread
  std::uint32_t cpu = 0;    ///< the CPU it was taken on; 0 when not recorded
  bool ip_exact = true;                ///< false when the address has known skid
  /// The sample's call chain (PERF_SAMPLE_CALLCHAIN, `perf record -g`):
  /// its frames without the context markers, each with its context, the
  /// interrupted ip first as the kernel records it (for IBS the precise
  /// `ip` above may differ), then the callers. Empty when the capture has
  /// no chains. A SampleRange fills it with a view of its current batch:
  /// valid until the iterator is next incremented, so copy the frames (not
  /// the span) to keep them, e.g. before `ranges::to<std::vector>`.
  std::span<const ChainFrame> chain{};

  /// Fetch or op, by the condition every sample carries.
  SampleKind kind() const {
    return conditions.contains(condition("fetch")) ? SampleKind::fetch : SampleKind::op;
  }
  /// Sets measure `m` and marks it reported.
  void set_measure(Measure m, std::uint32_t value) {
    measures[m.index] = value;
    measured |= 1u << m.index;
  }
  /// Whether measure `m` was reported (else measures[m.index] means nothing).
  bool has_measure(Measure m) const { return (measured >> m.index) & 1; }
};

}  // namespace tagop
