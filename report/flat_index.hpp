#pragma once
// Key -> u32 by open addressing, the keys inline: for per-sample lookups of
// the report (an IBS payload's kind by its key), where
// std::unordered_map's node per key costs more than the work around it. A
// Key has `std::uint64_t flat_hash(const Key&)` (found by ADL) and ==.

#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint32_t, std::uint64_t
#include <vector>   // std::vector

namespace tagop::report {

inline std::uint64_t flat_hash(std::uint64_t key) { return (key * 0x9E3779B97F4A7C15ull) >> 20; }

template <typename Key>
class FlatIndex {
 public:
  static constexpr std::uint32_t none = 0xFFFFFFFFu;

  /// The value of `key`, or none.
  std::uint32_t find(const Key& key) const { return slots_[slot(key)].value - 1; }

  /// Sets the value of `key`; `value` must not be none.
  void insert(const Key& key, std::uint32_t value) {
    if ((size_ + 1) * 2 > slots_.size()) {
      std::vector<Slot> old(slots_.size() * 2);
      old.swap(slots_);
      mask_ = slots_.size() - 1;
      for (const Slot& s : old)
        if (s.value) slots_[slot(s.key)] = s;
    }
    Slot& s = slots_[slot(key)];
    if (!s.value) ++size_;
    s = {key, value + 1};
  }

 private:
  struct Slot {
    Key key{};
    std::uint32_t value = 0;  // value + 1; 0 = empty
  };
  std::size_t slot(const Key& key) const {
    std::size_t i = flat_hash(key) & mask_;
    while (slots_[i].value != 0 && !(slots_[i].key == key)) i = (i + 1) & mask_;
    return i;
  }
  std::vector<Slot> slots_ = std::vector<Slot>(1024);  // a power of two, at most half full
  std::size_t mask_ = 1023;  // slots_.size() - 1, kept: a Slot's size divides slowly
  std::size_t size_ = 0;
};

}  // namespace tagop::report
