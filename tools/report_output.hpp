#pragma once
// `tagop report` as text (a table, then the totals with estimates), CSV
// (the table) and JSON (everything): of an IBS capture, derived events and
// ratios by row; of any other, each event's samples and periods by row.
// Rows are named and summed as they are printed, one at a time.

#include <functional>  // std::function
#include <optional>    // std::optional
#include <span>
#include <string>      // std::string
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <tagop/report/export.hpp>  // ExportView, check_values
#include <tagop/report/report.hpp>  // Report, Column

namespace tagop::cli {

// What the table formats print besides the rows; what the exports share
// with them (columns, sort, rows, filters ...) is the library's ExportView.
struct ReportView : report::ExportView {
  std::vector<unsigned> damaged_features;  // FileInfo's
  bool estimates = false;  // text: each row's estimates
  // text: the widest a row's name is printed (0: whole); a call chain's
  // is cut in the middle, its leaf kept whole.
  std::size_t name_width = 0;
};

void print_text(const report::Report& r, const ReportView& v);
void print_csv(const report::Report& r, const ReportView& v);
void print_json(const report::Report& r, const ReportView& v);

// The pieces of the local report's text that a report of the store prints
// the same way (store_output.cpp).

/// What the text says under its estimates.
extern const char* const report_estimate_note;
/// A column's value as a table cell: "12", "3.45%", "12.3", "n/a".
std::string report_text_value(const report::Column& c, const std::optional<double>& v);
/// 1234567 -> "1.23M".
std::string report_human(double v);
/// A row's share of an event's periods, in percent of the total's (0 when
/// the total has none).
double period_share(const QueryResult& part, const QueryResult& whole);
/// The report's table: the first column left-aligned, cut to `name_width`
/// (0: whole), the others right-aligned, `line(i)` the i-th row's cells,
/// the total under a rule.
void print_report_table(const std::vector<std::string>& header, std::size_t rows,
                        const std::function<std::vector<std::string>(std::size_t)>& line,
                        const std::vector<std::string>& total, std::size_t name_width);
/// The undecided samples of the derived events `columns` read (by their
/// `totals`), each with its reasons (`why(query)`) numbered once, under
/// the estimates.
void print_undecided(const std::vector<report::Column>& columns, std::span<const QueryResult> totals,
                     const std::function<std::vector<std::string>(std::size_t)>& why);
/// --by cacheline, after the table: each row's line again (`line(i)`: the
/// i-th row's name and what its samples did) with perf c2c's counts, and
/// their sums; `title` heads the names.
void print_line_details(const std::string& title, std::size_t rows,
                        const std::function<std::pair<std::string, std::optional<report::LineDetail>>(std::size_t)>& line,
                        std::size_t name_width);
/// A line's counts as the JSON's rows have them ("cache_line").
struct CacheLineRecord;
CacheLineRecord cache_line_record(const report::LineDetail& line);

}  // namespace tagop::cli
