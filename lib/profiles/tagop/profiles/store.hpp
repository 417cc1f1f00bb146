#pragma once
// The store: samples of many machines' captures in ClickHouse, one row per
// sampled operation, and the model's predicates as SQL over its columns.
//
// The row is declared once (profiles/store_row_record.hpp); the table's DDL,
// the rows an ingest sends and the column names all come from it. A
// predicate compiles to a condition over the condition bit columns that
// decides it as the engine does (engine.hpp decide()): a sample is counted
// where it observed what a term asks and meets it, undecided where the
// answer depends on a condition it did not observe, so that a derived event
// asked of the store gives the count, total and undecided of the same
// samples in a file.
//
//   SELECT {count} AS count, {total} AS total, {undecided} AS undecided
//   FROM tagop_samples_v2            -- query_sql(Query{parse("load & dc.miss")})
//
// Every SQL feature used is in ClickHouse 18.16 (Debian 12's): bitAnd,
// bitNot, countIf, sumIf, groupBitOrIf, Enum8, Array(UInt64), MergeTree.
//
// Thread safety: free functions that only read their arguments; a
// StoreRowWriter is used from one thread.

#include <cstdint>      // std::uint32_t, std::uint64_t
#include <memory>       // std::unique_ptr
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/api.hpp>         // TAGOP_API
#include <tagop/engine.hpp>      // Query
#include <tagop/predicate.hpp>   // Predicate
#include <tagop/profiles/sample_lines.hpp>  // SampleSymbol
#include <tagop/sample.hpp>      // Sample

