#pragma once
// Two reports of the same rows and columns side by side, for `tagop diff`:
// each row's value in A and in B, their difference (absolute, relative, and
// in points of the column's share, as perf diff's Delta), and whether the
// change of share is beyond the samples' noise: a two-proportion z-test on
// the row's share of the column's samples (pooled, two-sided, 95%).

#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include <tagop/report/report.hpp>  // Report, Column

namespace tagop::cli {

struct DiffRow {
  std::string name, module;
  bool in_a = false, in_b = false;
  /// The column's values; nullopt where not available (a ratio of nothing).
  std::optional<double> a, b;
  /// Percent of the column's total (counted columns only).
  double share_a = 0, share_b = 0;
  std::uint64_t samples_a = 0, samples_b = 0;
  /// The z of B's share against A's; nullopt for ratios.
  std::optional<double> z;
  bool beyond_noise = false;

  std::optional<double> difference() const;
  /// (B - A) / A in percent; nullopt when A is 0 or missing.
  std::optional<double> relative() const;
  /// B's share - A's, in percentage points.
  double delta() const { return share_b - share_a; }
};

struct DiffColumn {
  report::Column column;
  /// Counts something (an event, samples), so shares and the test apply;
  /// false for ratios.
  bool counted = false;
  std::optional<double> total_a, total_b;
  std::uint64_t samples_a = 0, samples_b = 0;
  std::vector<DiffRow> rows;
};

/// The z statistic of the change from a/n_a to b/n_b (pooled proportion);
/// 0 when both are 0 of their totals or both totals are 0.
double two_proportion_z(std::uint64_t a, std::uint64_t n_a, std::uint64_t b, std::uint64_t n_b);

/// Rows are matched by module and name (by process: by the process's name,
/// since pids differ between runs; its processes are summed).
std::vector<DiffColumn> diff_reports(const report::Report& a, const report::Report& b,
                                     const std::vector<report::Column>& columns);

enum class DiffSort { delta, difference, relative, z };
/// Highest first, by the magnitude; then by name.
void sort_diff_rows(DiffColumn& column, DiffSort by);

}  // namespace tagop::cli
