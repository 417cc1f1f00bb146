#pragma once
// A set-associative store of blocks with least-recently-used replacement:
// the model's caches (blocks are lines) and TLBs (blocks are pages).
// Not thread-safe: one cache's state, updated from one thread.

#include <cstdint>  // std::uint64_t, std::uint32_t
#include <cstdlib>  // std::calloc, std::free
#include <new>      // std::bad_alloc
#include <utility>  // std::forward
#include <vector>   // std::vector

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {
namespace emulate {

/// Memory that is zero when allocated (calloc), and elements that a
/// value-initialising resize leaves as they are: a large table then takes
/// fresh pages from the kernel, zero already and faulted in only where it
/// is touched (a 32 MiB L3's 4 MiB of tags, mostly never reached by a small
/// program, is neither written at the start nor faulted in).
template <typename T>
struct ZeroedAllocator {
  using value_type = T;  ///< what it allocates
  ZeroedAllocator() = default;
  /// Rebinding: stateless.
  template <typename U>
  ZeroedAllocator(const ZeroedAllocator<U>&) {}
  /// `n` zeroed elements.
  T* allocate(std::size_t n) {
    void* p = std::calloc(n, sizeof(T));
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  /// Frees what allocate gave.
  void deallocate(T* p, std::size_t) { std::free(p); }
  /// Value-initialisation: the memory is zero already.
  template <typename U>
  void construct(U*) {}
  /// Any other construction, as usual.
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  /// Stateless: any two are equal.
  friend bool operator==(const ZeroedAllocator&, const ZeroedAllocator&) { return true; }
};

class BlockCache {
 public:
  BlockCache() = default;
  /// `entries` blocks of 2^block_shift bytes in sets of `ways` (0: one
  /// fully associative set). entries 0: a cache that always misses.
  BlockCache(std::uint32_t entries, std::uint32_t ways, unsigned block_shift);

  /// Looks the block of `address` up; on a miss it is brought in, evicting
  /// the set's least recently used block. True on a hit.
  bool access(std::uint64_t address) {
    const std::uint64_t block = address >> shift_;
    if (block == last_) return ways_ != 0;  // the same block again: already most recent
    last_ = block;
    return lookup(block);
  }
  /// As access(); on a miss that pushed a block out of its set, that
  /// block's first address goes to `evicted` (and true is returned there).
  bool access(std::uint64_t address, std::uint64_t& evicted, bool& did_evict) {
    did_evict = false;
    const std::uint64_t block = address >> shift_;
    if (block == last_) return ways_ != 0;
    last_ = block;
    if (lookup(block)) return true;
    did_evict = evicted_tag_ != 0;
    evicted = (evicted_tag_ - 1) << shift_;
    return false;
  }
  /// Looks the block of `address` up without bringing it in on a miss (a
  /// hit makes it the most recent): a victim cache's lookup.
  bool hit(std::uint64_t address) { return lookup(address >> shift_, /*fill=*/false); }
  bool present() const { return ways_ != 0; }

 private:
  bool lookup(std::uint64_t block, bool fill = true);

  unsigned shift_ = 0;
  std::uint32_t ways_ = 0;
  std::uint32_t sets_ = 0;
  std::uint32_t set_mask_ = 0;  ///< sets - 1 when sets is a power of two, else 0
  std::uint64_t last_ = ~std::uint64_t{0};
  std::uint64_t evicted_tag_ = 0;  ///< the tag the last missing lookup pushed out (0: none)
  // sets * ways tags, most recent first in each set; a tag is block + 1 (0: empty).
  std::vector<std::uint64_t, ZeroedAllocator<std::uint64_t>> tags_;
};

}  // namespace emulate
}  // namespace tagop
