// tagop report --source: the store's report as a table or JSON.

#include "store_output.hpp"

#include <algorithm>  // std::find
#include <cmath>      // std::llround

#include <fmt/format.h>       // fmt::format
#include <nlohmann/json.hpp>  // ordered_json

#include <tagop/error.hpp>      // Error
#include <tagop/report/export.hpp>  // ExportTarget
#include <tagop/predicate.hpp>  // Predicate

#include <tagop/amd_ibs/derived_events.hpp>  // derived_event_table

#include "output.hpp"
#include "report_output.hpp"   // the local report's table and words
#include "report_records.hpp"  // EstimateRecord, UnitPeriodRecord

namespace tagop::cli {

namespace {

using nlohmann::ordered_json;

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
    entry["percent"] = period_share(results[e], r.totals[e]);
    if (const auto a = average(e < latency.size() ? latency[e] : std::nullopt)) entry["load_latency"] = *a;
  }
  return out;
}

// The rows' keys as the local report's table names them: "source line",
// "host, function".
std::string keys_title(const report::StoreReportOptions& options) {
  std::string out;
  const std::vector<report::StoreKey> keys = options.keys.empty() ? std::vector<report::StoreKey>{options.by} : options.keys;
  for (const report::StoreKey& k : keys)
    out += (out.empty() ? "" : ", ") + (k == report::StoreKey{report::GroupBy::line}        ? std::string("source line")
                                        : k == report::StoreKey{report::GroupBy::callchain} ? std::string("call chain")
                                                                                            : report::store_key_name(k));
  return out;
}

// An IBS estimate as the local report's JSON has it (EstimateRecord).
ordered_json estimate_json(const std::optional<report::StoreEstimate>& e) {
  if (!e) return nullptr;
  return record::to_json(EstimateRecord{e->samples, e->estimate.value, e->estimate.low, e->estimate.high, e->unit});
}

ordered_json period_json(const report::UnitPeriod& p) {
  if (p.value == 0) return nullptr;
  return record::to_json(UnitPeriodRecord{p.value, p.unit, p.source});
}

// IBS: the local report's JSON fields of the totals (period, estimates)
// and of each row (overhead, values, estimates), as report_output.cpp's
// IbsReport and IbsReportRow.
void ibs_json(const report::StoreReport& r, const std::vector<report::Column>& columns, ordered_json& doc) {
  ordered_json& period = doc["period"] = ordered_json::object();
  for (std::size_t u = 0; u < 2; ++u) {
    const auto p = report::store_shared_period(r, u);
    period[u == 0 ? "fetch" : "op"] = p ? period_json(*p) : ordered_json(nullptr);
  }
  ordered_json& captures = doc["captures"] = ordered_json::array();
  for (const report::StoreCapturePeriods& c : r.captures)
    captures.push_back({{"capture", c.capture}, {"period", {{"fetch", period_json(c.units[0])}, {"op", period_json(c.units[1])}}}});
  ordered_json& estimates = doc["estimates"] = ordered_json::object();
  const auto table = amd_ibs::derived_event_table();
  for (std::size_t q = 0; q < table.size() && q < r.estimates.size(); ++q)
    if (table[q].sums.empty()) estimates[r.query_names[q]] = estimate_json(r.estimates[q]);
  ordered_json& biased = doc["estimates_biased"] = ordered_json::object();
  for (std::size_t q = 0; q < r.estimate_bias.size(); ++q)
    if (table[q].sums.empty() && !r.estimate_bias[q].empty()) biased[r.query_names[q]] = r.estimate_bias[q];
  // As the local report's: each derived event some samples left undecided,
  // with the reasons.
  ordered_json& undecided = doc["undecided"] = ordered_json::object();
  for (std::size_t q = 0; q < table.size() && q < r.totals.size(); ++q)
    if (r.totals[q].undecided)
      undecided[r.query_names[q]] = record::to_json(UndecidedRecord{
          r.totals[q].undecided, q < r.undecided_reasons.size() ? r.undecided_reasons[q] : std::vector<std::string>{}});
  doc["estimate_note"] = report_estimate_note;
  ordered_json& list = doc["columns"] = ordered_json::array();
  for (const report::Column& c : columns) list.push_back({{"id", c.id}, {"title", c.title}});
}

// IBS: the local report's text (report_output.cpp's ibs_text): the
// samples and periods, the table (Overhead and the columns, the total
// under a rule), the estimates of the count columns (each row's with
// --estimates), the note and the ratios' definitions.
// --by cacheline, after the rest: the shown rows' lines with perf c2c's
// counts, as the local report prints them; or why the store has none.
void print_store_lines(const report::StoreReport& r, const report::StoreReportOptions& options,
                       const std::vector<std::size_t>& order, const StorePrint& how) {
  if (!r.lines_unknown.empty()) {
    fmt::print("\nNo perf c2c counts: {}\n", r.lines_unknown);
    return;
  }
  if (std::none_of(r.rows.begin(), r.rows.end(), [](const report::StoreRow& row) { return row.line.has_value(); }))
    return;
  print_line_details(keys_title(options), order.size(), [&](std::size_t i) {
    return std::pair{r.rows[order[i]].name, r.rows[order[i]].line};
  }, how.name_width);
}

