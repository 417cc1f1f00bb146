#include <tagop/emulate/signature_tally.hpp>

#include <tagop/emulate/core_model.hpp>  // CoreModel::modelled

namespace tagop::emulate {

namespace {
// The table takes the low bits: the products' high bits folded down, as a
// product's low bits depend on its factor's low bits only (signatures that
// differ in high conditions would otherwise share a probe chain).
std::size_t hash_of(const ConditionSet& c) {
  std::uint64_t h = (c.words[0] * 0x9E3779B97F4A7C15ull) ^ (c.words[1] * 0xC2B2AE3D27D4EB4Full);
  h ^= h >> 32;
  h ^= h >> 16;
  return static_cast<std::size_t>(h);
}
}  // namespace

SignatureTally::SignatureTally() : table_(256), keys_(256), used_(256, 0) {}

SignatureCount& SignatureTally::find(const ConditionSet& c) {
  ++total_;
  if ((size_ + 1) * 2 > table_.size()) {
    std::vector<SignatureCount> old;
    old.swap(table_);
    std::vector<std::uint8_t> old_used;
    old_used.swap(used_);
    table_.assign(old.size() * 2, SignatureCount{});
    keys_.assign(table_.size(), ConditionSet{});
    used_.assign(table_.size(), 0);
    size_ = 0;
    for (std::size_t i = 0; i < old.size(); ++i) {
      if (!old_used[i]) continue;
      std::size_t at = hash_of(old[i].conditions) & (table_.size() - 1);
      while (used_[at]) at = (at + 1) & (table_.size() - 1);
      used_[at] = 1;
      keys_[at] = old[i].conditions;
      table_[at] = old[i];
      ++size_;
    }
  }
  const std::size_t mask = table_.size() - 1;
  std::size_t at = hash_of(c) & mask;
  while (used_[at] && !same(keys_[at], c)) at = (at + 1) & mask;
  if (!used_[at]) {
    used_[at] = 1;
    keys_[at] = c;
    table_[at].conditions = c;
    ++size_;
  }
  last_ = &table_[at];
  return table_[at];
}

std::vector<SignatureCount> SignatureTally::signatures() const {
  std::vector<SignatureCount> out;
  for (std::size_t i = 0; i < table_.size(); ++i)
    if (used_[i]) out.push_back(table_[i]);
  return out;
}

std::uint64_t SignatureTally::count(const Predicate& p) const {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < table_.size(); ++i)
    if (used_[i] && p.matches(table_[i].conditions)) n += table_[i].count;
  return n;
}

std::uint64_t SignatureTally::sum(const Predicate& p, Measure m) const {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < table_.size(); ++i)
    if (used_[i] && p.matches(table_[i].conditions)) n += table_[i].sums[m.index];
  return n;
}

std::vector<EventCount> count_events(std::span<const EventEntry> events, const SignatureTally& ops,
                                     const SignatureTally& fetches) {
  std::vector<EventCount> out;
  for (const EventEntry& e : events) {
    EventCount c{&e};
    if (!e.predicate.empty()) {
      const Predicate p = Predicate::parse(e.predicate);
      c.modelled = CoreModel::modelled(e.kind).contains_all(p.used());
      if (c.modelled) {
        const SignatureTally& tally = e.kind == SampleKind::fetch ? fetches : ops;
        c.count = tally.count(p);
        if (!e.sums.empty())
          if (const auto m = find_measure(e.sums)) c.total = tally.sum(p, *m);
      }
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace tagop::emulate
