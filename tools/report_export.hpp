#pragma once
// `tagop report` as the profiles people look at: pprof (a gzipped
// profile.proto), Brendan Gregg's folded stacks, one self-contained HTML
// page, and JSON lines of decoded samples. The report's rows become a
// tagop::profiles::Profile (one sample per row, its call chain as the
// stack where the capture has them), written by profiles/; the JSON lines
// are a second, streaming pass over the capture, one sample at a time.

#include <cstdint>      // std::uint64_t
#include <functional>   // std::function
#include <fstream>      // std::ofstream
#include <optional>     // std::optional
#include <ostream>      // std::ostream
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/perf_data_reader.hpp>  // PerfDataReader
#include <tagop/profiles/profile.hpp>  // Profile
#include <tagop/report/report.hpp>     // Report, Column, Options

#include "report_output.hpp"  // ReportView

namespace tagop::cli {

enum class ExportFormat { none, pprof, folded, jsonl };  // none: a table format

/// "pprof", "folded", "jsonl"; none for the table formats.
ExportFormat parse_export_format(std::string_view name);
/// The --format values that are exports, for --help and the option's check.
std::vector<std::string> export_format_names();

/// Where an export goes: stdout for "" or "-", otherwise a file that is
/// written beside its final path and renamed onto it at commit(), so that a
/// failed export never leaves half a file (nor clobbers the old one). A
/// path that exists and is not a regular file (a directory, a device, a
/// FIFO) is refused. Errors are tagop::Error naming the path and the reason.
class ExportTarget {
 public:
  explicit ExportTarget(std::string path);
  ExportTarget(const ExportTarget&) = delete;
  ExportTarget& operator=(const ExportTarget&) = delete;
  /// Removes the temporary file unless committed.
  ~ExportTarget();

  std::ostream& stream();
  /// Flushes, and renames the file into place.
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_, temp_;
  std::ofstream file_;
  bool committed_ = false;
};

/// The report's rows as a profile: one sample type per chosen column that
/// is a derived event (count units) or a measure's sum (its units), plus
/// one for the --where predicate's samples; of a capture without IBS, each
/// event's samples and periods. `stacks` is a report by call chain (or by
/// function, when the capture has no call chains).
profiles::Profile profile_of(const report::Report& stacks, const ReportView& v);
/// The index of the sort column's sample type in profile_of(), or nullopt
/// when the sort column is not one (a ratio).
std::optional<std::size_t> sort_sample_type(const report::Report& stacks, const ReportView& v);

/// The HTML page: the table of `table` (its rows v.rows, its columns), with
/// intervals, and the flame graph of `stacks`.
void write_report_html(const report::Report& table, const report::Report& stacks, const ReportView& v,
                       std::ostream& out);

/// JSON lines: every IBS sample that passes `options.filters`, decoded,
/// one per line, in file order, with its function and module. Returns the
/// number of lines. Throws tagop::Error for a capture without IBS events.
std::uint64_t write_sample_lines(perf_data::PerfDataReader& reader, const report::Options& options,
                                 std::ostream& out);

/// What pprof and folded stacks are made of: rows by call chain where the
/// capture's samples have call chains, by function otherwise.
report::GroupBy stacks_by(const perf_data::FileInfo& info);

/// Writes `stacks` (a report by stacks_by()) as pprof or folded stacks to
/// `path` ("" or "-": stdout). Throws tagop::Error for folded stacks of a
/// sort column that is not a count (a ratio).
void write_profile_export(ExportFormat format, const report::Report& stacks, const ReportView& v,
                          const std::string& path);

/// A progress bar on stderr for reading `reader`'s data (drawn only on a
/// terminal): a callback for report::Options::progress and the walks here.
std::function<void(std::uint64_t, std::uint64_t)> progress_of(const perf_data::PerfDataReader& reader,
                                                               const std::string& label);

}  // namespace tagop::cli
