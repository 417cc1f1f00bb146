#pragma once
// Asks for transparent huge pages over a large block that is about to be
// filled. On the virtual machines these tools run on, each 4 KiB page's
// first write is a fault that costs microseconds: filling a kallsyms'
// tables (some 12 MiB) that way was three quarters of their load. The
// block's whole 2 MiB stretches are advised; its ragged ends stay small.

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

}  // namespace tagop
