#include <tagop/emulate/cache.hpp>

#include <bit>  // std::has_single_bit

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop::emulate {

BlockCache::BlockCache(std::uint32_t entries, std::uint32_t ways, unsigned block_shift) : shift_(block_shift) {
  if (entries == 0) return;
  ways_ = ways == 0 ? entries : ways;
  if (entries % ways_ != 0) throw Error(fmt::format("a cache of {} entries cannot have {} ways", entries, ways_));
  sets_ = entries / ways_;
  set_mask_ = std::has_single_bit(sets_) ? sets_ - 1 : 0;
  tags_.resize(std::size_t{sets_} * ways_);  // zero, untouched (ZeroedAllocator)
}

bool BlockCache::lookup(std::uint64_t block, bool fill) {
  evicted_tag_ = 0;
  if (ways_ == 0) return false;
  const std::uint64_t set = set_mask_ || sets_ == 1 ? (block & set_mask_) : block % sets_;
  std::uint64_t* way = tags_.data() + set * ways_;
  const std::uint64_t tag = block + 1;
  if (!fill) {
    std::uint32_t i = 0;
    while (i < ways_ && way[i] != tag) ++i;
    if (i == ways_) return false;
    for (; i > 0; --i) way[i] = way[i - 1];
    way[0] = tag;
    return true;
  }
  // Move the found (or the new) tag to the front; the others shift back.
  std::uint64_t carried = tag;
  for (std::uint32_t i = 0; i < ways_; ++i) {
    const std::uint64_t here = way[i];
    way[i] = carried;
    if (here == tag) return true;
    carried = here;
  }
  evicted_tag_ = carried;
  return false;
}

}  // namespace tagop::emulate
