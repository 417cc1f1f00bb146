#include "entry_table.hpp"

namespace tagop::report {

EntryTable::EntryTable(std::uint8_t width)
    : width_(width), slots_(std::size_t{1} << initial_bits), mask_(slots_.size() - 1) {}

void EntryTable::grow() {
  decltype(slots_) old(slots_.size() * 2);
  old.swap(slots_);
  mask_ = slots_.size() - 1;
  for (const Slot& s : old) {
    const Entry& e = s.entry;
    if (e.count == 0) continue;
    std::size_t i = hash(e.ip, e.space, e.kind, e.chain) & mask_;
    while (slots_[i].entry.count != 0) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

void EntryTable::take(std::vector<Entry>& entries, std::vector<std::uint64_t>& sums) {
  for (const Slot& s : slots_) {
    if (s.entry.count == 0) continue;
    entries.push_back(s.entry);
    sums.insert(sums.end(), s.sums.begin(), s.sums.begin() + width_);
  }
  decltype(slots_)(std::size_t{1} << initial_bits).swap(slots_);
  mask_ = slots_.size() - 1;
  size_ = 0;
}

}  // namespace tagop::report
