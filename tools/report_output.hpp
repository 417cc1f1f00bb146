#pragma once
// `tagop report` as text (a table, then the totals with estimates), CSV
// (the table) and JSON (everything): of an IBS capture, derived events and
// ratios by row; of any other, each event's samples and periods by row.
// Rows are named and summed as they are printed, one at a time.

#include <cstdint>  // std::uint32_t
#include <string>   // std::string
#include <vector>   // std::vector

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
};

void print_text(const report::Report& r, const ReportView& v);
void print_csv(const report::Report& r, const ReportView& v);
void print_json(const report::Report& r, const ReportView& v);

}  // namespace tagop::cli
