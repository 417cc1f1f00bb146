// tagop report --source: the store's report as a table or JSON.

#include "store_output.hpp"

#include <algorithm>  // std::stable_sort
#include <cmath>      // std::llround

#include <fmt/format.h>       // fmt::format
#include <nlohmann/json.hpp>  // ordered_json

#include <tagop/error.hpp>      // Error
#include <tagop/predicate.hpp>  // Predicate

#include "output.hpp"

namespace tagop::cli {

namespace {

using nlohmann::ordered_json;

// Share of an event's periods, as the local report's (report_output.cpp).
double share(const QueryResult& part, const QueryResult& whole) {
  return whole.total ? 100.0 * static_cast<double>(part.total) / static_cast<double>(whole.total) : 0.0;
}

std::optional<double> average(const std::optional<report::MeasureSum>& m) {
  if (!m || !m->samples) return std::nullopt;
  return static_cast<double>(m->sum) / static_cast<double>(m->samples);
}

std::string keys_name(const report::StoreReportOptions& options) {
  if (options.keys.empty()) return std::string(report::name_of(options.by));
  std::string out;
  for (const report::StoreKey& k : options.keys) out += (out.empty() ? "" : ",") + report::store_key_name(k);
  return out;
}

// perf's events of a row: as the local report's "events" entries.
ordered_json event_entries(const report::StoreReport& r, const std::vector<QueryResult>& results,
                           const std::vector<std::optional<report::MeasureSum>>& latency = {}) {
  ordered_json out = ordered_json::object();
  for (std::size_t e = 0; e < r.query_names.size(); ++e) {
    ordered_json& entry = out[r.query_names[e]];
    entry["samples"] = results[e].count;
    entry["period"] = results[e].total;
    entry["percent"] = share(results[e], r.totals[e]);
    if (const auto a = average(e < latency.size() ? latency[e] : std::nullopt)) entry["load_latency"] = *a;
  }
  return out;
}

}  // namespace

void choose_store_samples(report::StoreReportOptions& options, const StoreSelection& selection) {
  options.host = selection.host;
  options.since = selection.since;
  options.until = selection.until;
  const std::string& backend = selection.backend;
  if (backend.empty()) options.backend = report::StoreBackend::automatic;
  else if (backend == "amd-ibs") options.backend = report::StoreBackend::ibs;
  else if (backend == "perf") options.backend = report::StoreBackend::events;
  else usage_error(fmt::format("--backend '{}': amd-ibs (the samples of IBS captures) or perf (of the others)", backend));
  if (selection.where.empty()) return;
  try {
    options.where = Predicate::parse(selection.where);
  } catch (const Error& e) {
    usage_error(fmt::format("--where: {}", e.what()));
  }
}

void print_store_report(const report::StoreReport& r, const report::StoreReportOptions& options,
                        const std::vector<report::Column>& columns, const report::Column& sort, const StorePrint& how) {
  // Highest first by the sort column, then by name: the local report's order.
  std::vector<std::size_t> order(r.rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  // With --children, by the values with the callees', as the local report.
  const auto key = [&](std::size_t i) {
    const report::StoreRow& row = r.rows[i];
    return report::column_value(sort, row.children.empty() ? row.results : row.children).value_or(-1);
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) > key(b); });
  if (how.top && order.size() > how.top) order.resize(how.top);
  const auto number = [](const report::Column& c, const std::optional<double>& v) -> ordered_json {
    if (!v) return nullptr;
    if (c.ratio) return *v;
    return static_cast<std::uint64_t>(std::llround(*v));
  };
  const std::string by = keys_name(options);
  if (how.json) {
    ordered_json doc;
    doc["source"] = how.source;
    doc["by"] = by;
    doc["ibs"] = r.ibs;
    if (!options.host.empty()) doc["host"] = options.host;
    if (!options.since.empty()) doc["since"] = options.since;
    if (!options.until.empty()) doc["until"] = options.until;
    if (options.where) doc["where"] = options.where->to_string();
    doc["sort"] = sort.id;
    if (!r.ibs) {
      doc["events"] = r.query_names;
      std::uint64_t samples = 0;
      for (const QueryResult& q : r.totals) samples += q.count;
      doc["samples"] = samples;
      if (options.where) doc["where_undecided"] = r.where_undecided;
      doc["event_totals"] = event_entries(r, r.totals, r.load_latency);
    }
    doc["row_count"] = r.rows.size();
    if (r.ibs) {
      ordered_json& totals = doc["totals"] = ordered_json::object();
      for (const report::Column& c : columns) totals[c.id] = number(c, report::column_value(c, r.totals));
    }
    ordered_json& rows = doc["rows"] = ordered_json::array();
    for (std::size_t i : order) {
      const report::StoreRow& row = r.rows[i];
      ordered_json j;
      j["name"] = row.name;
      if (!row.parts.empty()) j["parts"] = row.parts;
      if (!row.module.empty()) j["module"] = row.module;
      if (r.ibs) {
        ordered_json& values = j["values"] = ordered_json::object();
        for (const report::Column& c : columns) values[c.id] = number(c, report::column_value(c, row.results));
      } else {
        std::uint64_t samples = 0;
        for (const QueryResult& q : row.results) samples += q.count;
        j["samples"] = samples;
        j["events"] = event_entries(r, row.results, row.load_latency);
        if (options.children) j["children"] = event_entries(r, row.children);
      }
      rows.push_back(std::move(j));
    }
    print_json(doc);
    return;
  }
  fmt::print("{}: {} rows by {}{}{}\n", how.source, r.rows.size(), by,
             r.where_sql.empty() ? "" : fmt::format(" where {}", r.where_sql),
             r.ibs ? "" : ", each event by period as perf report counts them");
  if (!r.ibs && options.where)
    fmt::print("{} samples undecided (their data sources do not tell)\n", r.where_undecided);
  if (!r.ibs) {
    // As the local report's table: each event's share of its periods,
    // its samples, and perf mem's average load latency.
    std::string head;
    std::vector<bool> latency(r.query_names.size());
    for (std::size_t e = 0; e < r.query_names.size(); ++e) {
      latency[e] = r.load_latency[e].has_value();
      head += fmt::format(" {:>20}{} {:>10}{}", printable(r.query_names[e]) + (options.children ? " children" : " overhead"),
                          options.children ? fmt::format(" {:>8}", "self") : "", "samples",
                          latency[e] ? fmt::format(" {:>16}", "avg load latency") : "");
    }
    fmt::print("{}  {}\n", head, by);
    for (std::size_t i : order) {
      const report::StoreRow& row = r.rows[i];
      std::string line;
      for (std::size_t e = 0; e < r.query_names.size(); ++e) {
        if (options.children)
          line += fmt::format(" {:>19.2f}% {:>7.2f}% {:>10}", share(row.children[e], r.totals[e]),
                              share(row.results[e], r.totals[e]), row.results[e].count);
        else
          line += fmt::format(" {:>19.2f}% {:>10}", share(row.results[e], r.totals[e]), row.results[e].count);
        if (!latency[e]) continue;
        const auto a = average(row.load_latency[e]);
        line += a ? fmt::format(" {:>16.1f}", *a) : fmt::format(" {:>16}", "-");
      }
      fmt::print("{}  {}\n", line, printable(row.name));
    }
    return;
  }
  std::string head = fmt::format("{:>14}", "");
  for (const report::Column& c : columns) head += fmt::format(" {:>12}", c.id);
  fmt::print("{}  {}\n", head, by);
  for (std::size_t i : order) {
    std::string line = fmt::format("{:>14}", "");
    for (const report::Column& c : columns) {
      const std::optional<double> v = report::column_value(c, r.rows[i].results);
      line += !v ? fmt::format(" {:>12}", "n/a") : c.ratio ? fmt::format(" {:>12.4f}", *v) : fmt::format(" {:>12}", std::llround(*v));
    }
    fmt::print("{}  {}\n", line, printable(r.rows[i].name));
  }
}

}  // namespace tagop::cli
