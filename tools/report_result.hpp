#pragma once
// What `tagop report` found, ready to print as text, CSV or JSON.

#include <cstdint>  // std::uint64_t
#include <string>   // std::string
#include <vector>   // std::vector

#include <tagop/cpu.hpp>               // CpuId
#include <tagop/engine.hpp>            // QueryResult
#include <tagop/perf_data_reader.hpp>  // Skipped

#include "report_builder.hpp"  // Row
#include "report_columns.hpp"  // Column

namespace tagop::cli {

/// The period one unit's samples stand for, and where it came from.
struct UnitPeriod {
  double value = 0;     // 0: no samples of the unit
  std::string source;   // "attr.sample_period", "IbsOpMaxCnt * 16 in the samples"
  std::string unit;     // "fetches", "dispatched ops", "cycles"
};

struct RowResult {
  Row row;
  std::vector<QueryResult> results;  // one per derived event
};

struct ReportResult {
  std::string file;
  CpuId cpu;
  std::string cpu_source;  // "HEADER_CPUID" or "--family/--model"
  std::string by;
  std::vector<Column> columns;
  Column sort;
  std::size_t row_count = 0;     // before --top
  std::vector<RowResult> rows;   // sorted, --top applied
  std::vector<QueryResult> totals;
  std::uint64_t read_fetch = 0, read_op = 0;  // IBS samples decoded
  std::uint64_t fetch = 0, op = 0;            // ... that passed the filters
  std::uint64_t other_samples = 0;            // samples of events that are not IBS
  std::uint64_t where_undecided = 0;
  std::string where;
  std::vector<std::string> filters;  // "cpu 3", "comm prog"
  UnitPeriod fetch_period, op_period;
  perf_data::Skipped skipped;
  std::uint64_t lost = 0;
  bool truncated = false;
  std::uint64_t unread_bytes = 0, resyncs = 0;  // ReadSummary's
  std::optional<std::uint64_t> shrunk_to;
  std::vector<unsigned> damaged_features;       // FileInfo's
  std::vector<std::string> warnings;
  /// "emulated (model: ...)" for a capture of tagop emulate, else "".
  std::string emulated;
};

void print_text(const ReportResult& r, bool estimates);
void print_csv(const ReportResult& r);
void print_json(const ReportResult& r);

}  // namespace tagop::cli
