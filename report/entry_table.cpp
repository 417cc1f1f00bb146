#include "entry_table.hpp"

#include <algorithm>  // std::remove_if

namespace tagop::report {

void EntryTable::grow() {
  std::vector<Entry> old(slots_.size() * 2);
  old.swap(slots_);
  mask_ = slots_.size() - 1;
  for (const Entry& e : old) {
    if (e.count == 0) continue;
    std::size_t i = hash(e.ip, e.space, e.kind, e.chain) & mask_;
    while (slots_[i].count != 0) i = (i + 1) & mask_;
    slots_[i] = e;
  }
}

std::vector<Entry> EntryTable::take_entries() {
  std::vector<Entry> out = std::move(slots_);
  out.erase(std::remove_if(out.begin(), out.end(), [](const Entry& e) { return e.count == 0; }), out.end());
  out.shrink_to_fit();
  slots_.assign(std::size_t{1} << initial_bits, Entry{});
  mask_ = slots_.size() - 1;
  size_ = 0;
  return out;
}

}  // namespace tagop::report
