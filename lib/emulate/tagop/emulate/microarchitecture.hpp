#pragma once
// The processors `tagop emulate` models: for each, ONE table of
// parameters (caches, TLBs, branch predictor, latencies) with where each
// number comes from. The model (core_model.hpp) is code; these are data.
// Thread-safe: constant tables.

#include <cstdint>      // std::uint16_t, std::uint32_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {
namespace emulate {

/// One cache level. size 0: the part has no such level.
struct CacheSpec {
  std::uint32_t size = 0;    ///< bytes
  std::uint16_t ways = 0;    ///< 0: fully associative
  std::uint16_t line = 64;   ///< bytes
  std::uint16_t latency = 0; ///< load-to-use cycles of a hit at this level
  std::string_view source{};
};

/// One TLB level. entries_4k 0: the part has no such level.
struct TlbSpec {
  std::uint16_t entries_4k = 0, ways_4k = 0;  ///< ways 0: fully associative
  std::uint16_t entries_2m = 0, ways_2m = 0;  ///< 2 MiB pages (0: held as 4 KiB pieces)
  /// Cycles a hit here adds after a miss in the level before (0 for L1).
  std::uint16_t latency = 0;
  std::string_view source{};
};

/// The predictor the model runs: gshare for direction, a direct-mapped
/// target buffer for indirect branches, a return stack. Sized after the
/// part's published predictor; the vendors' own designs are more elaborate.
struct PredictorSpec {
  std::uint8_t history_bits = 12;   ///< global history XORed into the index
  std::uint8_t counters_log2 = 12;  ///< 2-bit counters
  std::uint16_t indirect_targets = 512;
  std::uint8_t return_stack = 16;
  std::uint16_t mispredict_penalty = 0;  ///< cycles
  std::string_view source{};
};

/// What the part's precise-sampling hardware gives.
enum class SampleFormat : std::uint8_t { ibs, pebs, p4_tagging };

struct MicroarchSpec {
  std::string_view name{};     ///< "zen3": what --as takes
  std::string_view title{};
  std::string_view backend{};  ///< the registry backend whose events it counts
  SampleFormat format = SampleFormat::ibs;
  /// HEADER_CPUID of its captures.
  std::string_view vendor{};
  std::uint16_t family = 0, model = 0, stepping = 0;
  CacheSpec l1i, l1d, l2, l3;
  TlbSpec itlb_l1, itlb_l2, dtlb_l1, dtlb_l2;
  std::uint16_t page_walk_latency = 0;  ///< cycles of a walk after the last TLB level missed
  std::string_view page_walk_source{};
  std::uint16_t dram_latency = 0;       ///< cycles of a load served by memory
  std::string_view dram_source{};
  PredictorSpec predictor{};
  std::uint16_t fetch_block = 32;       ///< bytes the front end fetches at a time (one IBS fetch)
  std::string_view fetch_source{};
  /// L1D hardware prefetchers (next line and stride), when the part has
  /// them and CacheBehaviour::prefetchers is on.
  bool l1d_prefetchers = false;
  std::string_view prefetch_source{};  ///< where the prefetchers are described
  /// An L3 filled by the L2's victims rather than by every miss.
  bool victim_l3 = false;
  std::string_view victim_l3_source{};  ///< where the victim L3 is described
  /// An access crossing a boundary of this many bytes is "misaligned"
  /// (mem.misaligned; IBS IbsDcMisAcc).
  std::uint16_t misaligned_boundary = 16;
  std::string_view misaligned_source{};
  /// Tag-to-retire cycles of an op that misses nothing (the model has no
  /// out-of-order overlap: misses add their latency on top).
  std::uint16_t retire_cycles = 0;
  std::string_view retire_source{};
};

std::span<const MicroarchSpec> microarchitectures();
/// By name ("zen3"), any case; nullopt when there is none.
const MicroarchSpec* find_microarchitecture(std::string_view name);
std::string_view format_name(SampleFormat f);

}  // namespace emulate
}  // namespace tagop
