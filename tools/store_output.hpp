#pragma once
// The printing of a report of the store (tagop report --source): a table or
// JSON of report::StoreReport, in the local report's words: derived events
// of IBS captures, events by period (share, samples, period, load latency)
// of others.

#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint64_t
#include <string>   // std::string
#include <vector>   // std::vector

#include <tagop/report/columns.hpp>       // Column
#include <tagop/report/store_report.hpp>  // StoreReport

namespace tagop::cli {

/// The samples of the store that --host, --since, --until, --backend and
/// --where choose, as the command line gave them.
struct StoreSelection {
  std::string host, since, until, backend, where;
};

/// Sets `options`' host, times, backend ("" automatic, "amd-ibs" or
/// "perf") and where from `selection`; a usage error for a backend or a
/// predicate that is not one.
void choose_store_samples(report::StoreReportOptions& options, const StoreSelection& selection);

/// How to print a store report.
struct StorePrint {
  std::string source;  ///< the URL
  std::size_t top = 0;  ///< the first N rows (0: all)
  double percent_limit = 0;  ///< rows whose share is below this percentage left out (--percent-limit)
  bool json = false;
  bool estimates = false;      ///< IBS text: each row's estimates under the totals' (--estimates)
  std::size_t name_width = 0;  ///< text: the widest a row's name is printed (0: whole)
};

/// Prints `r` with `columns` (IBS: derived events and ratios; others: its
/// events), rows highest first by `sort`.
void print_store_report(const report::StoreReport& r, const report::StoreReportOptions& options,
                        const std::vector<report::Column>& columns, const report::Column& sort, const StorePrint& how);

/// What --html's page of a store report shows beside the report.
struct StorePage {
  std::string source;          ///< the URL
  std::size_t top = 0;         ///< the table's first N rows (0: all)
  double percent_limit = 0;    ///< the table's rows whose share is below this percentage left out
  std::size_t flame_top = 0;   ///< the flame graph's first N rows (0: all)
  std::uint64_t max_values = 0;  ///< --max-values
};

/// Writes `r`'s page (report::write_store_html) to `path`, whole or not at
/// all: its flame graph of a second report of the same samples where `r`
/// is not by its stacks (IBS: by function; others: by call chain).
void write_store_page(const report::StoreReport& r, const report::StoreReportOptions& options,
                      const std::vector<report::Column>& columns, const report::Column& sort, const StorePage& how,
                      const std::string& path);

}  // namespace tagop::cli
