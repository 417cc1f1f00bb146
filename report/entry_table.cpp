#include "entry_table.hpp"

#include <algorithm>  // std::copy_n

namespace tagop::report {

EntryTable::EntryTable(std::uint8_t width)
    : width_(width),
      slots_(std::size_t{1} << initial_bits),
      sums_(slots_.size() * width),
      mask_(slots_.size() - 1) {}

void EntryTable::grow() {
  decltype(slots_) old(slots_.size() * 2);
  decltype(sums_) old_sums(old.size() * width_);
  old.swap(slots_);
  old_sums.swap(sums_);
  mask_ = slots_.size() - 1;
  for (std::size_t from = 0; from < old.size(); ++from) {
    const Entry& e = old[from];
    if (e.count == 0) continue;
    std::size_t i = hash(e.ip, e.space, e.kind, e.chain) & mask_;
    while (slots_[i].count != 0) i = (i + 1) & mask_;
    slots_[i] = e;
    std::copy_n(old_sums.data() + from * width_, width_, sums_.data() + i * width_);
  }
}

void EntryTable::take(std::vector<Entry>& entries, std::vector<std::uint64_t>& sums) {
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].count == 0) continue;
    entries.push_back(slots_[i]);
    sums.insert(sums.end(), sums_.data() + i * width_, sums_.data() + (i + 1) * width_);
  }
  decltype(slots_)(std::size_t{1} << initial_bits).swap(slots_);
  decltype(sums_)(slots_.size() * width_).swap(sums_);
  mask_ = slots_.size() - 1;
  size_ = 0;
}

}  // namespace tagop::report
