// `tagop report` as text (a table, then the totals with estimates), CSV
// (the table) and JSON (everything).

#include <cmath>  // std::llround

#include <fmt/format.h>       // fmt::print
#include <nlohmann/json.hpp>  // JSON output

#include <tagop/amd_ibs/derived_events.hpp>  // derived_event_table
#include <tagop/estimate.hpp>                // estimate_from_samples

#include "output.hpp"
#include "report_result.hpp"

namespace tagop::cli {

namespace {

using json = nlohmann::ordered_json;
using amd_ibs::derived_event_table;
using amd_ibs::IbsUnit;

constexpr const char* estimate_note =
    "Estimates are IBS sample counts times the sampling period, with a 95% Poisson score interval; they count "
    "sampled ops (or fetches), and are never to be added to, subtracted from or compared with event counts "
    "(CodeAnalyst: arithmetic between IBS derived events and event-based samples is not meaningful).";

const UnitPeriod& period_of(const ReportResult& r, std::size_t event) {
  return derived_event_table()[event].unit == IbsUnit::fetch ? r.fetch_period : r.op_period;
}

bool is_rate(const Column& c) { return c.ratio && !c.ratio->numerator_sums; }

std::string text_value(const Column& c, const std::optional<double>& v) {
  if (!v) return "n/a";
  if (is_rate(c)) return fmt::format("{:.2f}%", *v * 100);
  if (c.ratio) return fmt::format("{:.1f}", *v);
  return fmt::format("{}", static_cast<std::uint64_t>(std::llround(*v)));
}

std::string csv_value(const Column& c, const std::optional<double>& v) {
  if (!v) return "";
  if (c.ratio) return fmt::format("{:.6g}", *v);
  return fmt::format("{}", static_cast<std::uint64_t>(std::llround(*v)));
}

json json_value(const Column& c, const std::optional<double>& v) {
  if (!v) return nullptr;
  if (c.ratio) return *v;
  return static_cast<std::uint64_t>(std::llround(*v));
}

// 1234567 -> "1.23M"
std::string human(double v) {
  const char* suffix[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  while (std::fabs(v) >= 1000 && i < 5) v /= 1000, ++i;
  return i == 0 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}{}", v, suffix[i]);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string by_title(const std::string& by) { return by == "line" ? "source line" : by; }

json period_json(const UnitPeriod& p) {
  if (p.value == 0) return nullptr;
  return json{{"value", p.value}, {"unit", p.unit}, {"source", p.source}};
}

json estimate_json(const QueryResult& q, const UnitPeriod& p) {
  if (!q.available || p.value == 0) return nullptr;
  const Estimate e = estimate_from_samples(q.count, p.value);
  return json{{"samples", q.count}, {"estimate", e.value}, {"low", e.low}, {"high", e.high}, {"unit", p.unit}};
}

}  // namespace

void print_text(const ReportResult& r, bool estimates) {
  fmt::print("IBS report of {}\n", printable(r.file));
  if (!r.emulated.empty()) fmt::print("capture: {}\n", r.emulated);
  fmt::print("processor: {} (from {})\n", r.cpu.to_string(), r.cpu_source);
  fmt::print("IBS samples: {} fetch, {} op", r.fetch, r.op);
  if (r.fetch != r.read_fetch || r.op != r.read_op)
    fmt::print(" (of {} fetch, {} op read; filtered by {}{}{})", r.read_fetch, r.read_op,
               fmt::join(r.filters, ", "), r.filters.empty() || r.where.empty() ? "" : ", ",
               r.where.empty() ? "" : "where " + r.where);
  fmt::print("\n");
  for (const auto* p : {&r.fetch_period, &r.op_period})
    if (p->value != 0)
      fmt::print("{} period: {:.0f} {} ({})\n", p == &r.fetch_period ? "fetch" : "op", p->value, p->unit, p->source);
  fmt::print("\n{} rows by {}{}, sorted by {} ({})\n\n", r.row_count, by_title(r.by),
             r.rows.size() < r.row_count ? fmt::format(", the first {}", r.rows.size()) : "", r.sort.id, r.sort.title);

  // The table.
  std::vector<std::string> header{by_title(r.by)};
  for (const Column& c : r.columns) header.push_back(c.title);
  std::vector<std::vector<std::string>> cells;
  for (const RowResult& row : r.rows) {
    std::vector<std::string> line{printable(row.row.name)};
    for (const Column& c : r.columns) line.push_back(text_value(c, column_value(c, row.results)));
    cells.push_back(std::move(line));
  }
  std::vector<std::string> total{"[total]"};
  for (const Column& c : r.columns) total.push_back(text_value(c, column_value(c, r.totals)));
  cells.push_back(total);
  std::vector<std::size_t> width(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) {
    width[i] = header[i].size();
    for (const auto& line : cells) width[i] = std::max(width[i], line[i].size());
  }
  width[0] = std::min<std::size_t>(width[0], 60);
  auto print_line = [&](const std::vector<std::string>& line) {
    std::string name = line[0];
    if (name.size() > width[0]) {
      // Cut at a character's start, not inside its UTF-8 bytes.
      std::size_t cut = width[0] - 3;
      while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
      name = name.substr(0, cut) + "...";
    }
    fmt::print("{:<{}}", name, width[0]);
    for (std::size_t i = 1; i < line.size(); ++i) fmt::print("  {:>{}}", line[i], width[i]);
    fmt::print("\n");
  };
  print_line(header);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i + 1 == cells.size()) {
      std::size_t all = width[0];
      for (std::size_t w = 1; w < width.size(); ++w) all += 2 + width[w];
      fmt::print("{}\n", std::string(all, '-'));
    }
    print_line(cells[i]);
  }

