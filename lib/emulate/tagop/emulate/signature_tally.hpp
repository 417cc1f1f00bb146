#pragma once
// Counts of the model's samples by their conditions (their signature),
// with each measure summed: every event of every table is then counted at
// the end, by its predicate, from a few hundred signatures instead of
// testing every predicate on every op.
// Not thread-safe: a tally counts from one thread.

#include <array>    // std::array
#include <cstdint>  // std::uint64_t
#include <span>     // std::span
#include <vector>   // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/event.hpp>     // EventEntry
#include <tagop/predicate.hpp> // Predicate
#include <tagop/sample.hpp>    // Sample

namespace tagop TAGOP_API {
namespace emulate {

struct SignatureCount {
  ConditionSet conditions;
  std::uint64_t count = 0;
  std::array<std::uint64_t, measure_count> sums{};
};

class SignatureTally {
 public:
  SignatureTally();
  void add(const Sample& s) {
    SignatureCount& c = slot(s.conditions);
    ++c.count;
    for (std::uint32_t m = s.measured; m; m &= m - 1) c.sums[static_cast<unsigned>(__builtin_ctz(m))] += s.measures[static_cast<unsigned>(__builtin_ctz(m))];
  }
  /// Every signature seen, in no particular order.
  std::vector<SignatureCount> signatures() const;
  std::uint64_t total() const { return total_; }
  /// Samples that meet `p`, and the sum of `sums` over them.
  std::uint64_t count(const Predicate& p) const;
  std::uint64_t sum(const Predicate& p, Measure m) const;

 private:
  SignatureCount& slot(const ConditionSet& c) {
    if (last_ && same(last_->conditions, c)) return ++total_, *last_;
    return find(c);
  }
  // Word by word: ConditionSet's == goes through memcmp, a call per op.
  static bool same(const ConditionSet& a, const ConditionSet& b) {
    return ((a.words[0] ^ b.words[0]) | (a.words[1] ^ b.words[1])) == 0;
  }
  SignatureCount& find(const ConditionSet& c);
  std::vector<SignatureCount> table_;
  // The probe reads these alone (16 bytes a slot, not a SignatureCount's
  // hundreds): table_[i].conditions, and whether slot i is taken.
  std::vector<ConditionSet> keys_;
  std::vector<std::uint8_t> used_;
  std::size_t size_ = 0;
  std::uint64_t total_ = 0;
  SignatureCount* last_ = nullptr;
};

/// One event of a backend's table, counted over a model's samples.
struct EventCount {
  const EventEntry* event = nullptr;
  /// False when the predicate needs a condition the model does not decide,
  /// or the event has no predicate (count-only): no count is given.
  bool modelled = false;
  std::uint64_t count = 0;
  std::uint64_t total = 0;  ///< of the measure the event sums, when it sums one
};

/// Every event of `events` counted over the ops and fetches of one model.
std::vector<EventCount> count_events(std::span<const EventEntry> events, const SignatureTally& ops,
                                     const SignatureTally& fetches);

}  // namespace emulate
}  // namespace tagop