void print_ibs_text(const report::StoreReport& r, const report::StoreReportOptions& options,
                    const std::vector<report::Column>& columns, const report::Column& sort, const StorePrint& how,
                    const std::vector<std::size_t>& order) {
  const std::string by = keys_title(options);
  const auto count = [&](std::uint16_t select) { return r.totals[*report::resolve_column(fmt::format("0x{:04X}", select)).event].count; };
  fmt::print("IBS report of the store at {}\n", printable(how.source));
  fmt::print("IBS samples: {} fetch, {} op", count(0xF000), count(0xF100));
  if (!r.where_sql.empty()) fmt::print(" where {}", printable(r.where_sql));
  fmt::print(" in {} capture{}\n", r.captures.size(), r.captures.size() == 1 ? "" : "s");
  for (std::size_t u = 0; u < 2; ++u) {
    const char* name = u == 0 ? "fetch" : "op";
    if (const auto p = report::store_shared_period(r, u)) {
      fmt::print("{} period: {:.0f} {} ({})\n", name, p->value, p->unit, p->source);
      continue;
    }
    for (const report::StoreCapturePeriods& c : r.captures)
      if (c.units[u].value != 0)
        fmt::print("{} period of capture {}: {:.0f} {} ({})\n", name, c.capture, c.units[u].value, c.units[u].unit,
                   c.units[u].source);
  }
  // With --children, each row's values with its callees', and its own
  // share beside (Self), as the local report's.
  const bool children = options.children;
  const auto shown = [&](const report::StoreRow& row) -> const std::vector<QueryResult>& {
    return children && !row.children.empty() ? row.children : row.results;
  };
  fmt::print("\n{} rows by {}{}, sorted by {} ({}){}\n\n", r.rows.size(), by,
             order.size() < r.rows.size() ? fmt::format(", the first {}", order.size()) : "", printable(sort.id),
             sort.title, children ? ", each with its callees' samples (--children)" : "");
  std::vector<std::string> header{keys_title(options), children ? "Children" : "Overhead"};
  if (children) header.push_back("Self");
  for (const report::Column& c : columns) header.push_back(c.title);
  const auto cells = [&](const std::string& name, const std::vector<QueryResult>& results,
                         const std::vector<QueryResult>& self) {
    std::vector<std::string> line{name, fmt::format("{:.2f}%", report::store_overhead(r, results))};
    if (children) line.push_back(fmt::format("{:.2f}%", report::store_overhead(r, self)));
    for (const report::Column& c : columns) line.push_back(report_text_value(c, report::store_value(r, c, results)));
    return line;
  };
  print_report_table(
      header, order.size(),
      [&](std::size_t i) { return cells(r.rows[order[i]].name, shown(r.rows[order[i]]), r.rows[order[i]].results); },
      cells("[total]", r.totals, r.totals), how.name_width);

  fmt::print("\nEstimated ops (samples x period, 95% interval{}):\n",
             r.captures.size() > 1 ? "; each capture's samples by its own period" : "");
  for (const report::Column& c : columns) {
    if (!c.event || c.sums()) continue;
    const std::optional<report::StoreEstimate>& e = r.estimates.at(*c.event);
    if (!r.estimate_bias.at(*c.event).empty()) {
      const char* unit = amd_ibs::derived_event_table()[*c.event].unit == amd_ibs::IbsUnit::fetch ? "fetch" : "op";
      fmt::print("  {} {}: n/a, the {} filter sampled only some of its {}s\n", c.id, c.title, unit, unit);
      continue;
    }
    if (!e) {
      fmt::print("  {} {}: n/a\n", c.id, c.title);
      continue;
    }
    const QueryResult& q = r.totals[*c.event];
    fmt::print("  {} {}: {} samples -> {} {} [{}, {}]{}\n", c.id, c.title, e->samples, report_human(e->estimate.value),
               e->unit, report_human(e->estimate.low), report_human(e->estimate.high),
               q.undecided ? fmt::format(", and {} undecided samples (below)", q.undecided) : "");
    if (!how.estimates) continue;
    for (std::size_t i : order) {
      const report::StoreRow& row = r.rows[i];
      const std::optional<report::StoreEstimate>& re =
          (children && !row.children.empty() ? row.children_estimates : row.estimates).at(*c.event);
      if (!re || re->samples == 0) continue;
      fmt::print("      {}: {} [{}, {}]\n", printable(row.name), report_human(re->estimate.value),
                 report_human(re->estimate.low), report_human(re->estimate.high));
    }
  }
  fmt::print("{}\n", report_estimate_note);
  for (const report::Column& c : columns)
    if (c.ratio)
      fmt::print("{}: {}{}\n", c.ratio->id, c.ratio->definition,
                 report::store_value(r, c, r.totals) || !report::column_value(c, r.totals)
                     ? ""
                     : " (n/a: the filter sampled only some of its ops)");
  print_undecided(columns, r.totals, [&](std::size_t q) {
    return q < r.undecided_reasons.size() ? r.undecided_reasons[q] : std::vector<std::string>{};
  });
  print_store_lines(r, options, order, how);
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

void write_store_page(const report::StoreReport& r, const report::StoreReportOptions& options,
                      const std::vector<report::Column>& columns, const report::Column& sort, const StorePage& how,
                      const std::string& path) {
  report::StorePageView view{.source = how.source, .columns = columns, .sort = sort, .top = how.top,
                             .percent_limit = how.percent_limit, .flame_top = how.flame_top,
                             .row_title = keys_title(options), .max_values = how.max_values};
  if (!options.host.empty()) view.filters.push_back("host " + options.host);
  if (!options.since.empty()) view.filters.push_back("taken since " + options.since);
  if (!options.until.empty()) view.filters.push_back("taken until " + options.until);
  if (options.where) view.where = options.where->to_string();
  // The flame graph's stacks, as a local page's: rows by call chain where
  // the samples have chains, else by function; `r` itself where it is by them.
  const profiles::ClickHouseServer server(how.source);
  const std::vector<report::StoreKey> stacks_key{
      report::store_has_call_chains(server, options) ? report::GroupBy::callchain : report::GroupBy::function};
  std::optional<report::StoreReport> other;
  if (options.keys != stacks_key || options.children) {
    report::StoreReportOptions s = options;
    s.keys = stacks_key;
    s.children = false;
    s.by_process = false;
    s.backend = r.ibs ? report::StoreBackend::ibs : report::StoreBackend::events;
    other.emplace(report::store_report(server, s));
  }
  report::ExportTarget page(path);
  report::write_store_html(r, other ? *other : r, view, page.stream());
  page.commit();
}

void print_store_report(const report::StoreReport& r, const report::StoreReportOptions& options,
                        const std::vector<report::Column>& columns, const report::Column& sort, const StorePrint& how) {
  // Highest first by the sort column, then by name: the local report's order.
  const std::vector<std::size_t> order = report::store_row_order(r, sort, how.top, how.percent_limit);
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
    if (!r.lines_unknown.empty()) doc["cache_lines_unknown"] = r.lines_unknown;
    if (r.ibs) {
      ordered_json& totals = doc["totals"] = ordered_json::object();
      for (const report::Column& c : columns) totals[c.id] = number(c, report::store_value(r, c, r.totals));
      ibs_json(r, columns, doc);
    }
    ordered_json& rows = doc["rows"] = ordered_json::array();
    for (std::size_t i : order) {
      const report::StoreRow& row = r.rows[i];
      ordered_json j;
      j["name"] = row.name;
      if (!row.parts.empty()) j["parts"] = row.parts;
      if (!row.module.empty()) j["module"] = row.module;
      if (row.pid) j["pid"] = *row.pid;
      if (row.line) j["cache_line"] = record::to_json(cache_line_record(*row.line));
      if (r.ibs) {
        // Made apart: a reference into an ordered_json's members moves when one is added.
        // With --children, the values with the callees', as the local report's.
        const bool children = options.children && !row.children.empty();
        const auto& shown = children ? row.children : row.results;
        const auto& shown_estimates = children ? row.children_estimates : row.estimates;
        ordered_json values = ordered_json::object(), estimates = ordered_json::object();
        for (const report::Column& c : columns) {
          values[c.id] = number(c, report::store_value(r, c, shown));
          if (c.event && !c.sums()) estimates[c.id] = estimate_json(shown_estimates.at(*c.event));
        }
        j["overhead"] = report::store_overhead(r, row.results);
        if (options.children) j["children"] = report::store_overhead(r, shown);
        j["values"] = std::move(values);
        j["estimates"] = std::move(estimates);
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
  if (r.ibs) return print_ibs_text(r, options, columns, sort, how, order);
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
          line += fmt::format(" {:>19.2f}% {:>7.2f}% {:>10}", period_share(row.children[e], r.totals[e]),
                              period_share(row.results[e], r.totals[e]), row.results[e].count);
        else
          line += fmt::format(" {:>19.2f}% {:>10}", period_share(row.results[e], r.totals[e]), row.results[e].count);
        if (!latency[e]) continue;
        const auto a = average(row.load_latency[e]);
        line += a ? fmt::format(" {:>16.1f}", *a) : fmt::format(" {:>16}", "-");
      }
      fmt::print("{}  {}\n", line, printable(row.name));
    }
    print_store_lines(r, options, order, how);
    return;
  }
}

}  // namespace tagop::cli
