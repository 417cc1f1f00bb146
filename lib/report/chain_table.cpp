#include "chain_table.hpp"

#include <cstring>  // std::memcpy, std::memcmp

#include <tagop/error.hpp>  // Error

namespace tagop::report {

namespace {

std::uint64_t chain_hash(const std::byte* frames, std::uint64_t nr) {
  std::uint64_t h = nr * 0x9E3779B97F4A7C15ull;
  for (std::uint64_t i = 0; i < nr; ++i) {
    std::uint64_t v;
    std::memcpy(&v, frames + i * 8, 8);
    h = (h ^ v) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  return h | 1;  // never 0
}

}  // namespace

ChainTable::ChainTable() : slots_(1024), mask_(1023), starts_{0, 0} {}

std::uint32_t ChainTable::intern(const std::byte* frames, std::uint64_t nr) {
  if (nr == 0) return 0;
  const std::uint64_t h = chain_hash(frames, nr);
  std::size_t i = h & mask_;
  for (; slots_[i].id != 0; i = (i + 1) & mask_) {
    if (slots_[i].hash != h) continue;
    const auto stored = this->frames(slots_[i].id);
    if (stored.size() == nr && std::memcmp(stored.data(), frames, nr * 8) == 0) return slots_[i].id;
  }
  if (starts_.size() > 0xFFFFFFFEu) throw Error(ErrorCode::resource, "more than 2^32 distinct call chains in one capture");
  const auto id = static_cast<std::uint32_t>(starts_.size() - 1);
  const std::size_t at = arena_.size();
  arena_.resize(at + nr);
  std::memcpy(arena_.data() + at, frames, nr * 8);
  starts_.push_back(arena_.size());
  slots_[i] = Slot{h, id};
  if (id * 2 > slots_.size()) grow();
  return id;
}

void ChainTable::grow() {
  std::vector<Slot, HugePageAllocator<Slot>> old(slots_.size() * 2);
  old.swap(slots_);
  mask_ = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.id == 0) continue;
    std::size_t i = s.hash & mask_;
    while (slots_[i].id != 0) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

}  // namespace tagop::report
