#pragma once
// u64 -> u32 by open addressing: the per-sample lookups of `tagop report`
// (a row by address, a tally by row and kind), where std::unordered_map's
// node per key costs more than the work around it.

#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint32_t, std::uint64_t
#include <vector>   // std::vector

namespace tagop::cli {

class FlatIndex {
 public:
  FlatIndex() : slots_(1024) {}
  static constexpr std::uint32_t none = 0xFFFFFFFFu;
  /// The value of `key`, or none.
  std::uint32_t find(std::uint64_t key) const { return slots_[slot(key)].value - 1; }
  /// Sets the value of `key`; `value` must not be none.
  void insert(std::uint64_t key, std::uint32_t value);

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t value = 0;  // value + 1; 0 = empty
  };
  std::size_t slot(std::uint64_t key) const {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = (key * 0x9E3779B97F4A7C15ull) >> 20 & mask;
    while (slots_[i].value != 0 && slots_[i].key != key) i = (i + 1) & mask;
    return i;
  }
  std::vector<Slot> slots_;  // a power of two, at most half full
  std::size_t size_ = 0;
};

}  // namespace tagop::cli
