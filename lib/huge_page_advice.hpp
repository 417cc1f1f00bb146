#pragma once
// Asks for transparent huge pages over a large block that is about to be
// filled. On the virtual machines these tools run on, each 4 KiB page's
// first write is a fault that costs microseconds: filling a kallsyms'
// tables (some 12 MiB) that way was three quarters of their load. The
// block's whole 2 MiB stretches are advised; its ragged ends stay small.
// And gives a block's pages back once what they held has been copied out.

#include <sys/mman.h>  // madvise

#include <cstddef>  // std::size_t
#include <cstdint>  // std::uintptr_t

namespace tagop {

inline void advise_huge_pages(const void* block, std::size_t bytes) {
  constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
  const auto begin = (reinterpret_cast<std::uintptr_t>(block) + huge - 1) & ~(huge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(block) + bytes) & ~(huge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

/// Gives the whole pages within [begin, end) back to the kernel
/// (MADV_DONTNEED): for a block whose contents are no longer read (copied
/// out, about to be freed), so that it and its copy are not both held. The
/// pages read as zeros after; the block stays the allocator's to free.
inline void give_back_pages(const void* begin, const void* end) {
  constexpr std::uintptr_t page = 4096;
  const auto first = (reinterpret_cast<std::uintptr_t>(begin) + page - 1) & ~(page - 1);
  const auto last = reinterpret_cast<std::uintptr_t>(end) & ~(page - 1);
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace tagop
