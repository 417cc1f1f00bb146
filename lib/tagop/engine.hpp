#pragma once
// The aggregation engine: count and sum any set of predicates over samples.
//
// Samples are tallied by their *signature* (row, conditions, what was
// observed and measured). A capture of millions of samples has only a few
// hundred distinct signatures, so each sample costs one hash probe and a few
// additions, and predicates are evaluated once per signature at the end,
// however many events are asked for. The result is exact: a count is a sum
// of signature counts, a measure total a sum of signature totals.

#include <array>     // std::array
#include <cstdint>   // std::uint32_t, std::uint64_t
#include <optional>  // std::optional
#include <span>      // std::span
#include <vector>    // std::vector

#include <tagop/predicate.hpp>  // Predicate
#include <tagop/sample.hpp>     // Sample

namespace tagop {

/// What one question asks: how many samples meet `predicate`, and, for
/// latency-style events, the total of `sums` over them.
struct Query {
  Predicate predicate;
  std::optional<Measure> sums;
};

struct QueryResult {
  std::uint64_t count = 0;
  std::uint64_t total = 0;  // of the query's measure; 0 when it sums none
  /// False when some sample the predicate could select did not observe a
  /// condition it tests (or lacked the measure): then the count is not a
  /// count of anything, and must be shown as not available, never as 0.
  bool available = true;
};

/// How a query counts the samples of one signature.
enum class QueryOutcome : std::uint8_t {
  other_kind,   // of a kind (fetch, op) the predicate never selects: not at all
  unavailable,  // it did not observe a condition the query tests, or lacks its measure
  no_match,
  match,
};

/// A query with what its outcomes need computed once.
class CompiledQuery {
 public:
  explicit CompiledQuery(const Query& query);
  const Query& query() const { return *query_; }
  QueryOutcome outcome(const ConditionSet& conditions, const ConditionSet& observed, std::uint32_t measured) const {
    if (!conditions.contains_all(kinds_)) return QueryOutcome::other_kind;
    const auto& sums = query_->sums;
    if (!observed.contains_all(used_) || (sums && !((measured >> sums->index) & 1))) return QueryOutcome::unavailable;
    return query_->predicate.matches(conditions) ? QueryOutcome::match : QueryOutcome::no_match;
  }

 private:
  const Query* query_;
  ConditionSet kinds_;  // the kind conditions every term requires
  ConditionSet used_;
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
  std::vector<std::uint32_t> slots_;  // index + 1 into entries_, 0 = empty
  std::uint32_t last_ = 0;            // consecutive samples often share a signature
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
