#pragma once
// `tagop report` as text (a table, then the totals with estimates), CSV
// (the table) and JSON (everything): of an IBS capture, derived events and
// ratios by row; of any other, each event's samples and periods by row.
// Rows are named and summed as they are printed, one at a time.

#include <cstdint>      // std::uint32_t, std::uint64_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/report/report.hpp>  // Report, Column

namespace tagop::cli {

struct ReportView {
  std::string file;
  std::string cpu_source;  // IBS: "HEADER_CPUID" or "--family/--model"
  std::vector<unsigned> damaged_features;  // FileInfo's
  std::string emulated;  // "emulated (model: ...)" for a capture of tagop emulate, else ""
  std::vector<report::Column> columns;  // IBS
  report::Column sort;
  std::vector<std::uint32_t> rows;  // to print, in order
  std::vector<std::string> filters;  // "cpu 3", "comm prog"
  std::string where;
  bool estimates = false;  // text: each row's estimates
  bool children = false;   // values include the callees'
  std::size_t export_top = 0;  // an export's rows: the first N by the sort column (0: all)
  std::uint64_t max_values = 0;  // the most rows x columns an output may hold (0: no bound)
};

/// Outputs whose size is rows x columns grow as a product of the capture's
/// size (2,000 events x 20,000 functions: a pprof of 2.7 GB, an HTML page
/// out of memory, 4.4 GB of JSON from a 3 MB capture). Throws tagop::Error
/// (resource) naming the way out when `rows` x `columns` passes
/// v.max_values: --top, or a larger --max-values.
void check_values(std::string_view what, std::uint64_t rows, std::uint64_t columns, const ReportView& v);

void print_text(const report::Report& r, const ReportView& v);
void print_csv(const report::Report& r, const ReportView& v);
void print_json(const report::Report& r, const ReportView& v);

}  // namespace tagop::cli
