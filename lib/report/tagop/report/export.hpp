#pragma once
// A report as the profiles people look at: pprof (a gzipped profile.proto),
// Brendan Gregg's folded stacks, one self-contained HTML page, and JSON
// lines of decoded samples; what `tagop report --format pprof|folded|jsonl`
// and `--html` write, as library calls. The report's rows become a
// tagop::profiles::Profile (one sample per row, its call chain as the
// stack where the capture has them), written by tagop/profiles/; the JSON
// lines are a second, streaming pass over the capture, one sample at a
// time. Files are written whole or not at all (ExportTarget).
//
//   perf_data::PerfDataReader reader(path);
//   report::Report stacks(reader, {.by = report::stacks_by(reader.info())});
//   report::ExportView view{.file = path, .columns = report::view_columns("overview")};
//   view.sort = view.columns.front();
//   report::write_profile_export(report::ExportFormat::pprof, stacks, view, "out.pb.gz");
//
// Thread safety: the free functions keep no state of their own; a Report
// is not thread-safe (report.hpp), so one export of a report at a time. An
// ExportTarget is used by one thread.

#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <fstream>      // std::ofstream
#include <optional>     // std::optional
#include <ostream>      // std::ostream
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/perf_data_reader.hpp>  // PerfDataReader, FileInfo
#include <tagop/profiles/profile.hpp>  // Profile
#include <tagop/replacing_file.hpp>    // ReplacingFile
#include <tagop/report/columns.hpp>    // Column
#include <tagop/report/report.hpp>     // Report, Options, GroupBy

namespace tagop TAGOP_API {
namespace report {

/// The exports of a report; `none` stands for the table formats (text,
/// CSV, JSON), which are not exports.
enum class ExportFormat { none, pprof, folded, jsonl };

/// "pprof", "folded", "jsonl"; ExportFormat::none for any other name.
ExportFormat parse_export_format(std::string_view name);
/// The names parse_export_format() takes, for a command's help and checks.
std::vector<std::string> export_format_names();

/// What an export shows of a report besides its rows: the columns, their
/// order, and the words that say where the numbers come from. Of a capture
/// without IBS events only `sort` (an event's column,
/// resolve_event_column()) and the texts matter.
struct ExportView {
  /// The capture's path: the page's title, a comment of the profile.
  std::string file{};
  /// Where the processor's family and model came from ("HEADER_CPUID"), on
  /// the page.
  std::string cpu_source{};
  /// "emulated (model: ...)" for a capture of `tagop emulate`, else "".
  std::string emulated{};
  /// IBS: the columns (view_columns(), resolve_columns()). The profile has
  /// a sample type per derived event among them (ratios make none); the
  /// page's table has them all.
  std::vector<Column> columns{};
  /// The rows' order: the first `top` rows by it are exported, and it is
  /// the profile's default sample type and the folded stacks' value.
  Column sort{};
  /// The page's table's rows (Report::select() of the table's report), in
  /// order.
  std::vector<std::uint32_t> rows{};
  /// The filters the report was made with, as words ("cpu 3", "comm prog"),
  /// for the page's notes.
  std::vector<std::string> filters{};
  /// The --where predicate's text ("" when none): adds a sample type of its
  /// samples to the profile.
  std::string where{};
  /// The page's values include each row's callees' (Options::children).
  bool children = false;
  /// The profile's rows: the first N by `sort` (0: all).
  std::size_t top = 0;
  /// The most rows x columns an export may hold (0: no bound); see
  /// check_values().
  std::uint64_t max_values = 0;
};

/// Outputs whose size is rows x columns grow as a product of the capture's
/// size (2,000 events x 20,000 functions: a pprof of 2.7 GB, an HTML page
/// out of memory). Throws tagop::Error (ErrorCode::resource), naming the
/// way out (--top, or a larger --max-values), when `rows` x `columns`
/// passes `max_values` (0: no bound). `what` names the output.
void check_values(std::string_view what, std::uint64_t rows, std::uint64_t columns, std::uint64_t max_values);

/// Where an export goes: stdout for "" or "-", otherwise a file that is
/// written beside its final path and renamed onto it at commit() (a
/// tagop::ReplacingFile), so that a failed export never leaves half a file
/// nor clobbers the old one. A path that exists and is not a regular file
/// (a directory, a device, a FIFO) is refused, as is one in a directory
/// that does not exist. Errors are tagop::Error naming the path and the
/// reason. The file is as readable as any other the process makes (its
/// umask), not private as a temporary file is.
class ExportTarget {
 public:
  /// Creates the temporary file beside `path`; throws tagop::Error when
  /// `path` is refused or nothing can be written there.
  explicit ExportTarget(std::string path);
  ExportTarget(const ExportTarget&) = delete;
  ExportTarget& operator=(const ExportTarget&) = delete;
  /// Removes the temporary file unless committed.
  ~ExportTarget();

  /// Where to write: the temporary file, or std::cout.
  std::ostream& stream();
  /// Flushes, and renames the file into place; throws tagop::Error when
  /// writing failed (a full disk) or the rename does.
  void commit();
  /// The path given ("" or "-" for stdout).
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::optional<ReplacingFile> file_;  // none for stdout
  std::ofstream out_;
};

/// The report's rows as a profile: one sample type per column of `view`
/// that is a derived event (count units) or a measure's sum (its units),
/// plus one for the `view.where` predicate's samples; of a capture without
/// IBS, each event's samples and periods. `stacks` is a report by
/// stacks_by(). Throws tagop::Error when no column makes a sample type (ratios
/// alone), or (resource) past `view.max_values`.
profiles::Profile profile_of(const Report& stacks, const ExportView& view);
/// The index of the sort column's sample type in profile_of(), or nullopt
/// when the sort column is not one (a ratio).
std::optional<std::size_t> sort_sample_type(const Report& stacks, const ExportView& view);

/// What pprof and folded stacks are made of: rows by call chain where the
/// capture's samples have call chains, by function otherwise.
GroupBy stacks_by(const perf_data::FileInfo& info);

/// Writes `stacks` (a report by stacks_by()) as pprof or folded stacks to
/// `path` ("" or "-": stdout) through an ExportTarget: the file is whole or
/// untouched. `format` is ExportFormat::pprof or ExportFormat::folded.
/// Throws tagop::Error for folded stacks of a sort column that is not a
/// count (a ratio).
void write_profile_export(ExportFormat format, const Report& stacks, const ExportView& view, const std::string& path);

/// The HTML page: the table of `table` (its rows `view.rows`, its columns
/// `view.columns`), with intervals, and the flame graph of `stacks` (a
/// report by stacks_by(); it may be `table` itself).
void write_report_html(const Report& table, const Report& stacks, const ExportView& view, std::ostream& out);

/// JSON lines (tagop/profiles/sample_lines.hpp): every IBS sample that
/// passes `options.filters`, decoded, one per line, in file order, with its
/// function and module; of a capture without IBS events, a line per sample
/// of its events. Reads the capture again, one sample at a time, calling
/// `options.progress`. Returns the number of lines. Throws tagop::Error for
/// a --where predicate on a capture without IBS events.
std::uint64_t write_sample_lines(perf_data::PerfDataReader& reader, const Options& options, std::ostream& out);

}  // namespace report
}  // namespace tagop
