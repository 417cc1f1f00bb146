#pragma once
// A report from the ClickHouse store (tagop ingest), as a local report of
// the same samples: of IBS captures, the server tallies the samples by a
// key and signature (tally_store) and the embedded engine answers every
// IBS derived event of those tallies; of other captures (perf record,
// perf mem), the server sums each event's samples and periods by the key,
// as a local report weights them. Their call chains (rows by call chain,
// --children, pprof and folded stacks) are made of the chains' addresses
// and the frames' table that ingest writes (store_chain_report). What
// `tagop report --source URL` prints, and (store_diff) `tagop diff --source
// URL`.
//
//   const profiles::ClickHouseServer server("http://127.0.0.1:8123");
//   const auto r = report::store_report(server, {.by = report::GroupBy::process, .host = "web-1"});
//   // r.rows[i].results[q]: derived event q (r.query_names[q], "0xF100" ...)
//
// Thread safety: each call uses its own connection.

#include <array>        // std::array
#include <iosfwd>       // std::ostream
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <variant>      // std::variant
#include <vector>       // std::vector

#include <tagop/api.hpp>                  // TAGOP_API
#include <tagop/engine.hpp>               // QueryResult
#include <tagop/estimate.hpp>             // Estimate
#include <tagop/predicate.hpp>            // Predicate
#include <tagop/profiles/clickhouse.hpp>  // ClickHouseServer
#include <tagop/profiles/profile.hpp>     // Profile
#include <tagop/report/diff.hpp>          // DiffColumn
#include <tagop/report/export.hpp>        // ExportFormat
#include <tagop/report/ingest.hpp>        // IngestOptions
#include <tagop/report/report.hpp>        // GroupBy, MeasureSum

