// The report from the store: tally_store's tallies, answered by the engine.

#include <tagop/report/store_report.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/derived_events.hpp>  // derived_event_queries, derived_event_table
#include <tagop/error.hpp>                   // Error
#include <tagop/profiles/store.hpp>          // predicate_sql, store_captures_table_name

namespace tagop::report {

namespace {

// A ClickHouse string literal: quotes and backslashes escaped.
std::string quoted(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

}  // namespace

std::string store_key_column(GroupBy by) {
  switch (by) {
    case GroupBy::function: return "function";
    // The file's name without its folder, as a local report names a module.
    case GroupBy::module: return "replaceRegexpOne(module, '^.*/', '')";
    case GroupBy::process: return "pid";
    case GroupBy::thread: return "tid";
    case GroupBy::cpu: return "cpu";
    // Named at ingest as the local report names its rows by line and data.
    case GroupBy::line: return "line";
    case GroupBy::data: return "data_object";
    default: break;
  }
  throw Error(fmt::format("--by {}: the store's rows are by function, module, process, thread, cpu, line or data "
                          "(the store keeps each sample's names, not its address, cache line or call chain's rows)",
                          name_of(by)));
}

std::string store_report_where_sql(const StoreReportOptions& options) {
  std::vector<std::string> parts;
  if (!options.host.empty()) parts.push_back(fmt::format("host = {}", quoted(options.host)));
  if (!options.since.empty()) {
    const std::string& captures =
        options.tables.captures_table.empty() ? profiles::store_captures_table_name() : options.tables.captures_table;
    parts.push_back(fmt::format("capture IN (SELECT capture FROM {} WHERE ingested >= parseDateTimeBestEffort({}))",
                                captures, quoted(options.since)));
  }
  if (options.where) parts.push_back(fmt::format("({})", profiles::predicate_sql(*options.where)));
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : " AND ") + p;
  return out;
}

StoreReport store_report(const profiles::ClickHouseServer& server, const StoreReportOptions& options) {
  StoreReport out;
  out.where_sql = store_report_where_sql(options);
  const StoreTallies tallies = tally_store(server, store_key_column(options.by), out.where_sql, options.tables);
  const std::span<const Query> queries = amd_ibs::derived_event_queries();
  for (const auto& e : amd_ibs::derived_event_table()) out.query_names.push_back(amd_ibs::select_string(e.select));
  out.totals = tallies.tallies.evaluate(queries);
  std::vector<std::vector<QueryResult>> by_row = tallies.tallies.evaluate_by_row(queries);
  for (std::size_t row = 0; row < tallies.rows.size(); ++row)
    out.rows.push_back({tallies.rows[row], row < by_row.size() ? std::move(by_row[row]) : std::vector<QueryResult>(queries.size())});
  return out;
}

}  // namespace tagop::report
