#pragma once
// An allocator for the report's large tables: from 2 MiB up it maps
// memory of its own and asks for transparent huge pages, so that random
// probes into a table of tens of MiB do not also miss the TLB (on a
// virtual machine a TLB miss walks two sets of page tables). Smaller
// blocks come from the heap.
//
// Its memory comes zeroed, and value-initialising an element writes
// nothing: a table's pages are touched as it fills, not all at once when
// it is made (a table that doubles held its old and its new pages whole,
// which set a report's peak memory). So T's value-initialised form must be
// all zero bytes, as the tables' slots are.

#include <sys/mman.h>  // mmap, madvise, munmap

#include <cstddef>      // std::size_t, std::max_align_t
#include <cstdint>      // std::uintptr_t
#include <cstdlib>      // std::calloc, std::free
#include <cstring>      // std::memset
#include <new>          // std::bad_alloc, operator new
#include <type_traits>  // std::is_trivially_copyable_v
#include <utility>      // std::forward

namespace tagop::report {

template <typename T>
struct HugePageAllocator {
  static_assert(std::is_trivially_copyable_v<T>, "a table's slots are plain bytes");
  using value_type = T;
  static constexpr std::size_t huge = std::size_t{2} << 20;
  static constexpr std::size_t threshold = huge;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < threshold) {
      // calloc() leaves memory fresh from the kernel as it is (zeros
      // already): a memset wrote, and faulted in, every page first.
      if constexpr (alignof(T) > alignof(std::max_align_t))
        return static_cast<T*>(std::memset(::operator new(bytes, std::align_val_t{alignof(T)}), 0, bytes));
      if (void* p = std::calloc(n ? n : 1, sizeof(T))) return static_cast<T*>(p);
      throw std::bad_alloc();
    }
    // Mapped a huge page larger and aligned to one, so that all of the
    // block is in huge pages (an unaligned block's ragged ends were not).
    const std::size_t mapped = bytes + huge;
    void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t aligned = (start + huge - 1) & ~(huge - 1);
    if (aligned > start) munmap(p, aligned - start);
    if (const std::uintptr_t tail = start + mapped - (aligned + bytes); tail > 0)
      munmap(reinterpret_cast<void*>(aligned + bytes), tail);
    madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);
    return reinterpret_cast<T*>(aligned);
  }
  void deallocate(T* p, std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes >= threshold) munmap(p, bytes);
    else if constexpr (alignof(T) > alignof(std::max_align_t)) ::operator delete(p, std::align_val_t{alignof(T)});
    else std::free(p);
  }
  /// Value-initialisation: the memory is zeros already.
  template <typename U>
  void construct(U*) noexcept {}
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
};

}  // namespace tagop::report
