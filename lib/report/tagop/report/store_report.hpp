#pragma once
// A report from the ClickHouse store (tagop ingest): the server tallies the
// samples of complete captures by a key and signature (tally_store), the
// embedded engine answers every IBS derived event of those tallies, so each
// row's numbers are those a local report of the same samples gives. What
// `tagop report --source URL` prints.
//
//   const profiles::ClickHouseServer server("http://127.0.0.1:8123");
//   const auto r = report::store_report(server, {.by = report::GroupBy::process, .host = "web-1"});
//   // r.rows[i].results[q]: derived event q (r.query_names[q], "0xF100" ...)
//
// Thread safety: each call uses its own connection.

#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/api.hpp>                  // TAGOP_API
#include <tagop/engine.hpp>               // QueryResult
#include <tagop/predicate.hpp>            // Predicate
#include <tagop/profiles/clickhouse.hpp>  // ClickHouseServer
#include <tagop/report/ingest.hpp>        // IngestOptions
#include <tagop/report/report.hpp>        // GroupBy

namespace tagop TAGOP_API {
namespace report {

/// What to report from the store.
struct StoreReportOptions {
  /// The rows: function, module (its file name), process (by pid), thread
  /// (tid), cpu, line (file:line), data (the data object);
  /// others throw tagop::Error (store_key_column).
  GroupBy by = GroupBy::function;
  /// Only the samples of this machine ("": every host).
  std::string host{};
  /// Only captures ingested at or after this time, as ClickHouse reads a
  /// date and time ("2026-11-20", "2026-11-20 08:00:00"); "": all.
  std::string since{};
  /// Only samples that meet this predicate (as a local report's --where),
  /// asked of the store as predicate_sql().
  std::optional<Predicate> where{};
  /// The tables (IngestOptions::table, captures_table).
  IngestOptions tables{};
};

/// One row: its key's value and one result per derived event.
struct StoreRow {
  std::string name;                  ///< the key's value: a function, a module, a pid ...
  std::vector<QueryResult> results;  ///< by StoreReport::query_names
};

/// A report of the store: rows in the key's order (as the server sorted them).
struct StoreReport {
  std::vector<std::string> query_names;  ///< the derived events' select values, "0xF000" ...
  std::vector<QueryResult> totals;       ///< over every row
  std::vector<StoreRow> rows;            ///< one per distinct key value
  std::string where_sql;                 ///< the condition sent (host, since, where)
};

/// The store's column (or expression) for a row key; throws tagop::Error
/// naming the keys it has for one the store cannot group by (address,
/// callchain, cacheline).
std::string store_key_column(GroupBy by);

/// The SQL condition of the options' host, since and where ("" for none).
std::string store_report_where_sql(const StoreReportOptions& options);

/// Tallies the store (tally_store) and answers every IBS derived event
/// (amd_ibs::derived_event_queries()) of each row and of all. Throws
/// tagop::Error as tally_store, or for a key the store lacks.
StoreReport store_report(const profiles::ClickHouseServer& server, const StoreReportOptions& options = {});

}  // namespace report
}  // namespace tagop
