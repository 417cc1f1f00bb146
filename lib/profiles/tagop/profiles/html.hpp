#pragma once
// One self-contained HTML page: a sortable table of rows x columns with
// bars for ratios and their 95% intervals, and a flame graph of a profile
// whose sample type the reader picks. Style, script and data are inline;
// the page fetches nothing (no CDN, fonts or scripts), so it can be mailed,
// archived, or opened on a machine without a network.
//
//   HtmlPage page{.title = "IBS report of perf.data", .notes = {"processor: AMD Family 10h"}};
//   page.table.columns = {{"0xF206", "DC miss", "samples", "...", ColumnKind::count},
//                         {"dc_miss_rate", "DC miss rate", "", "...", ColumnKind::ratio}};
//   page.table.rows.push_back({"work", "prog", {Interval{180}, proportion_interval(180, 1000)}});
//   page.profile = &profile;  page.flame_sample_type = 1;
//   write_html(page, "report.html");
// Thread-safe: the functions only read their arguments; each call writes its
// own stream or file.

#include <cmath>     // NAN
#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint64_t
#include <iosfwd>    // std::ostream
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/profiles/profile.hpp>  // Profile

namespace tagop TAGOP_API {
namespace profiles {

/// A value and its 95% interval; NaN bounds when there is none.
struct Interval {
  double value = 0;
  double low = NAN;
  double high = NAN;
};

enum class ColumnKind : std::uint8_t {
  count,  ///< a number (samples, events, an estimate); its interval shows on hover
  ratio,  ///< a fraction from 0 to 1, shown as a percentage with a bar
  mean,   ///< an average (a latency in cycles), shown with a bar
};

struct TableColumn {
  std::string id;           ///< "0xF206", "dc_miss_rate"
  std::string title;        ///< the heading: "DC miss", "DC miss rate"
  std::string unit;         ///< "samples", "cycles"; "" for ratios
  std::string description;  ///< shown on hover
  ColumnKind kind = ColumnKind::count;
};

struct TableRow {
  std::string name;    ///< "work", "libc.so.6+0x1234"
  std::string module;  ///< "" when the rows are modules or processes
  std::vector<std::optional<Interval>> cells;  ///< one per column; nullopt: not available
};

struct Table {
  std::string row_title = "function";  // what a row is: function, module, process, line, address
  std::vector<TableColumn> columns;
  std::vector<TableRow> rows;
  std::optional<TableRow> total;
};

struct HtmlPage {
  std::string title;               ///< "IBS report of perf.data"
  std::vector<std::string> notes;  ///< under the title: processor, periods, filters, comments
  Table table;
  const Profile* profile = nullptr;   ///< the flame graph's stacks; none: no flame graph
  std::size_t flame_sample_type = 0;  ///< the one shown first; the reader can switch
  /// Frames under this fraction of every sample type's total are left out
  /// (they would be under a pixel wide), and more if the graph would still
  /// have more than `flame_max_frames`: the page stays small and fast.
  double flame_min_fraction = 1e-4;
  std::size_t flame_max_frames = 30000;
};

/// Writes the page. Throws tagop::Error for a row whose cell count is not
/// the column count, a flame sample type that is not the profile's, or a
/// stream that fails.
void write_html(const HtmlPage& page, std::ostream& out);
/// The same, to a file; the error names the file.
void write_html(const HtmlPage& page, const std::string& path);

/// The Wilson score interval of a proportion k/n at z (95% by default),
/// the same family of interval as tagop's estimates (Poisson score): it
/// stays inside [0, 1] and is sensible for k = 0 and k = n. n = 0 gives
/// {NaN, NaN, NaN}.
Interval proportion_interval(std::uint64_t k, std::uint64_t n, double z = 1.959963984540054);

}  // namespace profiles
}  // namespace tagop
