#include <tagop/engine.hpp>

#include <algorithm>  // std::any_of

namespace tagop {

namespace {

std::uint64_t hash(const Signature& s) {
  // Multiply-xorshift over the five words: the keys differ in few bits, and
  // this spreads them well enough for linear probing.
  std::uint64_t h = (std::uint64_t{s.row} << 32 | s.measured) * 0x9E3779B97F4A7C15ull;
  for (std::uint64_t w : {s.conditions.words[0], s.conditions.words[1], s.observed.words[0], s.observed.words[1]}) {
    h ^= w + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
  }
  return h ^ (h >> 31);
}

}  // namespace

ConditionSet required_kinds(const Predicate& p) {
  const ConditionSet kinds{condition("fetch"), condition("op")};
  if (p.terms().empty()) return {};
  ConditionSet common = kinds;
  for (const Term& t : p.terms()) common = common & t.require;
  return common;
}

Decision decide(const Predicate& predicate, const ConditionSet& conditions, const ConditionSet& observed) {
  const ConditionSet known_true = conditions & observed;
  ConditionSet known_false = observed;
  known_false.erase(conditions);
  bool undecided = false;
  for (const Term& t : predicate.terms()) {
    if (t.require.intersects(known_false) || t.forbid.intersects(known_true)) continue;  // this term fails
    if (observed.contains_all(t.require | t.forbid)) return Decision::yes;
    undecided = true;
  }
  return undecided ? Decision::unknown : Decision::no;
}

CompiledQuery::CompiledQuery(const Query& query) : query_(&query), kinds_(required_kinds(query.predicate)) {}

bool CompiledQuery::decidable_with(const ConditionSet& observed) const {
  const auto& terms = query_->predicate.terms();
  return terms.empty() || std::any_of(terms.begin(), terms.end(),
                                      [&](const Term& t) { return observed.contains_all(t.require | t.forbid); });
}

void ObservedTogether::add(const ConditionSet& conditions, const ConditionSet& observed) {
  const ConditionSet kind = conditions & ConditionSet{condition("fetch"), condition("op")};
  for (auto& [k, seen] : by_kind_)
    if (k == kind) {
      seen |= observed;
      return;
    }
  by_kind_.emplace_back(kind, observed);
}

bool ObservedTogether::undecidable(const CompiledQuery& query) const {
  ConditionSet seen;
  bool any = false;
  for (const auto& [kind, observed] : by_kind_)
    if (query.selects_kind(kind)) {
      seen |= observed;
      any = true;
    }
  return any && !query.decidable_with(seen);
}

Aggregator::Aggregator() : slots_(64, 0) {}

std::uint32_t Aggregator::find_or_insert(const Signature& key) {
  if (last_ < entries_.size() && entries_[last_].signature == key) return last_;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash(key) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == 0) {
      entries_.push_back(Entry{key, {}});
      slots_[i] = static_cast<std::uint32_t>(entries_.size());
      if (entries_.size() * 2 > slots_.size()) grow();
      return last_ = static_cast<std::uint32_t>(entries_.size() - 1);
    }
    if (entries_[slots_[i] - 1].signature == key) return last_ = slots_[i] - 1;
  }
}

void Aggregator::grow() {
  slots_.assign(slots_.size() * 2, 0);
  const std::size_t mask = slots_.size() - 1;
  for (std::uint32_t e = 0; e < entries_.size(); ++e) {
    std::size_t i = hash(entries_[e].signature) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = e + 1;
  }
}

void Aggregator::add(const Sample& sample, std::uint32_t row) {
  const Signature key{row, sample.measured, sample.conditions, sample.observed};
  Tally& t = entries_[find_or_insert(key)].tally;
  ++t.count;
  for (std::size_t m = 0; m < measure_count; ++m) t.totals[m] += sample.measures[m];
  ++samples_;
  if (row >= rows_) rows_ = row + 1;
}

void Aggregator::add_tally(const Signature& key, const Tally& tally) {
  Tally& t = entries_[find_or_insert(key)].tally;
  t.count += tally.count;
  for (std::size_t m = 0; m < measure_count; ++m) t.totals[m] += tally.totals[m];
}

void Aggregator::add(const Signature& signature, const Tally& tally) {
  add_tally(signature, tally);
  samples_ += tally.count;
  if (signature.row >= rows_) rows_ = signature.row + 1;
}

void Aggregator::merge(const Aggregator& other) {
  for (const Entry& e : other.entries_) add_tally(e.signature, e.tally);
  samples_ += other.samples_;
  if (other.rows_ > rows_) rows_ = other.rows_;
}

std::vector<std::vector<QueryResult>> Aggregator::evaluate_by_row(std::span<const Query> queries) const {
  std::vector<std::vector<QueryResult>> out(rows_, std::vector<QueryResult>(queries.size()));
  std::vector<CompiledQuery> compiled(queries.begin(), queries.end());
  ObservedTogether together;
  for (const Entry& e : entries_) together.add(e.signature.conditions, e.signature.observed);
  std::vector<bool> undecidable;
  for (const CompiledQuery& q : compiled) undecidable.push_back(together.undecidable(q));
  for (const Entry& e : entries_) {
    const Signature& s = e.signature;
    for (std::size_t q = 0; q < queries.size(); ++q) {
      QueryResult& r = out[s.row][q];
      const QueryOutcome outcome = compiled[q].outcome(s.conditions, s.observed, s.measured);
      if (outcome == QueryOutcome::other_kind) continue;
      if (undecidable[q]) {
        r.undecided += e.tally.count;
        continue;
      }
      switch (outcome) {
        case QueryOutcome::other_kind:
        case QueryOutcome::no_match: break;
        case QueryOutcome::unavailable: r.undecided += e.tally.count; break;
        case QueryOutcome::match:
          r.count += e.tally.count;
          if (const auto& sums = queries[q].sums) r.total += e.tally.totals[sums->index];
          break;
      }
    }
  }
  return out;
}

std::vector<QueryResult> Aggregator::evaluate(std::span<const Query> queries) const {
  std::vector<QueryResult> total(queries.size());
  for (const auto& row : evaluate_by_row(queries)) {
    for (std::size_t q = 0; q < queries.size(); ++q) total[q] += row[q];
  }
  return total;
}

}  // namespace tagop
