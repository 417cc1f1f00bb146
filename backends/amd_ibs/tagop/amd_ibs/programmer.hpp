#pragma once
// Vendor-neutral request -> IbsFetchCtl / IbsOpCtl values and the
// perf_event_attr for the ibs_fetch / ibs_op PMUs.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <cstdint>   // std::uint32_t, std::uint64_t
#include <optional>  // std::optional

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/amd_ibs/families.hpp>   // capabilities_of, require_ibs_family
#include <tagop/amd_ibs/registers.hpp>  // IbsUnit, caps
#include <tagop/programming.hpp>        // Programming

namespace tagop TAGOP_API {
namespace amd_ibs {

struct IbsRequest {
  IbsUnit unit = IbsUnit::op;
  /// Fetches or ops (or cycles) between samples: a multiple of 16.
  std::uint64_t period = 0x10000;
  /// Op sampling: count dispatched ops (true) or cycles (false).
  bool count_dispatched_ops = false;
  /// Fetch sampling: randomise the low four bits of the fetch counter.
  bool randomize = false;
  /// Keep only user or only kernel samples (IBS itself cannot).
  bool exclude_user = false;
  bool exclude_kernel = false;
  /// Keep only ops (or fetches) that missed the L3: L3MissOnly (IbsOpCtl
  /// bit 16, IbsFetchCtl bit 59), Zen 4 and later (capability Zen4Ext).
  bool l3_miss_only = false;
  /// Op sampling: keep only loads that missed the DC with a miss latency
  /// above this many cycles, 128 to 2048 (IbsOpCtl LdLatThrsh, in steps of
  /// 128, and LdLatEn), Zen 5 and later (capability OpLdLat). 0: off.
  std::uint32_t load_latency = 0;
  /// The processor: its family and model give the capabilities, unless
  /// `capabilities` (CPUID 8000_001B EAX) is given. The family must be
  /// given (0 is refused): IBS differs too much between families to
  /// assume one.
  unsigned family = 0;
  unsigned model = 0;
  unsigned stepping = 0;
  std::optional<std::uint32_t> capabilities{};
};

/// The largest period the unit's counter can hold with these capabilities.
std::uint64_t max_period(IbsUnit unit, std::uint32_t capabilities);

/// Throws tagop::Error with the reason when the processor cannot do it.
Programming program(const IbsRequest& request);

}  // namespace amd_ibs
}  // namespace tagop
