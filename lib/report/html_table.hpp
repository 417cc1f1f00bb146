#pragma once
// The HTML page's table, shared by a local report's page (export_html.cpp)
// and the store's (store_html.cpp): its columns, and each row's cells with
// their 95% intervals, from a row's query results. What differs between
// the two reports (how a column's value is read, a unit's period) comes in
// as a PageReport.

#include <functional>  // std::function
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <vector>      // std::vector

#include <tagop/amd_ibs/derived_events.hpp>  // IbsUnit
#include <tagop/engine.hpp>                  // QueryResult
#include <tagop/profiles/html.hpp>           // TableColumn, Interval
#include <tagop/report/columns.hpp>          // Column
#include <tagop/report/report.hpp>           // GroupBy

namespace tagop::report::detail {

/// What the page's table reads of a report, local or the store's.
struct PageReport {
  bool ibs = true;
  std::vector<std::string> events{};  ///< captures without IBS: their events, the columns
  /// A column's value of a row's results (Report::value, store_value).
  std::function<std::optional<double>(const Column&, std::span<const QueryResult>)> value;
  /// IBS: a unit's period (0: not known, and its counts have no interval).
  std::function<double(amd_ibs::IbsUnit)> period;
};

/// A column of the page: how it is shown, and which of the report's it is.
struct PageColumn {
  profiles::TableColumn heading;
  Column column;
};

/// The table's columns: IBS, `ibs_columns` (derived events and ratios);
/// others, each event's periods.
std::vector<PageColumn> page_columns(const PageReport& r, const std::vector<Column>& ibs_columns);

/// A row's cell: its value, with the interval of a count of samples (the
/// Poisson score interval of the ops they stand for, in samples) or of a
/// ratio of counts (Wilson's).
std::optional<profiles::Interval> page_cell(const PageReport& r, const PageColumn& c, std::span<const QueryResult> results);

/// What a row is, in the table's heading: "function", "source line".
std::string page_row_title(GroupBy by);

}  // namespace tagop::report::detail
