#include <tagop/profiles/html.hpp>

#include <algorithm>  // std::find_if, std::max, std::min
#include <cerrno>    // errno
#include <cmath>     // std::isnan, std::sqrt
#include <cstring>   // std::strerror
#include <fstream>   // std::ofstream
#include <ostream>   // std::ostream
#include <string_view>

#include <fmt/format.h>       // fmt::format
#include <nlohmann/json.hpp>  // the page's data

#include <tagop/error.hpp>  // tagop::Error

#include "flame_tree.hpp"

namespace tagop::profiles {

namespace detail {
// profiles/html/*, compiled in by profiles/html/embed.py.
extern const std::string_view report_html, report_css, report_js;
}  // namespace detail

namespace {

using json = nlohmann::ordered_json;

const char* kind_name(ColumnKind kind) {
  switch (kind) {
    case ColumnKind::ratio: return "ratio";
    case ColumnKind::mean: return "mean";
    case ColumnKind::count: break;
  }
  return "count";
}

// A cell: null (not available), a number, or [value, low, high].
json cell_json(const std::optional<Interval>& cell) {
  if (!cell || std::isnan(cell->value)) return nullptr;
  if (std::isnan(cell->low) || std::isnan(cell->high)) return cell->value;
  return json::array({cell->value, cell->low, cell->high});
}

json row_json(const TableRow& row, std::size_t columns, std::size_t index) {
  if (row.cells.size() != columns)
    throw Error(fmt::format("html: row {} ({}) has {} cells, but the table has {} columns", index, row.name,
                            row.cells.size(), columns));
  json r = json::array({row.name, row.module});
  for (const auto& cell : row.cells) r.push_back(cell_json(cell));
  return r;
}

json table_json(const Table& table) {
  json columns = json::array();
  for (const TableColumn& c : table.columns)
    columns.push_back({{"id", c.id}, {"title", c.title}, {"unit", c.unit}, {"description", c.description},
                       {"kind", kind_name(c.kind)}});
  json rows = json::array();
  for (std::size_t i = 0; i < table.rows.size(); ++i) rows.push_back(row_json(table.rows[i], table.columns.size(), i));
  return {{"row_title", table.row_title},
          {"columns", std::move(columns)},
          {"rows", std::move(rows)},
          {"total", table.total ? row_json(*table.total, table.columns.size(), table.rows.size()) : json(nullptr)}};
}

json flame_json(const HtmlPage& page) {
  if (!page.profile) return nullptr;
  const Profile& profile = *page.profile;
  if (page.flame_sample_type >= profile.sample_types().size())
    throw Error(fmt::format("html: flame graph sample type {} is not one of the profile's {} sample types",
                            page.flame_sample_type, profile.sample_types().size()));
  const detail::FlameTree tree = detail::build_flame_tree(profile, page.flame_min_fraction, page.flame_max_frames);
  json types = json::array();
  for (const SampleType& t : profile.sample_types()) types.push_back({{"name", t.name}, {"unit", t.unit}});
  json nodes = json::array();
  for (const detail::FlameNode& n : tree.nodes) {
    json node = json::array({n.parent, n.name});
    for (std::int64_t v : n.values) node.push_back(v);
    nodes.push_back(std::move(node));
  }
  return {{"types", std::move(types)},  {"default", page.flame_sample_type}, {"names", tree.names},
          {"nodes", std::move(nodes)},  {"omitted", tree.omitted},           {"min_fraction", tree.min_fraction}};
}

/// The data as it can stand inside <script>: '<' never appears raw, so no
/// "</script>" or "<!--" in a name can end or change the element.
std::string script_safe_json(const json& data) {
  const std::string text = data.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + 64);
  for (char c : text) {
    if (c == '<') out += "\\u003c";
    else out += c;
  }
  return out;
}

std::string html_text(std::string_view s) {
  // The title goes through nlohmann first, so that it is UTF-8 like the data.
  const std::string utf8 = json(s).dump(-1, ' ', false, json::error_handler_t::replace);
  const json parsed = json::parse(utf8);
  std::string out;
  for (char c : parsed.get<std::string>()) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

/// The template with each @NAME@ replaced.
std::string fill_template(std::string_view templ, const std::vector<std::pair<std::string_view, std::string_view>>& fills) {
  std::string out;
  std::size_t at = 0;
  while (at < templ.size()) {
    const std::size_t open = templ.find('@', at);
    if (open == std::string_view::npos) break;
    const std::size_t close = templ.find('@', open + 1);
    if (close == std::string_view::npos) break;
    const std::string_view name = templ.substr(open + 1, close - open - 1);
    const auto fill = std::find_if(fills.begin(), fills.end(), [&](const auto& f) { return f.first == name; });
    out.append(templ.substr(at, open - at));
    if (fill == fills.end()) {
      out += '@';  // not a placeholder
      at = open + 1;
      continue;
    }
    out.append(fill->second);
    at = close + 1;
  }
  out.append(templ.substr(at));
  return out;
}

}  // namespace

Interval proportion_interval(std::uint64_t k, std::uint64_t n, double z) {
  if (n == 0) return {NAN, NAN, NAN};
  const double kk = static_cast<double>(k), nn = static_cast<double>(n), z2 = z * z;
  const double centre = (kk + z2 / 2) / (nn + z2);
  const double half = z / (nn + z2) * std::sqrt(kk * (nn - kk) / nn + z2 / 4);
  return {kk / nn, std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

void write_html(const HtmlPage& page, std::ostream& out) {
  const json data = {{"title", page.title}, {"notes", page.notes}, {"table", table_json(page.table)},
                     {"flame", flame_json(page)}};
  const std::string title = html_text(page.title);
  const std::string data_text = script_safe_json(data);
  const std::string html = fill_template(detail::report_html, {{"TITLE", title},
                                                               {"STYLE", detail::report_css},
                                                               {"SCRIPT", detail::report_js},
                                                               {"DATA", data_text}});
  out.write(html.data(), static_cast<std::streamsize>(html.size()));
  if (!out.flush()) throw Error("html: writing the page failed (the output stream reported an error)");
}

void write_html(const HtmlPage& page, const std::string& path) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw Error(fmt::format("html: cannot write {}: {}", path, std::strerror(errno)));
  try {
    write_html(page, file);
  } catch (const Error& e) {
    throw Error(fmt::format("html: writing {} failed: {}", path, e.what()));
  }
}

}  // namespace tagop::profiles
