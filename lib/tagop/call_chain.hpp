#pragma once
// A sample's call chain as frames: the kernel writes a chain as addresses
// with context markers among them (PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER
// ..., values from PERF_CONTEXT_MAX = -4095 up) that say where the frames
// after them ran and are not frames themselves. This turns such a chain
// into frames that each know their context, as perf's
// thread__resolve_callchain_sample reads it: the first frame is the
// interrupted ip (the kernel stores it first), each later one a return
// address, callee before caller.
//
// Thread safety: no hidden state: the function here is safe from several
// threads at once on distinct outputs.

#include <cstddef>  // std::byte
#include <cstdint>  // std::uint8_t, std::uint16_t, std::uint64_t
#include <span>     // std::span
#include <vector>   // std::vector

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {

/// Where a frame ran, as the chain's context markers say.
enum class FrameContext : std::uint8_t {
  unknown,       ///< before any marker, in a sample that does not say its cpumode
  kernel,        ///< after PERF_CONTEXT_KERNEL
  user,          ///< after PERF_CONTEXT_USER
  hypervisor,    ///< after PERF_CONTEXT_HV
  guest_kernel,  ///< after PERF_CONTEXT_GUEST_KERNEL
  guest_user,    ///< after PERF_CONTEXT_GUEST_USER
};

/// One frame of a call chain: an address and where it ran.
struct ChainFrame {
  /// The interrupted ip (first frame) or a return address (the others).
  std::uint64_t address = 0;
  /// Kernel or user (or a guest's, a hypervisor's).
  FrameContext context = FrameContext::unknown;
  /// Equal address and context.
  friend bool operator==(const ChainFrame&, const ChainFrame&) = default;
};

/// Whether a chain entry is a context marker (`PERF_CONTEXT_*`, from
/// `PERF_CONTEXT_MAX` = -4095 up), not a frame.
constexpr bool is_context_marker(std::uint64_t entry) { return entry >= static_cast<std::uint64_t>(-4095); }

/// Appends the frames of `callchain` (a sample's PERF_SAMPLE_CALLCHAIN
/// entries as recorded: `callchain_nr` native-endian u64 values) to `out`,
/// the markers left out. `misc` is the sample record's header misc: its
/// cpumode is the context of frames before the first marker. A marker
/// this does not know (PERF_CONTEXT_GUEST) is skipped and keeps the
/// context. Returns how many frames it appended.
std::size_t append_call_chain(std::span<const std::byte> callchain, std::uint16_t misc, std::vector<ChainFrame>& out);

}  // namespace tagop
