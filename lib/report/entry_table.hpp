#pragma once
// The report's tallies while the capture is read: one entry per (space,
// address, kind, call chain), 32 bytes, inline in an open-addressing table
// (one probe a sample). A sample's measures (or its period) are summed
// beside its entry, in the same 64-byte line: one line to fetch ahead a
// sample, not two (two arrays cost 0.1 s more on 10 M samples at 100 k
// addresses, where the table is 30 MB).

#include <array>    // std::array
#include <cstdint>  // std::uint32_t, std::uint64_t
#include <vector>   // std::vector

#include "huge_pages.hpp"

namespace tagop::report {

struct Entry {
  std::uint64_t ip = 0;
  // Space and chain side by side, the item's place (tally.hpp's Item):
  // the table compares and hashes them as that one word.
  std::uint32_t space = 0, chain = 0;
  std::uint32_t kind = 0;
  std::uint64_t count = 0;  // samples; 0: an empty slot

  static std::uint64_t place_of(std::uint32_t space, std::uint32_t chain) {
    return std::uint64_t{space} | std::uint64_t{chain} << 32;
  }
  std::uint64_t place() const { return place_of(space, chain); }
};
static_assert(sizeof(Entry) == 32);

/// The entries and their sums as the walk leaves them (EntryTable::take),
/// in huge pages: filling 4 KiB pages, each a fault, took 11.5 ms of the
/// 60 after the walk at 100 k addresses (350 k entries), now 4.5.
using Entries = std::vector<Entry, HugePageAllocator<Entry>>;
using Sums = std::vector<std::uint64_t, HugePageAllocator<std::uint64_t>>;

/// The most sums an entry keeps.
inline constexpr std::size_t max_sums = 4;

class EntryTable {
 public:
  /// `width`: the sums each entry keeps (the most any kind has).
  explicit EntryTable(std::uint8_t width);

  /// `place`: Entry::place_of(space, chain).
  static std::uint64_t hash(std::uint64_t ip, std::uint64_t place, std::uint32_t kind) {
    // Independent multiplies, so that they overlap.
    const std::uint64_t h = ip * 0x9E3779B97F4A7C15ull ^ place * 0xBF58476D1CE4E5B9ull ^ kind * 0x94D049BB133111EBull;
    return h ^ (h >> 29);
  }
  /// Fetches the line where the entry of `hash` is probed first. Inlined
  /// early on purpose: GCC 12 finds a function of nothing but prefetches
  /// free of side effects, and drops the call to it.
  /// The line after it too: at the table's most (7 in 10 full) a probe
  /// goes on to the next slot often enough that its miss, not fetched
  /// ahead, cost more than a second prefetch.
  [[gnu::always_inline]] void prefetch(std::uint64_t hash) const {
    __builtin_prefetch(&slots_[hash & mask_], 0, 3);
    __builtin_prefetch(&slots_[(hash + 1) & mask_], 0, 3);
  }

  /// The slot of a key's entry, a new one (count 0) when the table lacks
  /// it. Once per sample: inline.
  [[gnu::always_inline]] std::size_t find(std::uint64_t ip, std::uint64_t place, std::uint32_t kind,
                                          std::uint64_t hash) {
    for (std::size_t i = hash & mask_;; i = (i + 1) & mask_) {
      Entry& e = slots_[i].entry;
      if (e.count == 0) return insert(i, ip, place, kind);
      if (((e.ip ^ ip) | (e.place() ^ place) | (e.kind ^ kind)) == 0) return i;
    }
  }
  /// Whether the table is small enough to stay in a core's L2 cache (512
  /// KiB), where a probe needs no fetching ahead.
  bool cached() const { return slots_.size() <= (std::size_t{512} << 10) / sizeof(Slot); }
  Entry& at(std::size_t slot) { return slots_[slot].entry; }
  std::uint64_t* sums(std::size_t slot) { return slots_[slot].sums.data(); }

  std::size_t size() const { return size_; }
  std::uint8_t width() const { return width_; }

  /// After the walk: appends the entries, in no order, to `entries`, and
  /// their sums to `sums` (width() of them each, in the same order), and
  /// frees the table.
  void take(Entries& entries, Sums& sums);

 private:
  static constexpr unsigned initial_bits = 12;
  std::size_t insert(std::size_t slot, std::uint64_t ip, std::uint64_t place, std::uint32_t kind);
  void grow();

  struct alignas(64) Slot {
    Entry entry;
    std::array<std::uint64_t, max_sums> sums{};
  };
  std::uint8_t width_;
  std::vector<Slot, HugePageAllocator<Slot>> slots_;
  std::size_t mask_;
  std::size_t size_ = 0;
};

inline std::size_t EntryTable::insert(std::size_t slot, std::uint64_t ip, std::uint64_t place, std::uint32_t kind) {
  if ((size_ + 1) * 10 > slots_.size() * 7) {
    grow();
    return find(ip, place, kind, hash(ip, place, kind));
  }
  slots_[slot].entry = Entry{ip, static_cast<std::uint32_t>(place), static_cast<std::uint32_t>(place >> 32), kind, 0};
  ++size_;
  return slot;
}

}  // namespace tagop::report
