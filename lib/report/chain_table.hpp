#pragma once
// Call chains (PERF_SAMPLE_CALLCHAIN) interned to ids while the capture is
// read: samples that share a chain share its id, and a tally is kept per
// id, so that the chain's frames are read once, after the walk.

#include <cstddef>  // std::byte
#include <cstdint>  // std::uint32_t, std::uint64_t
#include <span>     // std::span
#include <vector>   // std::vector

#include "huge_pages.hpp"

namespace tagop::report {

class ChainTable {
 public:
  ChainTable();

  /// The id of the chain of `nr` addresses at `frames` (0 when `nr` is 0).
  std::uint32_t intern(const std::byte* frames, std::uint64_t nr);
  /// The chain's addresses, perf's context markers (PERF_CONTEXT_*) included.
  std::span<const std::uint64_t> frames(std::uint32_t id) const {
    return {arena_.data() + starts_[id], starts_[id + 1] - starts_[id]};
  }
  /// Chains, the empty one (id 0) included.
  std::size_t size() const { return starts_.size() - 1; }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::uint32_t id = 0;  // 0: empty
  };
  void grow();

  // Huge pages above 4 MiB: each doubling fills fresh pages, a fault each in 4 KiB ones.
  std::vector<Slot, HugePageAllocator<Slot>> slots_;
  std::size_t mask_;
  std::vector<std::uint64_t> arena_;
  std::vector<std::uint64_t> starts_;  // by id, and one past the last
};

}  // namespace tagop::report