namespace tagop TAGOP_API {
namespace report {

/// The store's row keys that a capture does not have: what a fleet is
/// split by.
enum class FleetKey {
  host,       ///< the machine (IngestOptions::host, or perf's hostname)
  processor,  ///< its generation: "AuthenticAMD family 0x19 model 0x11" (vendor, family, model)
};

/// One key of a store report's rows: a local report's (GroupBy) or a
/// fleet's.
using StoreKey = std::variant<GroupBy, FleetKey>;

/// "host", "processor", or GroupBy's name (name_of).
std::string store_key_name(const StoreKey& key);

/// Keys from a list such as "host,function" (store_key_name()s separated by
/// commas: a row per distinct value of all, its name their values joined by
/// two spaces, as a local report's rows of several keys). Throws
/// tagop::Error for an unknown or repeated name, or a key the store cannot
/// group by (store_key_column).
std::vector<StoreKey> parse_store_keys(std::string_view list);

/// Which samples of the store a report reads, and so its columns.
enum class StoreBackend {
  automatic,  ///< those the selection holds; an error when it holds both kinds
  ibs,        ///< IBS captures' (backend 'amd-ibs'): the IBS derived events
  events,     ///< other captures' (perf record, perf mem): each event by period
};

/// What to report from the store.
struct StoreReportOptions {
  /// The rows: function, module (its file name), process ("comm [pid]"),
  /// thread ("tid:name", in its process), cpu, line (file:line), data (the
  /// data object), address (module+0xoffset), cacheline ("0x<line>  <data
  /// object>"), callchain (store_chain_report), as a local report's rows
  /// of those keys. Rows by address and thread need captures ingested by
  /// tagop 0.9 or later (a report of others throws tagop::Error naming
  /// one). Read when `keys` is empty.
  GroupBy by = GroupBy::function;
  /// The rows' keys, when not empty (parse_store_keys): by host, by
  /// processor, or several at once.
  std::vector<StoreKey> keys{};
  /// Only the samples of this machine ("": every host).
  std::string host{};
  /// Only samples taken at or after this time of day, as ClickHouse reads
  /// a date and time in its time zone ("2026-11-20", "2026-11-20
  /// 08:00:00"): by their wall_time (perf's clock data, else the capture
  /// file's time as its last sample's), else by when their capture was
  /// ingested; "": all.
  std::string since{};
  /// Only samples taken before this time (as `since`); "": all.
  std::string until{};
  /// Only samples of these CPUs, as a local report's --cpu; empty: all.
  std::vector<std::uint32_t> cpus{};
  std::vector<std::uint32_t> pids{};  ///< only samples of these processes (--pid); empty: all
  std::vector<std::uint32_t> tids{};  ///< only samples of these threads (--tid); empty: all
  /// Only samples of processes of these names (the COMM at the sample's
  /// time), as a local report's --comm; empty: all.
  std::vector<std::string> comms{};
  /// Only samples whose perf time (ns) is in this range, ends included, as
  /// a local report's --time.
  std::optional<TimeRange> time{};
  /// Only samples that meet this predicate (as a local report's --where),
  /// asked of the store as predicate_sql().
  std::optional<Predicate> where{};
  /// Which captures' samples, IBS or others.
  StoreBackend backend = StoreBackend::automatic;
  /// With `by` function or module: each row's values also with its
  /// callees' (StoreRow::children, and of IBS captures their estimates),
  /// from the samples' call chains and the frames' table, as a local
  /// report's Options::children; the rows are then those of the chains'
  /// frames (a function named module+0xoffset where no symbol holds it, as
  /// a local row).
  bool children = false;
  /// The frames of a call chain read, from the sample outward, as a local
  /// report's Options::max_stack (perf report --max-stack).
  std::size_t max_stack = 127;
  /// By call chain: rows split by process (pid), as a local report's
  /// Options::by_process (pprof's samples, store_profile()).
  bool by_process = false;
  /// Functions (rows by function, call chains' frames) by their symbols'
  /// names as demangled without parameters (perf's default, as ingest
  /// names them); false: by their symbols as the modules name them, not
  /// demangled, as a local report's Options::demangle (perf report
  /// --no-demangle). Needs captures ingested by tagop 0.11 or later (a
  /// report of others throws tagop::Error naming one); data objects stay
  /// as ingest named them (a report by data or cacheline throws).
  bool demangle = true;
  /// Functions demangled whole, with their parameters, as a local report's
  /// Options::signatures (needs `demangle`, and captures of tagop 0.11 or
  /// later).
  bool signatures = false;
  /// The tables (IngestOptions::table, captures_table, frames_table).
  IngestOptions tables{};
};

/// How many operations a count of IBS samples stands for, as a local
/// report's estimate: the samples, samples x period with its 95% interval
/// (estimate_from_parts() over the captures' periods), and what the period
/// counts ("fetches", "dispatched ops", "cycles").
struct StoreEstimate {
  std::uint64_t samples = 0;  ///< the query's count
  Estimate estimate{};        ///< samples x period, with its interval
  std::string unit{};         ///< UnitPeriod::unit of the captures' periods
};

/// An IBS capture of the store and its units' periods, as a local report of
/// it reads them (unit_period() of the captures' table's period columns).
struct StoreCapturePeriods {
  std::uint64_t capture = 0;         ///< its identity (the samples' capture column)
  std::array<UnitPeriod, 2> units{};  ///< by amd_ibs::IbsUnit (fetch, op); value 0: not known
  /// By amd_ibs::IbsUnit: its sampling filter's population and load
  /// latency (`text` empty); any() false: every fetch or op was sampled.
  std::array<amd_ibs::SamplingFilter, 2> filters{};
};

/// One frame of a row's call chain, as the local report's row of it names it.
struct StoreFrameName {
  std::string name;    ///< the function, module+0xoffset, [unknown]+0xaddress
  std::string module;  ///< its module's path; "" where no mapping holds it
};

/// One row: its key's value and one result per column.
struct StoreRow {
  std::string name;                  ///< the key's value: a function, a module, a pid ...; several keys': parts joined by two spaces
  std::vector<std::string> parts{};  ///< with several keys: each key's value, in their order
  /// With a function or module key: the module's path ([kernel] or
  /// [unknown] where no mapping holds the address), as a local report's
  /// row has it; functions of one name in two modules are two rows, and so
  /// are two modules of one file name.
  std::string module{};
  /// By StoreReport::query_names. IBS: the derived events' results; other
  /// captures: each event's samples (count) and the sum of their periods
  /// (total), as a local report's event columns.
  std::vector<QueryResult> results;
  /// Other captures: by event, the load latency of its loads that carry
  /// one (perf mem's weight, mem.load_latency), as Report::load_latency();
  /// nullopt where none does. Empty for IBS.
  std::vector<std::optional<MeasureSum>> load_latency{};
  /// IBS: by query, the estimate of a count query (a derived event that
  /// sums no measure), as a local report's row's estimate of it; nullopt
  /// for a sum, a count not available, a period not known (a capture
  /// ingested before the store kept periods) or one counted in other units
  /// by its captures (dispatched ops and cycles). Empty for other captures.
  std::vector<std::optional<StoreEstimate>> estimates{};
  /// With StoreReportOptions::children: by query_names, the row's values
  /// with its callees' (each sample once per row its chain passes through).
  std::vector<QueryResult> children{};
  /// IBS, with StoreReportOptions::children: the estimates of `children`'s
  /// counts, as `estimates` of `results`'.
  std::vector<std::optional<StoreEstimate>> children_estimates{};
  /// By call chain: the chain's frames, root first (the sampled one last);
  /// `name` is their names joined by ';', as a local report's row.
  std::vector<StoreFrameName> frames{};
  /// By process (`name` "comm [pid]", as a local report's row), or by call
  /// chain with StoreReportOptions::by_process: the process.
  std::optional<std::uint32_t> pid{};
  /// With `pid`: the process's name at the samples' time (its COMM; "" where
  /// perf recorded none), as a local row's comm (pprof's comm label).
  std::string comm{};
  /// With a cacheline key: what the samples of the row's line did, as
  /// Report::line() counts them (perf c2c's loads, stores, L1 misses,
  /// HITMs, offsets, code addresses and their functions); nullopt where
  /// StoreReport::lines_unknown says why.
  std::optional<LineDetail> line{};
};

/// An event as perf diff matches two captures' events: its perf_event_attr's
/// type and config, whatever its name (cpu-clock:ppp and cpu-clock are one).
struct StoreEventId {
  std::uint32_t type = 0;    ///< perf_event_attr.type (PERF_TYPE_SOFTWARE, a PMU's ...)
  std::uint64_t config = 0;  ///< perf_event_attr.config
  /// The same event: the same type and config.
  bool operator==(const StoreEventId&) const = default;
};

/// A report of the store: rows in the key's order (as the server sorted them).
struct StoreReport {
  /// Whether the columns are IBS derived events (else events by period).
  bool ibs = true;
  /// IBS: the derived events' select values, "0xF000" ...; other captures:
  /// the events that have samples in the selection, by name.
  std::vector<std::string> query_names;
  std::vector<QueryResult> totals;                          ///< over every row
  std::vector<std::optional<MeasureSum>> load_latency{};    ///< other captures: over every row, by event
  std::vector<StoreRow> rows;            ///< one per distinct key value
  /// IBS: the estimates over every row, as StoreRow::estimates.
  std::vector<std::optional<StoreEstimate>> estimates{};
  /// IBS: the captures whose samples the report holds, with their periods,
  /// by identity.
  std::vector<StoreCapturePeriods> captures{};
  /// IBS: by query, why no estimate follows from its count, as
  /// Report::estimate_bias(): a capture's sampling filter sampled only some
  /// ops, and not all of the event's are among them; "" where none did.
  std::vector<std::string> estimate_bias{};
  /// IBS: by query, why some of its samples could not decide it, as
  /// Report::why_undecided(): the reasons of the layouts of the captures'
  /// processors (amd_ibs::event_availability()), each once; empty for a
  /// query without undecided samples.
  std::vector<std::vector<std::string>> undecided_reasons{};
  /// Other captures with a `where`: the samples it left undecided (their
  /// data sources do not tell), as Counts::where_undecided.
  std::uint64_t where_undecided = 0;
  std::string where_sql;                 ///< the condition sent (host, since, where)
  /// Without rows: true where the host, since, until and backend chose no
  /// sample at all, false where the local report's filters of samples
  /// (where, cpus, pids, tids, comms, time) left none of those chosen (a
  /// report of nothing, whose columns are, of other captures, the chosen
  /// samples' events); false where there are rows.
  bool chosen_none = false;
  /// With a cacheline key, why the rows have no StoreRow::line: captures
  /// ingested by a tagop before 0.10, whose rows lack their data access;
  /// "" where they have them.
  std::string lines_unknown{};
  /// Other captures: by query_names, the event's type and config, from the
  /// captures' table; nullopt where its captures were ingested before 0.10
  /// (which did not keep them) or give the name two (then matched by name).
  std::vector<std::optional<StoreEventId>> event_ids{};
};

/// The store's column (or expression) for a row key; throws tagop::Error
/// naming the keys it has for callchain (whose rows store_report() makes of
/// the chains and the frames' table). A thread's is its tid and a cache
/// line's its address: store_report() names their rows after the tallies.
std::string store_key_column(GroupBy by);

/// The store's expression of the options' keys (`by`, or `keys`): one
/// key's column, or several keys' values joined by the unit separator
/// (0x1F), which store_report() splits into StoreRow::parts.
std::string store_keys_sql(const StoreReportOptions& options);

/// The SQL condition of the options' host, since, until and where ("" for none).
std::string store_report_where_sql(const StoreReportOptions& options);

/// Tallies the store and answers each row's columns: of IBS captures every
/// IBS derived event (amd_ibs::derived_event_queries(), by tally_store,
/// by row and capture) and the estimates of its counts, each capture's
/// samples scaled by its own period (estimate_from_parts(): the samples of
/// the captures in the row that have samples of the event's unit, or,
/// where none has, a count of 0 over the report's captures); of others
/// each event's samples and periods. By call chain, or with `children`,
/// the server tallies the samples by (capture, pid, ip, chain, event) and
/// the rows are made of the frames' names (store_chain_report). Throws
/// tagop::Error as tally_store, for a key the store lacks, or
/// (StoreBackend::automatic) for a selection that holds samples of IBS
/// captures and of others.
StoreReport store_report(const profiles::ClickHouseServer& server, const StoreReportOptions& options = {});

/// What `tagop report --source --strict` refuses, as the local --strict
/// refuses a damaged capture: the captures of the samples that the
/// options' host, since, until and backend choose whose reading met damage
/// at ingest (capture_damage(), the captures' table's `damage`), or that
/// were ingested before tagop 0.11, which did not keep it. "" where none
/// is; else the first, by host and file, and how many.
std::string store_damage(const profiles::ClickHouseServer& server, const StoreReportOptions& options);

/// The share of a report's samples that `results` (a row's, or the
/// totals) hold, in percent, as Report::overhead(): of IBS captures, of
/// their fetch and op samples; of others, of the first event's periods.
double store_overhead(const StoreReport& report, std::span<const QueryResult> results);

/// A column's value (column_value()), and none for a ratio with a part
/// that StoreReport::estimate_bias names, as Report::value(): a ratio of
/// filtered samples is not the ratio of the ops.
std::optional<double> store_value(const StoreReport& report, const Column& column, std::span<const QueryResult> results);

/// The report by call chain (options.by GroupBy::callchain; rows root first,
/// named as a local report's), or by function or module with each row's
/// children (options.children), of captures without IBS: the server tallies
/// the samples by capture, pid, ip, the first options.max_stack frames of
/// the chain and event; each distinct frame's name is read from the frames'
/// table once. Throws tagop::Error naming the capture (its host and file)
/// whose frames the store lacks (ingested by a tagop before the frames'
/// table), for IBS samples, or for another key.
StoreReport store_chain_report(const profiles::ClickHouseServer& server, const StoreReportOptions& options);

/// A report of captures without IBS as a profile, as a local report's
/// export (export.hpp profile_of): per event a sample type of its periods
/// and one of its samples, one sample per row; a row by call chain
/// (store_chain_report) a stack of its frames, a row by another key a
/// stack of one frame (its name and module); with pid labels where the
/// rows are split by process. `source` names the store in the profile's
/// comments. Throws tagop::Error for an IBS report (store_stacks_profile()).
profiles::Profile store_profile(const StoreReport& stacks, std::string_view source);

/// Writes a report of captures without IBS as pprof or folded stacks (the
/// values of query_names[event]'s periods) to `path` ("" or "-": stdout),
/// whole or not at all, as write_profile_export().
void write_store_export(ExportFormat format, const StoreReport& chains, std::size_t event, std::string_view source,
                        const std::string& path);

/// The period of an IBS unit (amd_ibs::IbsUnit: 0 fetch, 1 op) that every
/// capture of the report with samples of it was sampled at; nullopt where
/// they differ (in value, unit or how it was read) or none has samples.
std::optional<UnitPeriod> store_shared_period(const StoreReport& report, std::size_t unit);

/// The rows of a store report in the order a local report selects them
/// (Report::select()): highest first by `sort` (of the values with the
/// callees' where the rows have them, StoreReportOptions::children), ties
/// by name; the first `top` (0: all), of the rows whose share
/// (store_overhead(), of the values with the callees' where the rows have
/// them) is at least `percent_limit`, as Report::select()'s (perf report
/// --percent-limit). Indices into `report.rows`.
std::vector<std::size_t> store_row_order(const StoreReport& report, const Column& sort, std::size_t top = 0,
                                         double percent_limit = 0);

/// What the HTML page of a store report shows beside its reports, as a
/// local page's ExportView.
struct StorePageView {
  std::string source{};               ///< the store's URL: the page's title
  /// IBS: the derived events and ratios of the table (view_columns(),
  /// resolve_columns()); each event among them is a sample type of the
  /// flame graph. Others: not read (each event is a column).
  std::vector<Column> columns{};
  /// The rows' order (store_row_order()), and the flame graph's first
  /// sample type.
  Column sort{};
  std::size_t top = 0;                ///< the table's first N rows (0: all)
  /// The table's rows whose share is at least this, in percent
  /// (store_row_order(): perf report --percent-limit); 0: all.
  double percent_limit = 0;
  std::size_t flame_top = 0;          ///< the flame graph's first N rows by `sort` (0: all)
  std::string row_title{};            ///< what a row is: "function", "host, function"
  std::vector<std::string> filters{};  ///< how the samples were chosen, as words ("host web-1"), for the notes
  std::string where{};                ///< the --where predicate's text ("" when none)
  std::uint64_t max_values = 0;       ///< the most rows x columns of the table (0: no bound); check_values()
};

/// The page of a store report, as a local report's (write_report_html()):
/// the table of `table`'s rows (the first `view.top` by `view.sort`), with
/// intervals, and the flame graph of `stacks` (store_stacks_profile(): a
/// report by call chain where the samples have chains, else by function,
/// store_has_call_chains()). Where the captures of an IBS unit were sampled
/// at different periods, the flame graph's values of that unit are samples,
/// and a note says so. Throws tagop::Error for reports of different kinds
/// or events, or a table past `view.max_values`.
void write_store_html(const StoreReport& table, const StoreReport& stacks, const StorePageView& view, std::ostream& out);

/// A report's stacks as the profile its exports and its page's flame graph
/// are made of, as a local report's (profile_of()): of IBS captures a
/// sample type per derived event among `view.columns` (its samples, or its
/// sum, x its unit's period where the captures share one, else as they
/// are) and one of `view.where`'s samples; of others, store_profile(). A
/// row by call chain is a stack of its frames, another a stack of one.
/// The first `view.flame_top` rows by `view.sort` (0: all). Throws
/// tagop::Error for IBS columns that hold no derived event.
profiles::Profile store_stacks_profile(const StoreReport& stacks, const StorePageView& view);

/// The sample type of `view.sort` in store_stacks_profile(), as a local
/// export's sort_sample_type(): others, the sort event's periods (every
/// event's samples: its first's); IBS, the sort column among the events,
/// nullopt for a ratio or every unit's samples.
std::optional<std::size_t> store_sort_sample_type(const StoreReport& stacks, const StorePageView& view);

/// Writes `stacks` (store_stacks_profile()) as pprof or folded stacks (the
/// sort column's values) to `path` ("" or "-": stdout), whole or not at
/// all. Throws tagop::Error for folded stacks of a sort column that is no
/// event (a ratio).
void write_store_export(ExportFormat format, const StoreReport& stacks, const StorePageView& view,
                        const std::string& path);

/// Whether any sample the options choose has a call chain (perf record -g):
/// a report's stacks are then its rows by call chain, else by function, as
/// a local report's (stacks_by()).
bool store_has_call_chains(const profiles::ClickHouseServer& server, const StoreReportOptions& options);

/// The events of two store reports of captures without IBS, matched as
/// match_events() matches two captures': by type and config
/// (StoreReport::event_ids), by name where either side does not know them.
/// The store knows events with samples only: `empty_a` and `empty_b` stay
/// empty.
EventMatches store_match_events(const StoreReport& a, const StoreReport& b);

/// Two store reports' rows side by side, as diff_reports() puts two
/// captures' reports: `a` and `b` must be of the same kind (both IBS, or
/// both of other captures) and keys. The columns: IBS, `columns` (derived
/// events and ratios; resolve_column()); other captures, each pair of
/// store_match_events() (`columns` not read), named by A's event. Rows are
/// matched by module and name (a process by its name without its pid, as a
/// local diff matches them: pids differ between runs).
/// Throws tagop::Error for reports of different kinds, or of no event in
/// common.
std::vector<DiffColumn> store_diff(const StoreReport& a, const StoreReport& b, const std::vector<Column>& columns);

}  // namespace report
}  // namespace tagop