namespace tagop TAGOP_API {
namespace profiles {

/// The version of the store's row: a change of a column's name, type or
/// order makes a new one, and a new table (store_table_name()).
inline constexpr unsigned store_schema_version = 2;

/// "tagop_samples_v2": the table of this version's rows.
std::string store_table_name();

/// "tagop_captures_v2": one row per capture whose rows are all in: what
/// makes an ingest all or none (a report reads only captures listed here).
std::string store_captures_table_name();

/// "tagop_frames_v2": the names of the frames of each capture's call chains
/// (and of its sampled addresses), one row per distinct (capture, pid,
/// address): what a report by call chain, --children and the exports of
/// the store read (the samples' chain column holds addresses).
std::string store_frames_table_name();

/// One column of the store's row: its name and ClickHouse type.
struct StoreColumn {
  std::string name;         ///< "conditions_lo", "m_dc_miss_latency"
  std::string type;         ///< "UInt64", "String", "Array(UInt64)"
  std::string description;  ///< what it holds (the column's comment)
};

/// Every column, in the order a row holds them, from the declaration.
std::vector<StoreColumn> store_columns();

/// Every column of the frames' table, in order, from its declaration
/// (store_row_record.hpp StoreFrameRow).
std::vector<StoreColumn> store_frame_columns();

/// CREATE TABLE IF NOT EXISTS for the frames' table, generated from its
/// declaration: MergeTree ordered by (capture, pid, address).
std::string store_create_frames_table(std::string_view table);

/// One frame of a capture's call chains, named as a local report's row by
/// function names it: a row of the frames' table.
struct StoreFrame {
  std::uint64_t capture = 0;      ///< capture_identity() of its file
  std::uint32_t pid = 0;          ///< the process whose address it is
  std::uint64_t address = 0;      ///< a sampled ip or a return address
  std::string_view module{};      ///< the mapped file's path; "" where no mapping holds the address
  std::string_view function{};    ///< "main", "prog+0x1234", "[unknown]+0x5000"
  std::string_view symbol{};      ///< the function's symbol, not demangled ("_ZN2ns1fEi"); "" where no symbol holds the address
};

/// Appends one frame as a TabSeparated line of the frames' table
/// (`INSERT INTO tagop_frames_v2 FORMAT TabSeparated`).
void append_frame_row(const StoreFrame& frame, std::string& out);

/// The column of a measure: "m_" and its name with dots as underscores
/// ("dc.miss_latency" -> "m_dc_miss_latency").
std::string measure_column(Measure m);

/// CREATE TABLE IF NOT EXISTS for the samples' table, generated from the
/// declaration: MergeTree ordered by (host, capture, time).
std::string store_create_table(std::string_view table);

/// CREATE TABLE IF NOT EXISTS for a Distributed table `table` over the
/// tables `local_table` (of database `database`) on every shard of
/// `cluster` (remote_servers), with the samples' columns; rows go to a
/// shard by their capture (so a capture is on one shard, all or none).
std::string store_create_distributed_table(std::string_view table, std::string_view cluster,
                                           std::string_view database, std::string_view local_table);

/// The captures' table's columns, in order: capture, host, file, rows,
/// ingested, then what an IBS capture's estimates need of it, per unit
/// (fetch_, op_): its event's requested period (attr.sample_period, 0 when
/// by frequency) and its samples' MaxCnt x 16 (period_samples, _sum, _min,
/// _max), and whether its ops' IbsOpCntCtl counted dispatched ops
/// (op_counts_ops): report::PeriodSeen's fields, from which
/// report::unit_period() gives the local report's period; and each unit's
/// sampling filter (amd_ibs::SamplingFilter's population, as text, and
/// load latency), which says which counts no estimate follows from. 0 (and
/// '') for captures without IBS, and for captures ingested before these
/// columns were added.
std::vector<StoreColumn> store_captures_columns();

/// CREATE TABLE IF NOT EXISTS for the captures' table
/// (store_captures_columns()), MergeTree.
std::string store_create_captures_table(std::string_view table);

/// The SQL conditions of one predicate (and measure) over the store's
/// columns, as the engine decides them (engine.hpp).
struct QuerySql {
  /// The sample is of a kind the predicate can select (fetch, op).
  std::string kind;
  /// decide() says yes: some term's conditions were all observed and met.
  std::string yes;
  /// decide() says no: every term fails on an observed condition.
  std::string no;
  /// Counted: of its kind, yes, and the summed measure reported.
  std::string match;
  /// Undecided: of its kind, and neither yes nor no, or yes without the measure.
  std::string undecided;
  /// Aggregates over a set of rows: the QueryResult's three numbers.
  /// countIf(match): QueryResult::count.
  std::string count;
  /// sumIf(the measure's column, match), or "0": QueryResult::total.
  std::string total;
  /// QueryResult::undecided, with the engine's rule that a query none of
  /// whose terms the rows of its kind can decide together (a bit the
  /// processor lacks) is undecided for all of them.
  std::string undecided_count;
};

/// The predicate as a condition: the rows it selects (decide() yes), as
/// `--where` selects samples. "1" for a predicate that always holds.
///   predicate_sql(Predicate::parse("load & dc.miss"))
std::string predicate_sql(const Predicate& predicate);

/// The conditions and aggregates of a query (a derived event: its
/// predicate, and the measure it sums).
QuerySql query_sql(const Query& query);

/// What a capture's rows say of where they came from.
struct StoreCapture {
  std::uint64_t id = 0;     ///< capture_identity() of its file
  std::string host;         ///< the machine
  std::string vendor;       ///< "AuthenticAMD"
  std::uint32_t family = 0;  ///< the processor's family (25 for Zen 3 and 4)
  std::uint32_t model = 0;   ///< the processor's model
  std::string backend;      ///< "amd-ibs"
};

/// What a row holds besides the model's sample: its event and period (a
/// capture of several events, or none of IBS, counts by them).
struct StoreEvent {
  std::string_view name;    ///< as perf names it
  std::uint64_t period = 0;  ///< what the sample stands for
};

/// Where a sample is, by name, as a local report's rows by line and by
/// data name it (report --by line, --by data).
struct StoreSource {
  std::string_view line{};         ///< "src/hash.cpp:42"; module+0xoffset where DWARF does not say
  std::string_view data_object{};  ///< "cold_table", "[heap]", module+0xoffset, "[no data address]"
  /// The process's name at the sample's time (its COMM), as a local
  /// report's rows by process name them; "" where perf recorded none.
  std::string_view comm{};
  /// The thread's own name at the sample's time (the last COMM of its tid),
  /// as a local report's rows by thread name them; "" where it has none.
  std::string_view thread_comm{};
  /// Where the sample's address is in its module (the file offset), as a
  /// local report's rows by address place it (module+0xoffset); the
  /// address itself where no mapping holds it.
  std::uint64_t offset = 0;
  /// The data access as perf c2c counts it (report --by cacheline's
  /// loads, stores, L1 misses, HITMs): bits 1 load, 2 store, 4 L1 miss,
  /// 8 HITM, 16 remote; 0 for a sample without a data source.
  std::uint32_t data_access = 0;
  /// The sample's time of day, ns since the epoch (report --since and
  /// --until choose samples by it); 0 where the capture does not say.
  std::uint64_t wall_time = 0;
};

/// A capture's identity: a hash of its file's size and content (the same
/// bytes give the same identity, wherever they are). Reads the file; throws
/// tagop::Error when it cannot.
std::uint64_t capture_identity(const std::string& path);

/// Writes store rows as ClickHouse's TabSeparated format, one line each,
/// in store_columns()'s order.
class StoreRowWriter {
 public:
  /// Rows of this capture (its identity, host and processor in each).
  explicit StoreRowWriter(StoreCapture capture);
  /// Appends one sample's row to `out`.
  void append(const Sample& sample, const SampleSymbol& symbol, std::string& out, const StoreEvent& event = {},
              const StoreSource& source = {}) const;
  /// The capture the rows are of.
  const StoreCapture& capture() const { return capture_; }

 private:
  StoreCapture capture_;
};

/// Writes store rows as ClickHouse's Native format (`INSERT ... FORMAT
/// Native`): the rows appended are kept as columns, and flush() writes
/// them as one block. The server reads a block without parsing it, the
/// cheapest way in (a third less of its time than TabSeparated for the same
/// rows, docs/speed-log.md); tagop ingest sends its rows this way.
class StoreBlockWriter {
 public:
  /// Rows of this capture (its identity, host and processor in each).
  explicit StoreBlockWriter(StoreCapture capture);
  /// Drops the rows not flushed.
  ~StoreBlockWriter();
  /// Movable, not copyable (it holds the block's columns).
  StoreBlockWriter(StoreBlockWriter&&) noexcept;
  /// Movable, not copyable.
  StoreBlockWriter& operator=(StoreBlockWriter&&) noexcept;
  /// Adds one sample's row to the block.
  void append(const Sample& sample, const SampleSymbol& symbol, const StoreEvent& event = {},
              const StoreSource& source = {});
  /// The rows appended since the last flush().
  std::size_t rows() const { return rows_; }
  /// Appends the block of those rows to `out` (nothing when there are
  /// none), and starts the next.
  void flush(std::string& out);
  /// The capture the rows are of.
  const StoreCapture& capture() const { return capture_; }

 private:
  struct Columns;
  StoreCapture capture_;
  std::unique_ptr<Columns> columns_;
  std::size_t rows_ = 0;
};

}  // namespace profiles
}  // namespace tagop
