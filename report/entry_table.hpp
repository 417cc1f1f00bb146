#pragma once
// The report's tallies while the capture is read: one entry per (space,
// address, kind, call chain), 32 bytes, inline in an open-addressing table
// (one probe a sample, in one cache line). The sums of a kind that has
// measures (or periods) are kept apart, in one array, where an entry says.

#include <cstdint>  // std::uint32_t, std::uint64_t
#include <vector>   // std::vector

#include <tagop/error.hpp>  // Error

namespace tagop::report {

struct Entry {
  std::uint64_t ip = 0;
  std::uint32_t space = 0, kind = 0, chain = 0;
  std::uint32_t sums = 0;  // where its sums start in EntryTable::sums()
  std::uint64_t count = 0;  // samples; 0: an empty slot
};
static_assert(sizeof(Entry) == 32);

class EntryTable {
 public:
  EntryTable() : slots_(std::size_t{1} << initial_bits), mask_(slots_.size() - 1) {}

  static std::uint64_t hash(std::uint64_t ip, std::uint32_t space, std::uint32_t kind, std::uint32_t chain) {
    // Independent multiplies, so that they overlap.
    std::uint64_t h = ip * 0x9E3779B97F4A7C15ull;
    h ^= (std::uint64_t{space} << 32 | kind) * 0xBF58476D1CE4E5B9ull;
    h ^= std::uint64_t{chain} * 0x94D049BB133111EBull;
    return h ^ (h >> 29);
  }
  /// Where the entry of `hash` would be probed first: for a prefetch.
  const Entry* home(std::uint64_t hash) const { return &slots_[hash & mask_]; }

  /// The entry of a key, a new one (count 0, its `sum_count` sums zeroed)
  /// when the table lacks it. Once per sample: inline.
  Entry& find(std::uint64_t ip, std::uint32_t space, std::uint32_t kind, std::uint32_t chain, std::uint64_t hash,
              std::uint8_t sum_count) {
    for (std::size_t i = hash & mask_;; i = (i + 1) & mask_) {
      Entry& e = slots_[i];
      if (e.count == 0) return insert(e, ip, space, kind, chain, sum_count);
      if (((e.ip ^ ip) | (e.space ^ space) | (e.kind ^ kind) | (e.chain ^ chain)) == 0) return e;
    }
  }
  std::uint64_t* sums(const Entry& e) { return sums_.data() + e.sums; }

  std::size_t size() const { return size_; }
  std::size_t bytes() const { return slots_.capacity() * sizeof(Entry) + sums_.capacity() * 8; }

  /// After the walk: the entries, in no order, and their sums.
  std::vector<Entry> take_entries();
  std::vector<std::uint64_t> take_sums() { return std::move(sums_); }

 private:
  static constexpr unsigned initial_bits = 12;
  Entry& insert(Entry& slot, std::uint64_t ip, std::uint32_t space, std::uint32_t kind, std::uint32_t chain,
                std::uint8_t sum_count);
  void grow();

  std::vector<Entry> slots_;
  std::size_t mask_;
  std::size_t size_ = 0;
  std::vector<std::uint64_t> sums_;
};

inline Entry& EntryTable::insert(Entry& slot, std::uint64_t ip, std::uint32_t space, std::uint32_t kind,
                                 std::uint32_t chain, std::uint8_t sum_count) {
  if ((size_ + 1) * 10 > slots_.size() * 7) {
    grow();
    return find(ip, space, kind, chain, hash(ip, space, kind, chain), sum_count);
  }
  if (sums_.size() + sum_count > 0xFFFFFFFFu) throw Error("more than 2^32 sums in one report");
  slot = Entry{ip, space, kind, chain, static_cast<std::uint32_t>(sums_.size()), 0};
  sums_.resize(sums_.size() + sum_count);
  ++size_;
  return slot;
}

}  // namespace tagop::report
