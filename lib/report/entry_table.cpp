#include "entry_table.hpp"

#include <sys/mman.h>  // madvise

#include <algorithm>  // std::min

namespace tagop::report {

namespace {

// Copies each slot out with `copy`, and gives the slots' pages back to the
// kernel as it goes, 2 MiB at a time: a table and its copy (the larger
// table of grow(), the entries of take()) are then never both held whole,
// which set the peak memory of a report. A table of its own mapping
// (HugePageAllocator, past its threshold) has pages to give back; they
// read as zeros after.
template <typename Slots, typename Copy>
void copy_out(Slots& slots, Copy copy) {
  using Slot = typename Slots::value_type;
  constexpr std::size_t chunk = (std::size_t{2} << 20) / sizeof(Slot);
  const bool mapped = slots.size() * sizeof(Slot) >= HugePageAllocator<Slot>::threshold;
  for (std::size_t start = 0; start < slots.size(); start += chunk) {
    const std::size_t end = std::min(slots.size(), start + chunk);
    for (std::size_t i = start; i < end; ++i) copy(slots[i]);
    if (mapped) madvise(&slots[start], (end - start) * sizeof(Slot), MADV_DONTNEED);
  }
}

}  // namespace

EntryTable::EntryTable(std::uint8_t width)
    : width_(width), slots_(std::size_t{1} << initial_bits), mask_(slots_.size() - 1) {}

void EntryTable::grow() {
  decltype(slots_) old(slots_.size() * 2);
  old.swap(slots_);
  mask_ = slots_.size() - 1;
  copy_out(old, [&](const Slot& s) {
    const Entry& e = s.entry;
    if (e.count == 0) return;
    std::size_t i = hash(e.ip, e.place(), e.kind) & mask_;
    while (slots_[i].entry.count != 0) i = (i + 1) & mask_;
    slots_[i] = s;
  });
}

void EntryTable::take(Entries& entries, Sums& sums) {
  copy_out(slots_, [&](const Slot& s) {
    if (s.entry.count == 0) return;
    entries.push_back(s.entry);
    sums.insert(sums.end(), s.sums.begin(), s.sums.begin() + width_);
  });
  decltype(slots_)(std::size_t{1} << initial_bits).swap(slots_);
  mask_ = slots_.size() - 1;
  size_ = 0;
}

}  // namespace tagop::report
