#include <tagop/report/diff.hpp>

#include <algorithm>  // std::sort
#include <cmath>      // std::sqrt, std::fabs
#include <map>        // std::map

#include <tagop/estimate.hpp>  // z_95

namespace tagop::report {

namespace {

struct Matched {
  std::string name, module;
  std::vector<QueryResult> results[2];
  bool present[2] = {false, false};
};

void add(std::vector<QueryResult>& sum, const std::vector<QueryResult>& more) {
  if (sum.empty()) {
    sum = more;
    return;
  }
  for (std::size_t q = 0; q < sum.size() && q < more.size(); ++q) sum[q] += more[q];
}

// "sha1sum [4242]" -> "sha1sum"; a process never named keeps its "[pid]".
std::string process_name(const std::string& row) {
  const std::size_t space = row.rfind(" [");
  return space == std::string::npos ? row : row.substr(0, space);
}

void collect(const Report& r, const Column& any, int side, std::map<std::string, Matched>& rows) {
  const bool by_process = r.by() == GroupBy::process;
  for (std::uint32_t id : r.select(any, 0)) {
    const Row row = r.row(id);
    const std::string name = by_process ? process_name(row.name) : row.name;
    Matched& m = rows[row.module + '\n' + name];
    m.name = name;
    m.module = row.module;
    m.present[side] = true;
    add(m.results[side], row.results);
  }
}

std::uint64_t samples_of(const Column& c, const std::vector<QueryResult>& results) {
  std::uint64_t n = 0;
  for (std::size_t q : c.queries())
    if (q < results.size()) n += results[q].count;
  return n;
}

double percent(std::optional<double> part, std::optional<double> whole) {
  return part && whole && *whole != 0 ? 100.0 * *part / *whole : 0.0;
}

}  // namespace

std::optional<double> DiffRow::difference() const {
  if (!a && !b) return std::nullopt;
  if (!a || !b) return in_a && in_b ? std::nullopt : std::optional<double>(b.value_or(0) - a.value_or(0));
  return *b - *a;
}

std::optional<double> DiffRow::relative() const {
  if (!a || *a == 0 || !difference()) return std::nullopt;
  return 100.0 * *difference() / *a;
}

double two_proportion_z(std::uint64_t a, std::uint64_t n_a, std::uint64_t b, std::uint64_t n_b) {
  if (n_a == 0 || n_b == 0) return 0;
  const double na = static_cast<double>(n_a), nb = static_cast<double>(n_b);
  const double pa = static_cast<double>(a) / na, pb = static_cast<double>(b) / nb;
  const double pooled = static_cast<double>(a + b) / (na + nb);
  const double se = std::sqrt(pooled * (1 - pooled) * (1 / na + 1 / nb));
  // The pooled share is 0 or 1: every sample in the row, or none, in both.
  if (se == 0) return 0;
  return (pb - pa) / se;
}

std::vector<DiffColumn> diff_reports(const Report& a, const Report& b, const std::vector<Column>& columns) {
  std::map<std::string, Matched> rows;
  collect(a, columns.front(), 0, rows);
  collect(b, columns.front(), 1, rows);
  std::vector<DiffColumn> out;
  for (const Column& c : columns) {
    DiffColumn d;
    d.column = c;
    d.counted = !c.ratio;
    d.total_a = a.value(c, a.totals());
    d.total_b = b.value(c, b.totals());
    d.samples_a = samples_of(c, a.totals());
    d.samples_b = samples_of(c, b.totals());
    for (const auto& [key, m] : rows) {
      DiffRow row;
      row.name = m.name;
      row.module = m.module;
      row.in_a = m.present[0];
      row.in_b = m.present[1];
      if (row.in_a) row.a = a.value(c, m.results[0]);
      if (row.in_b) row.b = b.value(c, m.results[1]);
      // A row of one capture only is 0 in the other, for counted columns.
      if (d.counted && !row.in_a) row.a = 0.0;
      if (d.counted && !row.in_b) row.b = 0.0;
      if (row.in_a) row.samples_a = samples_of(c, m.results[0]);
      if (row.in_b) row.samples_b = samples_of(c, m.results[1]);
      if (d.counted) {
        row.share_a = percent(row.a, d.total_a);
        row.share_b = percent(row.b, d.total_b);
        row.z = two_proportion_z(row.samples_a, d.samples_a, row.samples_b, d.samples_b);
        row.beyond_noise = std::fabs(*row.z) > z_95;
      }
      // A row with nothing of this column in either capture is not shown.
      const auto zero = [](std::optional<double> v) { return !v || *v == 0; };
      if (!row.samples_a && !row.samples_b && zero(row.a) && zero(row.b)) continue;
      d.rows.push_back(std::move(row));
    }
    out.push_back(std::move(d));
  }
  return out;
}

void sort_diff_rows(DiffColumn& column, DiffSort by) {
  auto magnitude = [by](const DiffRow& r) -> std::optional<double> {
    switch (by) {
      case DiffSort::delta: return std::fabs(r.delta());
      case DiffSort::difference:
        if (auto d = r.difference()) return std::fabs(*d);
        return std::nullopt;
      case DiffSort::relative:
        if (auto d = r.relative()) return std::fabs(*d);
        return std::nullopt;
      case DiffSort::z:
        if (r.z) return std::fabs(*r.z);
        return std::nullopt;
    }
    return std::nullopt;
  };
  std::stable_sort(column.rows.begin(), column.rows.end(), [&](const DiffRow& x, const DiffRow& y) {
    const auto mx = magnitude(x), my = magnitude(y);
    if (mx.has_value() != my.has_value()) return mx.has_value();
    if (mx && *mx != *my) return *mx > *my;
    return x.name != y.name ? x.name < y.name : x.module < y.module;
  });
}

}  // namespace tagop::report