  // Estimates of the count columns, over the whole report and per row.
  fmt::print("\nEstimated ops (samples x period, 95% interval):\n");
  for (const Column& c : r.columns) {
    if (!c.event || c.sums()) continue;
    const QueryResult& q = r.totals[*c.event];
    const UnitPeriod& p = period_of(r, *c.event);
    if (!q.available || p.value == 0) {
      fmt::print("  {} {}: n/a\n", c.id, c.title);
      continue;
    }
    const Estimate e = estimate_from_samples(q.count, p.value);
    fmt::print("  {} {}: {} samples -> {} {} [{}, {}]\n", c.id, c.title, q.count, human(e.value), p.unit, human(e.low),
               human(e.high));
    if (!estimates) continue;
    for (const RowResult& row : r.rows) {
      const QueryResult& rq = row.results[*c.event];
      if (!rq.available || rq.count == 0) continue;
      const Estimate re = estimate_from_samples(rq.count, p.value);
      fmt::print("      {}: {} [{}, {}]\n", printable(row.row.name), human(re.value), human(re.low), human(re.high));
    }
  }
  fmt::print("{}\n", estimate_note);
  for (const Column& c : r.columns)
    if (c.ratio) fmt::print("{}: {}\n", c.ratio->id, c.ratio->definition);
}

void print_csv(const ReportResult& r) {
  std::vector<std::string> header{r.by};
  if (r.by != "process" && r.by != "module") header.push_back("module");
  for (const Column& c : r.columns) header.push_back(c.id);
  if (!r.emulated.empty()) header.emplace_back("capture");  // every row says it
  fmt::print("{}\n", fmt::join(header, ","));
  auto line = [&](const std::string& name, const std::string& module, const std::vector<QueryResult>& results) {
    std::vector<std::string> cells{csv_field(printable(name))};
    if (r.by != "process" && r.by != "module") cells.push_back(csv_field(printable(module)));
    for (const Column& c : r.columns) cells.push_back(csv_value(c, column_value(c, results)));
    if (!r.emulated.empty()) cells.push_back(csv_field(r.emulated));
    fmt::print("{}\n", fmt::join(cells, ","));
  };
  for (const RowResult& row : r.rows) line(row.row.name, row.row.module, row.results);
  line("[total]", "", r.totals);
}

