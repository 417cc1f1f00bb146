#pragma once
// The aggregation engine: count and sum any set of predicates over samples.
//
// Samples are tallied by their *signature* (row, conditions, what was
// observed and measured). A capture of millions of samples has only a few
// hundred distinct signatures, so each sample costs one hash probe and a few
// additions, and predicates are evaluated once per signature at the end,
// however many events are asked for. The result is exact: a count is a sum
// of signature counts, a measure total a sum of signature totals.
//
// Thread safety: a CompiledQuery is immutable after construction: safe to share; an Aggregator is not
// thread-safe: one per thread.

#include <array>     // std::array
#include <cstdint>   // std::uint32_t, std::uint64_t
#include <optional>  // std::optional
#include <span>      // std::span
#include <vector>    // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/predicate.hpp>  // Predicate
#include <tagop/sample.hpp>     // Sample

namespace tagop TAGOP_API {

/// What one question asks: how many samples meet `predicate`, and, for
/// latency-style events, the total of `sums` over them.
struct Query {
  Predicate predicate;
  std::optional<Measure> sums;
};

struct QueryResult {
  std::uint64_t count = 0;
  std::uint64_t total = 0;  ///< of the query's measure; 0 when it sums none
  /// Samples of a kind the predicate selects that it could not decide: one
  /// depends on a condition the sample left undecided (see decide()), or the
  /// sample it selects lacks the measure, or every term needs a condition
  /// that no sample of its kind observes (a bit the processor lacks). They
  /// are in neither `count` nor `total`: availability is per sample, as
  /// Linux drops a Zen 5 access's DTLB level when it has no physical address
  /// and keeps the others'.
  std::uint64_t undecided = 0;
  /// False when nothing was counted and some sample was undecided: then the
  /// count is not a count of anything, and must be shown as not available,
  /// never as 0. Otherwise `count` is of the samples that decided the
  /// predicate, and `undecided` says how many did not.
  bool available() const { return count != 0 || undecided == 0; }
  /// Adds another part's results (a row's to a total, one shard's to another's).
  QueryResult& operator+=(const QueryResult& o) {
    count += o.count;
    total += o.total;
    undecided += o.undecided;
    return *this;
  }
};

enum class Decision : std::uint8_t { no, yes, unknown };

/// The kind conditions (fetch, op) that every term of `p` requires: a
/// sample of another kind can never match it, so it says nothing about
/// whether the predicate is available. Empty for a predicate of no terms.
ConditionSet required_kinds(const Predicate& p);

/// Whether a sample meets a predicate, from the conditions it observed
/// (`conditions` holds those of them that are true): yes or no when the
/// observed ones decide it, unknown when the answer depends on one the
/// sample left undecided. A Zen 3 load whose data came from "the local
/// node cache" (the L3 or another core's cache, not said which) decides
/// `src.cache & src.remote` (no: it is local) but not `src.cache`.
Decision decide(const Predicate& predicate, const ConditionSet& conditions, const ConditionSet& observed);

/// How a query counts the samples of one signature.
enum class QueryOutcome : std::uint8_t {
  other_kind,   ///< of a kind (fetch, op) the predicate never selects: not at all
  unavailable,  ///< it did not observe a condition the query tests, or lacks its measure
  no_match,
  match,
};

/// A query with what its outcomes need computed once.
class CompiledQuery {
 public:
  explicit CompiledQuery(const Query& query);
  const Query& query() const { return *query_; }
  /// Whether samples of these conditions are of a kind (fetch, op) the
  /// predicate can select.
  bool selects_kind(const ConditionSet& conditions) const { return conditions.contains_all(kinds_); }
  QueryOutcome outcome(const ConditionSet& conditions, const ConditionSet& observed, std::uint32_t measured) const {
    if (!selects_kind(conditions)) return QueryOutcome::other_kind;
    switch (decide(query_->predicate, conditions, observed)) {
      case Decision::no: return QueryOutcome::no_match;
      case Decision::unknown: return QueryOutcome::unavailable;
      case Decision::yes: break;
    }
    const auto& sums = query_->sums;
    return sums && !((measured >> sums->index) & 1) ? QueryOutcome::unavailable : QueryOutcome::match;
  }
  /// Whether samples that together observe `observed` can decide some term.
  bool decidable_with(const ConditionSet& observed) const;

 private:
  const Query* query_;
  ConditionSet kinds_;  ///< the kind conditions every term requires
};

/// What the samples of each kind (fetch, op) observe, together. A condition
/// that no sample of the kind observes (a bit the processor lacks) rules
/// nothing out: a query none of whose terms they can decide is not
/// available at all, even where a sample decides it false without that bit.
class ObservedTogether {
 public:
  void add(const ConditionSet& conditions, const ConditionSet& observed);
  /// Some sample is of a kind the query selects, and none can decide it.
  bool undecidable(const CompiledQuery& query) const;

 private:
  std::vector<std::pair<ConditionSet, ConditionSet>> by_kind_;  ///< kind conditions, observed together
};

struct Tally {
  std::uint64_t count = 0;
  std::array<std::uint64_t, measure_count> totals{};
};

struct Signature {
  std::uint32_t row = 0;
  std::uint32_t measured = 0;
  ConditionSet conditions;
  ConditionSet observed;
  friend bool operator==(const Signature&, const Signature&) = default;
};

class Aggregator {
 public:
  Aggregator();

  /// Adds one sample to `row` (a function, module... chosen by the caller;
  /// 0 when there is only one).
  void add(const Sample& sample, std::uint32_t row = 0);
  /// Adds `tally.count` samples of one signature at once, with the totals
  /// of their measures (for callers that tally samples themselves first).
  void add(const Signature& signature, const Tally& tally);
  /// Adds everything another aggregator holds (for merging per-thread work).
  void merge(const Aggregator& other);

  std::uint64_t samples() const { return samples_; }
  std::uint32_t rows() const { return rows_; }

  struct Entry {
    Signature signature;
    Tally tally;
  };
  std::span<const Entry> entries() const { return entries_; }

  /// One result per query, over every row.
  std::vector<QueryResult> evaluate(std::span<const Query> queries) const;
  /// results[row][query].
  std::vector<std::vector<QueryResult>> evaluate_by_row(std::span<const Query> queries) const;

 private:
  void add_tally(const Signature& key, const Tally& tally);
  std::uint32_t find_or_insert(const Signature& key);
  void grow();

  std::vector<Entry> entries_;
  std::vector<std::uint32_t> slots_;  ///< index + 1 into entries_, 0 = empty
  std::uint32_t last_ = 0;            ///< consecutive samples often share a signature
  std::uint64_t samples_ = 0;
  std::uint32_t rows_ = 0;
};

/// Convenience: aggregate a range of samples and answer the queries.
template <typename Range>
std::vector<QueryResult> aggregate(const Range& samples, std::span<const Query> queries) {
  Aggregator a;
  for (const Sample& s : samples) a.add(s);
  return a.evaluate(queries);
}

}  // namespace tagop
