#pragma once
// Two reports of the same rows and columns side by side, as `tagop diff`
// prints them: each row's value in A and in B, their difference (absolute,
// relative, and in points of the column's share, as perf diff's Delta),
// and whether the change of share is beyond the samples' noise: a
// two-proportion z-test on the row's share of the column's samples
// (pooled, two-sided, 95%).
//
//   report::Report a(reader_a, options), b(reader_b, options);
//   auto table = report::diff_reports(a, b, {report::resolve_column("0xF206")});
//   for (report::DiffColumn& c : table) report::sort_diff_rows(c, report::DiffSort::delta);
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).
// diff_reports() asks the reports for rows, so it holds both as a Report's
// own use does: one thread at a time each.

#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint64_t
#include <functional>  // std::function
#include <optional>  // std::optional
#include <span>      // std::span
#include <string>    // std::string
#include <vector>    // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/report/columns.hpp>  // Column
#include <tagop/perf_data_reader.hpp>  // FileInfo
#include <tagop/report/report.hpp>   // Report

namespace tagop TAGOP_API {
namespace report {

/// One row (a function, module, process...) of a column, in A and in B.
struct DiffRow {
  /// The row's name, as the reports name it (a process by its name alone:
  /// pids differ between runs).
  std::string name;
  std::string module;  ///< the row's module, as the reports name it
  bool in_a = false;   ///< whether report A has the row at all
  bool in_b = false;   ///< whether report B has the row at all
  /// The column's value in A; nullopt where not available (a ratio of
  /// nothing). For a counted column, a row of one report only is 0 in the other.
  std::optional<double> a;
  std::optional<double> b;     ///< the column's value in B, as `a`
  double share_a = 0;          ///< percent of the column's total in A (counted columns only)
  double share_b = 0;          ///< percent of the column's total in B
  std::uint64_t samples_a = 0;  ///< the samples behind the value in A
  std::uint64_t samples_b = 0;  ///< the samples behind the value in B
  /// The z of B's share of the column's samples against A's (see
  /// two_proportion_z); nullopt for ratios.
  std::optional<double> z;
  /// |z| is past the two-sided 95% bound (tagop::z_95).
  bool beyond_noise = false;

  /// B - A; nullopt when neither has a value, or a ratio has one in only
  /// one of the reports that have the row.
  std::optional<double> difference() const;
  /// (B - A) / A in percent; nullopt when A is 0 or missing.
  std::optional<double> relative() const;
  /// B's share - A's, in percentage points.
  double delta() const { return share_b - share_a; }
};

/// One column of the two reports: its totals and its rows.
struct DiffColumn {
  /// The column, as the reports computed it.
  Column column;
  /// Counts something (an event, samples), so shares and the test apply;
  /// false for ratios.
  bool counted = false;
  std::optional<double> total_a;  ///< the column's value over the whole of report A
  std::optional<double> total_b;  ///< the column's value over the whole of report B
  std::uint64_t samples_a = 0;    ///< the samples behind total_a
  std::uint64_t samples_b = 0;    ///< the samples behind total_b
  /// The rows that have something of the column in either report, in
  /// module then name order until sort_diff_rows().
  std::vector<DiffRow> rows;
};

/// The z statistic of the change from a/n_a to b/n_b, with the pooled
/// proportion p = (a + b) / (n_a + n_b) in the standard error
/// sqrt(p (1 - p) (1/n_a + 1/n_b)); 0 when either total is 0 or p is 0 or 1.
double two_proportion_z(std::uint64_t a, std::uint64_t n_a, std::uint64_t b, std::uint64_t n_b);

/// The reports' rows matched by module and name (by process: by the
/// process's name, since pids differ between runs; its processes are
/// summed), for each of `columns` (not empty; the first decides which rows
/// there are). Both reports should be grouped the same way.
std::vector<DiffColumn> diff_reports(const Report& a, const Report& b, const std::vector<Column>& columns);

/// One side of diff_sides(): rows of any source (a report of a capture,
/// of the store) with their results, and how a column is read of them.
struct DiffSide {
  /// A row: matched with the other side's by module and name; rows of the
  /// same module and name on one side are summed.
  struct Row {
    std::string name;                  ///< as the report names it
    std::string module;                ///< "" where the rows have none
    std::vector<QueryResult> results;  ///< one per query
  };
  std::vector<Row> rows;             ///< in any order
  std::vector<QueryResult> totals;   ///< over every row
  /// A column's value of results (a row's, the totals): column_value(),
  /// or Report::value() (which leaves out ratios a filter biased).
  std::function<std::optional<double>(const Column&, std::span<const QueryResult>)> value;
};

/// diff_reports() of two sides of any source: A's columns and, at the same
/// places, B's of the same events.
std::vector<DiffColumn> diff_sides(const DiffSide& a, const DiffSide& b, const std::vector<Column>& columns_a,
                                   const std::vector<Column>& columns_b);

/// An event of A and the event of B it is compared with.
struct EventMatch {
  std::size_t a = 0;       ///< A's event's index (Report::query_names)
  std::size_t b = 0;       ///< B's event's index
  std::string name_a;      ///< A's event's name ("cpu-clock:ppp")
  std::string name_b;      ///< B's event's name ("cpu-clock")
};

/// How the events of two captures without IBS pair up, as perf diff pairs
/// them (builtin-diff.c's evsel_match: the same attr type and config, so
/// that modifiers such as :ppp, :u, :k or :HG do not matter). Events with
/// no samples in their report (perf record -a's dummy:HG) are left out,
/// as perf report leaves them out.
struct EventMatches {
  /// In A's order: each of A's events with the first of B's with its
  /// type and config that no earlier one took.
  std::vector<EventMatch> matched;
  std::vector<std::string> only_a;  ///< A's events with samples that B has no match for
  std::vector<std::string> only_b;  ///< B's likewise
  std::vector<std::string> empty_a;  ///< A's events without samples, not compared
  std::vector<std::string> empty_b;  ///< B's likewise
};

/// The events of `a` and `b` (reports of captures without IBS) matched by
/// the attrs of the captures they read (`info_a`, `info_b`: each report's
/// reader's FileInfo, whose attrs are its events by index).
EventMatches match_events(const Report& a, const perf_data::FileInfo& info_a, const Report& b,
                          const perf_data::FileInfo& info_b);

/// diff_reports() of columns that differ between the reports: `columns_b`
/// (as many as `columns_a`) are B's columns of the same events (by
/// match_events(): resolve_event_column() of each report's names). A's
/// column names the DiffColumn.
std::vector<DiffColumn> diff_reports(const Report& a, const Report& b, const std::vector<Column>& columns_a,
                                     const std::vector<Column>& columns_b);

/// What sort_diff_rows() orders by.
enum class DiffSort {
  delta,       ///< the magnitude of `DiffRow::delta()`, the change of share
  difference,  ///< the magnitude of `DiffRow::difference()`
  relative,    ///< the magnitude of `DiffRow::relative()`
  z,           ///< the magnitude of `DiffRow::z`
};

/// Orders the column's rows by the magnitude of `by`, highest first (rows
/// without one last); then by name and module.
void sort_diff_rows(DiffColumn& column, DiffSort by);

}  // namespace report
}  // namespace tagop
