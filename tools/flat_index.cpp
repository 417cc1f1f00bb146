#include "flat_index.hpp"

namespace tagop::cli {

void FlatIndex::insert(std::uint64_t key, std::uint32_t value) {
  if ((size_ + 1) * 2 > slots_.size()) {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old)
      if (s.value) slots_[slot(s.key)] = s;
  }
  Slot& s = slots_[slot(key)];
  if (!s.value) ++size_;
  s = {key, value + 1};
}

}  // namespace tagop::cli
