#pragma once
// An allocator for the report's large tables: above a few MiB it maps
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

#include <cstddef>      // std::size_t
#include <cstring>      // std::memset
#include <new>          // std::bad_alloc, operator new
#include <type_traits>  // std::is_trivially_copyable_v
#include <utility>      // std::forward

namespace tagop::report {

template <typename T>
struct HugePageAllocator {
  static_assert(std::is_trivially_copyable_v<T>, "a table's slots are plain bytes");
  using value_type = T;
  static constexpr std::size_t threshold = std::size_t{4} << 20;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < threshold) return static_cast<T*>(std::memset(::operator new(bytes, std::align_val_t{alignof(T)}), 0, bytes));
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    madvise(p, bytes, MADV_HUGEPAGE);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < threshold) ::operator delete(p, std::align_val_t{alignof(T)});
    else munmap(p, bytes);
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
