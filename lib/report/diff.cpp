#include <tagop/report/diff.hpp>

#include <algorithm>  // std::sort
#include <cmath>      // std::sqrt, std::fabs
#include <map>        // std::map

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>     // Error
#include <tagop/estimate.hpp>  // z_95

namespace tagop::report {

namespace {

struct Matched {
  std::string name, module;
  std::vector<QueryResult> results[2];
  bool present[2] = {false, false};
};

void add_part(std::vector<QueryResult>& sum, const std::vector<QueryResult>& more) {
  if (sum.empty()) {
    sum = more;
    return;
  }
  for (std::size_t q = 0; q < sum.size() && q < more.size(); ++q) sum[q] += more[q];
}

// "sha1sum [4242]" -> "sha1sum"; a process never named keeps its ":pid".
std::string process_name(const std::string& row) {
  const std::size_t space = row.rfind(" [");
  return space == std::string::npos ? row : row.substr(0, space);
}

void collect(const DiffSide& side_rows, int side, std::map<std::string, Matched>& rows) {
  for (const DiffSide::Row& row : side_rows.rows) {
    Matched& m = rows[row.module + '\n' + row.name];
    m.name = row.name;
    m.module = row.module;
    m.present[side] = true;
    add_part(m.results[side], row.results);
  }
}

// A report's rows, processes by their names alone.
DiffSide side_of(const Report& r, const Column& any) {
  DiffSide out;
  const bool by_process = r.by() == GroupBy::process;
  for (std::uint32_t id : r.select(any, 0)) {
    Row row = r.row(id);
    out.rows.push_back({by_process ? process_name(row.name) : row.name, row.module, std::move(row.results)});
  }
  out.totals = r.totals();
  out.value = [&r](const Column& c, std::span<const QueryResult> results) { return r.value(c, results); };
  return out;
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
  return diff_reports(a, b, columns, columns);
}

std::vector<DiffColumn> diff_reports(const Report& a, const Report& b, const std::vector<Column>& columns_a,
                                     const std::vector<Column>& columns_b) {
  if (columns_a.empty() || columns_a.size() != columns_b.size())
    throw Error(fmt::format("diff_reports: {} columns of A and {} of B: expected as many, at least one",
                            columns_a.size(), columns_b.size()));
  return diff_sides(side_of(a, columns_a.front()), side_of(b, columns_b.front()), columns_a, columns_b);
}

std::vector<DiffColumn> diff_sides(const DiffSide& a, const DiffSide& b, const std::vector<Column>& columns_a,
                                   const std::vector<Column>& columns_b) {
  if (columns_a.empty() || columns_a.size() != columns_b.size())
    throw Error(fmt::format("diff_sides: {} columns of A and {} of B: expected as many, at least one",
                            columns_a.size(), columns_b.size()));
  std::map<std::string, Matched> rows;
  collect(a, 0, rows);
  collect(b, 1, rows);
  std::vector<DiffColumn> out;
  for (std::size_t i = 0; i < columns_a.size(); ++i) {
    const Column &c = columns_a[i], &cb = columns_b[i];
    DiffColumn d;
    d.column = c;
    d.counted = !c.ratio;
    d.total_a = a.value(c, a.totals);
    d.total_b = b.value(cb, b.totals);
    d.samples_a = samples_of(c, a.totals);
    d.samples_b = samples_of(cb, b.totals);
    for (const auto& [key, m] : rows) {
      DiffRow row;
      row.name = m.name;
      row.module = m.module;
      row.in_a = m.present[0];
      row.in_b = m.present[1];
      if (row.in_a) row.a = a.value(c, m.results[0]);
      if (row.in_b) row.b = b.value(cb, m.results[1]);
      // A row of one capture only is 0 in the other, for counted columns.
      if (d.counted && !row.in_a) row.a = 0.0;
      if (d.counted && !row.in_b) row.b = 0.0;
      if (row.in_a) row.samples_a = samples_of(c, m.results[0]);
      if (row.in_b) row.samples_b = samples_of(cb, m.results[1]);
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

EventMatches match_events(const Report& a, const perf_data::FileInfo& info_a, const Report& b,
                          const perf_data::FileInfo& info_b) {
  const Report* reports[2] = {&a, &b};
  const perf_data::FileInfo* infos[2] = {&info_a, &info_b};
  for (int side = 0; side < 2; ++side)
    if (reports[side]->ibs() || reports[side]->query_names().size() != infos[side]->attrs.size())
      throw Error(fmt::format("match_events: report {} is not of its capture's events ({} events, {} attrs)",
                              side ? 'B' : 'A', reports[side]->query_names().size(), infos[side]->attrs.size()));
  EventMatches out;
  auto has_samples = [](const Report& r, std::size_t e) { return r.totals()[e].count != 0; };
  std::vector<bool> taken(b.query_names().size());
  for (std::size_t e = 0; e < b.query_names().size(); ++e)
    if (!has_samples(b, e)) {
      taken[e] = true;
      out.empty_b.push_back(b.query_names()[e]);
    }
  for (std::size_t e = 0; e < a.query_names().size(); ++e) {
    if (!has_samples(a, e)) {
      out.empty_a.push_back(a.query_names()[e]);
      continue;
    }
    const perf_event_attr& attr = info_a.attrs[e].attr;
    bool found = false;
    for (std::size_t f = 0; f < taken.size() && !found; ++f) {
      const perf_event_attr& other = info_b.attrs[f].attr;
      if (taken[f] || other.type != attr.type || other.config != attr.config) continue;
      taken[f] = found = true;
      out.matched.push_back({e, f, a.query_names()[e], b.query_names()[f]});
    }
    if (!found) out.only_a.push_back(a.query_names()[e]);
  }
  for (std::size_t f = 0; f < taken.size(); ++f)
    if (!taken[f]) out.only_b.push_back(b.query_names()[f]);
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
