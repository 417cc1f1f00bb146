#pragma once
// Ingest: a capture's samples into a ClickHouse store (tagop/profiles/
// store.hpp), one row per sample (a sample that read its group's counters,
// PERF_SAMPLE_READ, a row per counter that moved, its period how far it
// moved, as the local report counts it): the model's conditions, observed bits and
// measures (IBS samples decoded; a `perf mem` sample's data source read as
// conditions, its weight as mem.load_latency), the event and its period,
// the function and module of the address, the call chain, and the
// capture's host and processor. Each sample is named as `tagop report`
// names it: by the mappings of its time (a sample perf wrote before its
// process's MMAP record too) and the same symbol sources (the kernel's
// functions too). What `tagop ingest URL FILE...` does.
// Beside the rows, each distinct (pid, address) of the samples and of their
// call chains is named once, as a local report's rows by function name a
// chain's frames, into the frames' table (profiles::store_frames_table_name):
// what a report by call chain, --children and the exports read.
//
//   const profiles::ClickHouseServer server("http://127.0.0.1:8123");
//   report::create_store_tables(server);
//   report::ingest_capture("perf.data", server, {});
//
// All or none: a capture's rows go in one INSERT, streamed in batches (the
// memory is one batch's, whatever the capture's size), and its identity
// goes into the captures' table only after the INSERT succeeded; reports
// read only the rows of captures listed there. A capture listed already is
// skipped (ingesting it twice does not double it); one whose rows are there
// without its listing (an INSERT that broke half-way) is refused with the
// statement that removes them.
//
// Thread safety: each call uses its own reader and connection.

#include <cstdint>     // std::uint64_t
#include <functional>  // std::function
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <tagop/api.hpp>                  // TAGOP_API
#include <tagop/cpu.hpp>                  // CpuId
#include <tagop/engine.hpp>               // Aggregator
#include <tagop/kernel_symbols.hpp>       // KernelSymbolSearch
#include <tagop/profiles/clickhouse.hpp>  // ClickHouseServer

