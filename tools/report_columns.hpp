#pragma once
// The columns of `tagop report`: IBS derived events and the ratios people
// read IBS data for, named views of them (CodeAnalyst's), and how a
// column's value comes from the engine's results.

#include <array>        // std::array
#include <cstdint>      // std::uint16_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/engine.hpp>  // QueryResult

namespace tagop::cli {

/// A ratio of event results: numerator / denominator, each a sum of
/// events' counts (or, for the numerator, their summed measures).
struct RatioSpec {
  std::string_view id{};
  std::string_view title{};
  std::string_view definition{};
  std::array<std::uint16_t, 3> numerator{};  // selects; 0 = none
  bool numerator_sums = false;               // sum the events' measure totals, not their counts
  std::array<std::uint16_t, 3> denominator{};
};

std::span<const RatioSpec> ratio_table();

struct ViewSpec {
  std::string_view name{};
  std::string_view description{};
  std::string_view columns{};  // comma-separated column ids
};

std::span<const ViewSpec> view_table();

struct Column {
  std::string id;     // "0xF206", "dc_miss_rate"
  std::string title;  // the event's abbreviation, or the ratio's title
  /// Index into derived_event_table() for an event column.
  std::optional<std::size_t> event;
  const RatioSpec* ratio = nullptr;
  bool sums() const;  // an event that sums a measure (latency)
};

/// One column by select value ("0xF206", "F206"), event name or
/// abbreviation (any case), or ratio id. Throws a usage error naming the
/// choices when nothing matches.
Column resolve_column(std::string_view token);
/// A comma-separated list of those.
std::vector<Column> resolve_columns(std::string_view list);
/// The columns of a view, by name.
std::vector<Column> view_columns(std::string_view view);

/// A column's value from the results of derived_event_queries() (one per
/// table row): the count (or the sum, for a latency event), or the ratio;
/// nullopt when not available (an event the processor does not report, or
/// a ratio with such a part or a zero denominator).
std::optional<double> column_value(const Column& column, const std::vector<QueryResult>& results);

}  // namespace tagop::cli
