#pragma once
// The columns of a report: IBS derived events and the ratios people read
// IBS data for, named views of them (CodeAnalyst's), a capture's other
// events (counted by period, as perf report does), and how a column's value
// comes from a row's query results.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <array>        // std::array
#include <cstdint>      // std::uint16_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/engine.hpp>  // QueryResult
#include <tagop/error.hpp>   // Error

namespace tagop TAGOP_API {
namespace report {

/// A ratio of event results: numerator / denominator, each a sum of
/// events' counts (or, for the numerator, their summed measures).
struct RatioSpec {
  std::string_view id{};
  std::string_view title{};
  std::string_view definition{};
  std::array<std::uint16_t, 3> numerator{};  ///< selects; 0 = none
  bool numerator_sums = false;               ///< sum the events' measure totals, not their counts
  std::array<std::uint16_t, 3> denominator{};
};

std::span<const RatioSpec> ratio_table();

struct ViewSpec {
  std::string_view name{};
  std::string_view description{};
  std::string_view columns{};  ///< comma-separated column ids
};

std::span<const ViewSpec> view_table();

/// A column that names nothing the report has, or a request a capture cannot
/// answer: the message says what, and what there is instead.
class ColumnError : public Error {
 public:
  using Error::Error;
};

struct Column {
  std::string id;     ///< "0xF206", "dc_miss_rate", "samples", "cpu-clock"
  std::string title;  ///< the event's abbreviation, or the ratio's title
  /// The query (an index into the report's queries) whose count, or whose
  /// total when `total`, is the value.
  std::optional<std::size_t> event;
  const RatioSpec* ratio = nullptr;
  bool total = false;
  /// "samples": the sum of these queries' counts.
  std::vector<std::size_t> samples_of;
  /// Whose queries these are: 0 for an IBS capture's (derived events, by
  /// resolve_column()); for another capture's, how many events it has
  /// (resolve_event_column()). A Report refuses a column of another kind
  /// (ColumnError), whose indices would name other queries or none.
  std::size_t of_events = 0;
  bool sums() const { return total; }
  /// The queries its value reads.
  std::vector<std::size_t> queries() const;
};

// IBS: the queries are derived_event_queries(), one per derived event.

/// One column by select value ("0xF206", "F206"), event name or
/// abbreviation (any case), ratio id, or "samples" (fetch and op samples).
/// Throws ColumnError naming the choices when nothing matches.
Column resolve_column(std::string_view token);
/// A comma-separated list of those.
std::vector<Column> resolve_columns(std::string_view list);
/// The columns of a view, by name.
std::vector<Column> view_columns(std::string_view view);

// Other events: one query per event (count: its samples, total: their
// periods).

/// The column of an event by name (its periods), or "samples" (of every
/// event); `events` are the capture's event names.
Column resolve_event_column(std::span<const std::string> events, std::string_view token);

/// A column's value from a row's results (one per query): the count (or
/// the total), or the ratio; nullopt when not available (an event the
/// processor does not report, or a ratio with such a part or a zero
/// denominator).
std::optional<double> column_value(const Column& column, std::span<const QueryResult> results);

}  // namespace report
}  // namespace tagop