namespace tagop TAGOP_API {
namespace report {

/// The format of an INSERT's rows.
enum class RowFormat {
  /// ClickHouse's Native: blocks of columns, read by the server without
  /// parsing (profiles::StoreBlockWriter); the default, the fastest.
  native,
  /// TabSeparated text, a line a row (profiles::StoreRowWriter): for a
  /// proxy or tool between tagop and the server that reads the rows.
  tab_separated,
};

/// How to ingest.
struct IngestOptions {
  /// The machine's name in the store; "" for the capture's own (perf's
  /// HEADER_HOSTNAME).
  std::string host{};
  /// The processor, when the capture's HEADER_CPUID is missing or wrong.
  std::optional<CpuId> cpu{};
  /// Rows per chunk sent (the memory the ingest holds): a Native block each.
  std::size_t batch_rows = 65536;
  /// The rows' format in the INSERT.
  RowFormat format = RowFormat::native;
  /// Called every few tens of MiB with the data bytes read and their total.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress{};
  /// The samples' table ("": profiles::store_table_name()).
  std::string table{};
  /// The captures' table ("": profiles::store_captures_table_name()).
  std::string captures_table{};
  /// Where the samples' functions, lines and data objects are looked for,
  /// as `tagop report` looks (report::capture_symbol_sources()): the
  /// kernel's symbols (--kallsyms, --vmlinux; by default this machine's
  /// /proc/kallsyms when it runs the recorded kernel, else perf's build-id
  /// cache) and, by its `files` (--symfs, the build-id cache), the ELF
  /// files. An empty `os_release` is the capture's.
  KernelSymbolSearch symbols{};
  /// The frames' table (store_frames_table(): "" for the samples' table's
  /// own): each distinct (pid, address) of the samples and their call
  /// chains, named once per capture, what reports by call chain read.
  std::string frames_table{};
};

/// The frames' table of `options`: its frames_table; else beside a named
/// samples' table, "<table>_frames"; else profiles::store_frames_table_name().
std::string store_frames_table(const IngestOptions& options);

/// What an ingest did.
struct IngestResult {
  std::uint64_t capture = 0;  ///< the capture's identity (profiles::capture_identity)
  std::uint64_t rows = 0;     ///< rows written (0 when skipped)
  bool skipped = false;       ///< the store holds this capture already
  /// Why some modules' samples have no function names, once per module
  /// (kernel symbols not found, a symbol file of another build-id), or a
  /// caveat of the symbols used, as the local report warns of them; and
  /// the damage its reading met (capture_damage()), which the captures'
  /// table keeps for report --source --strict.
  std::vector<std::string> warnings{};
};

/// Creates the store's tables where missing (samples, captures, frames),
/// and checks that the samples' and frames' tables, where they exist, have
/// this schema version's columns (else throws tagop::Error naming the
/// table and the first column that differs).
void create_store_tables(const profiles::ClickHouseServer& server, const IngestOptions& options = {});

/// A sharded store's reading side: creates database `cluster` on `server`,
/// holding the store's tables of `options` (samples, captures, frames) as
/// Distributed tables over the tables of the same names in the server's
/// own database (its URL's ?database=, else "default") on every shard of
/// the cluster of that name (the servers' remote_servers), sharded by
/// capture. A report or diff of that database reads every shard's
/// captures, call chains and their frames too (`tagop report --source
/// 'http://a:8123/?database=fleet'`). Captures are ingested to a shard's
/// own tables, never through the Distributed ones (their INSERTs are sent
/// on later, which would break a capture's all or none), so each capture's
/// rows, frames and captures' row are on one shard, and each shard answers
/// for its own. Creates this server's own tables first where missing;
/// every shard needs them (create_store_tables()). Throws tagop::Error for
/// a cluster's name that is not an identifier ([A-Za-z_][A-Za-z0-9_]*), or
/// that names the server's own database.
void create_cluster_store(const profiles::ClickHouseServer& server, std::string_view cluster,
                          const IngestOptions& options = {});

/// Ingests one capture (see the file's comment). Throws tagop::Error for a
/// file it cannot read, a server that refuses or cannot be reached, or a
/// capture half-written by an earlier ingest.
IngestResult ingest_capture(const std::string& path, const profiles::ClickHouseServer& server,
                            const IngestOptions& options = {});

/// A capture's rows as ingest_capture() sends them (the body of `INSERT
/// INTO tagop_samples_v2 FORMAT Native`, or TabSeparated as
/// options.format says), handed to `write` a batch at a time, without a
/// server: for clickhouse-client (`--query 'INSERT ... FORMAT Native' <
/// rows`), or to measure ingest's own work apart from the server's.
/// Returns the rows written. Throws tagop::Error for a file it cannot read.
std::uint64_t write_capture_rows(const std::string& path, const std::function<void(std::string_view)>& write,
                                 const IngestOptions& options = {});

/// The store's samples tallied by signature (engine.hpp): one row per
/// distinct value of a key column, each with its samples' count and measure
/// totals per (conditions, observed, measured). The server does the
/// GROUP BY; the engine then answers any predicate of the tallies exactly as
/// of a file's samples (Aggregator::evaluate_by_row), so the store's numbers
/// are the local report's, derived events, undecided and all.
struct StoreTallies {
  std::vector<std::string> rows;  ///< the key's values, by row index
  Aggregator tallies;             ///< rows as above
};

/// Tallies the samples of complete captures (listed in the captures'
/// table) whose rows meet `where_sql` (a condition over the store's
/// columns, "" for all: predicate_sql(), host = 'web-1' ...), by `key`
/// (a column or expression: "function", "pid", "host", "family").
/// `from`: the rows tallied, "" for the samples' table of `options`, else
/// an expression of it (a join that adds a column the key reads). Throws
/// as query().
StoreTallies tally_store(const profiles::ClickHouseServer& server, std::string_view key, std::string_view where_sql = {},
                         const IngestOptions& options = {}, std::string_view from = {});

/// The SELECT tally_store() sends.
std::string tally_store_sql(std::string_view key, std::string_view where_sql = {}, const IngestOptions& options = {},
                            std::string_view from = {});

}  // namespace report
}  // namespace tagop