void print_json(const ReportResult& r) {
  json j;
  j["file"] = r.file;
  j["emulated"] = r.emulated.empty() ? json(nullptr) : json(r.emulated);
  j["cpu"] = {{"vendor", r.cpu.vendor}, {"family", r.cpu.family}, {"model", r.cpu.model},
              {"stepping", r.cpu.stepping}, {"source", r.cpu_source}};
  j["samples"] = {{"fetch", r.fetch}, {"op", r.op}};
  j["samples_read"] = {{"fetch", r.read_fetch}, {"op", r.read_op}, {"not_ibs", r.other_samples}};
  j["period"] = {{"fetch", period_json(r.fetch_period)}, {"op", period_json(r.op_period)}};
  j["filters"] = r.filters;
  j["where"] = r.where.empty() ? json(nullptr) : json(r.where);
  if (!r.where.empty()) j["where_undecided"] = r.where_undecided;

  const auto table = derived_event_table();
  json events = json::object(), counts = json::object(), estimates = json::object();
  for (std::size_t i = 0; i < table.size(); ++i) {
    const std::string id = amd_ibs::select_string(table[i].select);
    const QueryResult& q = r.totals[i];
    const bool sums = !table[i].sums.empty();
    events[id] = q.available ? json(sums ? q.total : q.count) : json(nullptr);
    counts[id] = q.available ? json(q.count) : json(nullptr);
    if (!sums) estimates[id] = estimate_json(q, period_of(r, i));
  }
  j["events"] = std::move(events);
  j["event_samples"] = std::move(counts);
  json ratios = json::object();
  for (const RatioSpec& ratio : ratio_table()) {
    const Column c{std::string(ratio.id), std::string(ratio.title), std::nullopt, &ratio};
    ratios[std::string(ratio.id)] = json_value(c, column_value(c, r.totals));
  }
  j["ratios"] = std::move(ratios);
  j["estimates"] = std::move(estimates);
  j["estimate_note"] = estimate_note;

  j["by"] = r.by;
  json columns = json::array();
  for (const Column& c : r.columns) columns.push_back({{"id", c.id}, {"title", c.title}});
  j["columns"] = std::move(columns);
  j["sort"] = r.sort.id;
  j["row_count"] = r.row_count;
  json rows = json::array();
  for (const RowResult& row : r.rows) {
    json jr;
    jr["name"] = row.row.name;
    if (r.by == "process") jr["pid"] = row.row.pid;
    else jr["module"] = row.row.module;
    if (row.row.has_offset) jr["offset"] = fmt::format("{:#x}", row.row.offset);
    json values = json::object(), row_estimates = json::object();
    for (const Column& c : r.columns) {
      values[c.id] = json_value(c, column_value(c, row.results));
      if (c.event && !c.sums()) row_estimates[c.id] = estimate_json(row.results[*c.event], period_of(r, *c.event));
    }
    jr["values"] = std::move(values);
    jr["estimates"] = std::move(row_estimates);
    rows.push_back(std::move(jr));
  }
  j["rows"] = std::move(rows);
  j["skipped"] = {{"count", r.skipped.count},
                  {"first_offset", r.skipped.count ? json(r.skipped.first_offset) : json(nullptr)},
                  {"first_reason", r.skipped.count ? json(r.skipped.first_reason) : json(nullptr)}};
  j["truncated"] = r.truncated;
  j["unread_bytes"] = r.unread_bytes;
  j["resyncs"] = r.resyncs;
  j["shrunk_to"] = r.shrunk_to ? json(*r.shrunk_to) : json(nullptr);
  j["damaged_features"] = r.damaged_features;
  j["lost"] = r.lost;
  j["warnings"] = r.warnings;
  print_json(j);
}

}  // namespace tagop::cli
