#pragma once
// `tagop report` as text (a table, then the totals with estimates), CSV
// (the table) and JSON (everything): of an IBS capture, derived events and
// ratios by row; of any other, each event's samples and periods by row.
// Rows are named and summed as they are printed, one at a time.

#include <vector>  // std::vector

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

}  // namespace tagop::cli
