#pragma once
// A report of a perf.data capture, as `tagop report` prints it: rows (by
// function, module, process, address, source line or call chain) x
// columns. An IBS capture's columns are CodeAnalyst's derived events (and
// their ratios and estimates); any other capture's are its events, each
// sample weighted by its period, as `perf report` counts them.
//
//   perf_data::PerfDataReader reader("perf.data");
//   report::Report r(reader, {.by = report::GroupBy::function});
//   for (std::uint32_t id : r.select(report::resolve_column("0xF206"), 10))
//     fmt::print("{} {}\n", r.row(id).name, r.row(id).results[...].count);
//
// The capture is read once, in one pass that keeps a 32-byte tally per
// distinct (process, address, kind of sample, call chain); rows, symbols
// and names come after it, and a row's name and results are made only when
// it is asked for.
//
// Thread safety: not thread-safe (rows are named when asked for): one
// thread uses a Report at a time; its constructor runs threads of its own.

#include <array>       // std::array
#include <cstdint>     // std::uint32_t, std::uint64_t
#include <functional>  // std::function
#include <memory>      // std::unique_ptr, std::shared_ptr
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view>  // std::string_view
#include <vector>      // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCapture, IbsUnit
#include <tagop/cpu.hpp>                   // CpuId
#include <tagop/engine.hpp>                // QueryResult
#include <tagop/perf_data_reader.hpp>      // PerfDataReader, Skipped
#include <tagop/predicate.hpp>             // Predicate
#include <tagop/report/columns.hpp>        // Column
#include <tagop/report/symbols.hpp>        // SymbolSource
#include <tagop/symbol_files.hpp>           // SymbolFileSearch

namespace tagop TAGOP_API {
namespace report {

/// Whether a capture has IBS events: an event of the ibs_op or ibs_fetch
/// PMU (but perf mem record's, which carry data sources and no raw
/// registers), or (without PMU mappings) a raw-sampling event of a dynamic PMU.
bool holds_ibs_events(const perf_data::FileInfo& info);

/// Whether a capture without IBS events has an event whose samples carry
/// a data source (PERF_SAMPLE_DATA_SRC: perf mem record on Intel, AMD or
/// Arm): then Filters::where tests the conditions read_data_src() reads
/// in them (tagop/mem_data_src.hpp).
bool holds_data_sources(const perf_data::FileInfo& info);

/// What a report's rows are: one key (Options::by), or several at once
/// (Options::keys), as perf report's --sort comm,dso,sym.
enum class GroupBy {
  function,   ///< perf's sym
  module,     ///< perf's dso
  process,    ///< a process (pid and name); perf's comm rows are of a name (a thread's, when sampled)
  address,    ///< module+offset
  line,       ///< perf's srcline
  callchain,  ///< the whole call chain, callers first
  thread,     ///< perf's pid and tid (perf's pid rows are threads): a thread, named tid:name (its last name, else its process's)
  cpu,        ///< perf's cpu: the CPU that took the sample
  /// The data object of the sample's data address (perf mem report's
  /// symbol_daddr, summed by object): an ELF object symbol of the module
  /// mapped there ("name"); "[heap]", "[stack]", "[anon]" (perf's //anon)
  /// or another mapping's name; module+0xoffset where no symbol holds it;
  /// "[unknown]" outside every mapping, "[kernel]" in the kernel's half;
  /// "[no data address]" for samples that carry none (perf mem report
  /// shows them as address 0). The address: PERF_SAMPLE_ADDR (perf mem
  /// record), an IBS op's IbsDcLinAddr where IbsDcLinAddrValid says so.
  data,
  /// The 64-byte cache line of the data address (perf c2c report's rows),
  /// named "0x<line>  <data object>"; Report::line() says its loads,
  /// stores, HITMs and the offsets touched, from PERF_SAMPLE_DATA_SRC or
  /// the IBS op's bits.
  cacheline,
};

/// "function", "module", "process", "address", "line", "callchain",
/// "thread", "cpu", "data", "cacheline".
std::string_view name_of(GroupBy by);
/// The GroupBy of a name, or nullopt.
std::optional<GroupBy> parse_group_by(std::string_view name);
/// Keys from a list such as "process,module,function" (names as
/// parse_group_by's, separated by commas, in the order of the rows' name
/// parts). Throws tagop::Error for an unknown or repeated name, or a list
/// that check_group_keys() refuses; `what` starts the message ("--by").
std::vector<GroupBy> parse_group_keys(std::string_view list, std::string_view what = "--by");
/// Throws tagop::Error for keys that cannot make rows together: none; one
/// twice; two of function, address, line, callchain, data and cacheline
/// (a row is one of them); module with callchain, data or cacheline (a
/// chain crosses modules; data has modules of its own); data or cacheline
/// with `children` (a data address has no callers); several keys with
/// `children` (callees are summed into the callers of one key).
/// module with function, address or line adds the module's name to the
/// row's name (the function's module already tells the rows apart).
void check_group_keys(std::span<const GroupBy> keys, bool children);
/// The key that decides what a row of `keys` is at its heart, which
/// Report::by() says: the first of function, address, line, callchain, data and cacheline,
/// else module, else the first key (process, thread or cpu).
GroupBy main_key(std::span<const GroupBy> keys);
/// The GroupBy that a perf report --sort key stands for: comm -> process
/// (perf's rows are of a name, a thread's when sampled; tagop's of a pid), pid and tid -> thread
/// (perf's pid rows are threads, named tid:comm), dso -> module, sym ->
/// function, srcline -> line, cpu -> cpu; nullopt for others.
std::optional<GroupBy> group_by_of_perf_key(std::string_view perf_key);

/// Sample times, as the capture's clock counts them (ns), both inclusive.
struct TimeRange {
  std::uint64_t start = 0;
  std::uint64_t stop = ~std::uint64_t{0};
};

// Every member has an initializer, so that a designated initializer may
// name any of them alone.
struct Filters {
  std::vector<std::uint32_t> cpus{}, pids{}, tids{};
  std::vector<std::string> comms{};  ///< process names (as COMM records give them)
  std::optional<Predicate> where{};  ///< IBS, or samples with data sources (holds_data_sources())
  std::optional<TimeRange> time{};
};

struct Options {
  /// The rows' key, when `keys` is empty.
  GroupBy by = GroupBy::function;
  /// Several keys at once, in the order of the rows' name parts (as perf
  /// report --sort comm,dso,sym): a row is one distinct value of all of
  /// them, e.g. {process, module, function}. Empty: `by` alone (and
  /// `by_process`); one key: that key as `by` (with `by_process`). With
  /// several, `by` and `by_process` are not read, Report::by() is
  /// main_key(keys), and each Row has its name's parts (Row::parts).
  /// check_group_keys() says which lists the report takes. A thread or
  /// cpu key tallies each sample by its tid or CPU too: only then.
  std::vector<GroupBy> keys{};

  Filters filters{};
  /// IBS: the processor, when the file's HEADER_CPUID is missing or wrong.
  std::optional<CpuId> cpu{};
  /// Sums of callees into callers: Row::children, from the call chains.
  bool children = false;
  /// Rows also split by process: a row is one of `by`'s (a function, a
  /// call chain ...) in one process, Row::pid and Row::comm say which (for
  /// profiles whose samples carry pid and comm labels). Not with
  /// `children` (Row::children stays empty) nor GroupBy::process.
  bool by_process = false;
  /// Functions by their demangled names (false: as the symbol tables have them).
  bool demangle = true;
  /// Demangled C++ names with their parameter lists (`f(int)`, as perf
  /// report -v); false: the names alone (`f`), as perf report prints them
  /// by default. Overloads stay separate rows of one name, as in perf.
  bool signatures = false;
  /// The frames of a call chain that are read, from the sample outward, as
  /// perf report's --max-stack (its default, the kernel's
  /// perf_event_max_stack, is 127): context markers do not count. A chain
  /// of a crafted capture may hold thousands, and rows --by callchain are
  /// named by all of them.
  std::size_t max_stack = 127;
  /// Called every few tens of MiB with the data bytes read and their total.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress{};
  /// Threads that tally the samples (0: one for a capture whose data is
  /// under 64 MiB, else chosen by the CPUs this process may use, one each
  /// but one, from 1 to 3); the result does not depend on it.
  std::size_t threads = 0;
  /// Tried, in order, before the ELF files on this machine (a kernel's
  /// symbols, a build-id cache ...).
  std::vector<std::shared_ptr<SymbolSource>> symbol_sources{};
  /// Name the kernel's samples as perf report does by default, after
  /// `symbol_sources`: this machine's /proc/kallsyms when it runs the
  /// recorded kernel, else perf's build-id cache, else the vmlinux paths
  /// of the capture's OS release (kernel_symbol_source() with the
  /// capture's HEADER_OSRELEASE); when none fits, a warning says why.
  /// false: a caller that gives its own kernel source in `symbol_sources`
  /// (as `tagop report --kallsyms` does), or wants kernel samples unnamed.
  bool kernel_symbols = true;
  /// Where the DWARF unwinding of sampled user stacks (captures of `perf
  /// record --call-graph dwarf`) finds the modules' files: --symfs, the
  /// build-id cache, the debug directory (tagop/user_stack_unwind.hpp).
  SymbolFileSearch unwind_files{};
};

/// Whether two CPUs that this process may use are idle (no other thread
/// is runnable on them now, /proc/loadavg), so that a second thread pays: the default
/// threads of a report, and `tagop diff`'s reading of its two captures at
/// once, go by it. On a loaded 2-CPU host a second thread was 1.2-1.5x
/// slower than one.
bool two_cpus_idle();

/// The sampling period of one IBS unit's samples, as read from them.
struct PeriodSeen {
  std::uint64_t samples = 0;
  std::uint64_t sum = 0, min = ~std::uint64_t{0}, max = 0;
  bool counts_ops = false;
  /// `n` samples of period `p`.
  void add(const amd_ibs::IbsCapture::Period& p, std::uint64_t n = 1);
  void merge(const PeriodSeen& o);
  double mean() const { return samples ? static_cast<double>(sum) / static_cast<double>(samples) : 0; }
};

/// The period one IBS unit's samples stand for, and where it came from.
struct UnitPeriod {
  double value = 0;    ///< 0: no samples of the unit
  std::string source;  ///< "attr.sample_period", "IbsOpMaxCnt * 16 in the samples"
  std::string unit;    ///< "fetches", "dispatched ops", "cycles"
};

/// The period one IBS unit's samples stand for, as Report::period() reads
/// it: the unit's event's attr.sample_period (`requested`: non-zero when it
/// sampled by period, IbsCapture::requested_period()), else the mean of the
/// samples' MaxCnt x 16 (`seen`, every sample of the unit read); its unit
/// by the samples' IbsOpCntCtl. What ingest keeps of each capture, so that
/// the store's estimates are the local report's.
UnitPeriod unit_period(amd_ibs::IbsUnit unit, const PeriodSeen& seen, std::uint64_t requested);

/// What the walk counted besides the rows.
struct Counts {
  std::uint64_t read_fetch = 0, read_op = 0;  ///< IBS samples decoded
  std::uint64_t kept_fetch = 0, kept_op = 0;  ///< ... that passed the filters
  std::uint64_t other_samples = 0;            ///< IBS captures: samples of events that are not IBS
  std::uint64_t where_undecided = 0;          ///< samples that did not observe what --where tests
  std::uint64_t inexact_ip = 0;               ///< IBS op samples with IbsRipInvalid: at the record's ip
  std::uint64_t read = 0, kept = 0;           ///< other captures: samples read, and kept
};

/// A measure summed over samples: how many carried it, and its total.
struct MeasureSum {
  std::uint64_t samples = 0;  ///< the samples that carried the measure
  std::uint64_t sum = 0;      ///< their values' sum
};

/// What the capture's samples carry besides their address.
struct SampleContent {
  bool callchains = false;    ///< PERF_SAMPLE_CALLCHAIN (frame pointers)
  bool stack_user = false;    ///< PERF_SAMPLE_STACK_USER (with REGS_USER): the user frames unwound by DWARF (x86_64)
  bool branch_stack = false;  ///< PERF_SAMPLE_BRANCH_STACK: not used yet
  bool data_src = false;      ///< PERF_SAMPLE_DATA_SRC (perf mem), in a capture without IBS events
  /// With data_src: the conditions the samples' data sources decide
  /// (for one sample or more), which --where may test.
  ConditionSet data_src_decides{};
};

/// What the samples of a cache line did (GroupBy::cacheline), counted as
/// perf c2c report counts them (c2c_decode_stats): every sample of the
/// line once, whatever its event's period.
struct LineDetail {
  std::uint64_t address = 0;  ///< the line's first byte (a multiple of 64)
  std::uint64_t samples = 0;  ///< perf c2c's "Total records"
  std::uint64_t loads = 0;   ///< samples of loads (PERF_MEM_OP_LOAD; IBS: IbsLdOp)
  std::uint64_t stores = 0;  ///< samples of stores (PERF_MEM_OP_STORE; IBS: IbsStOp without IbsLdOp)
  /// Loads served past the L1 (fill buffer hits too), stores that missed it.
  std::uint64_t l1_misses = 0;
  /// Loads whose snoop found the line Modified (perf's HITM) in this node's caches.
  std::uint64_t local_hitm = 0;
  /// ... in another node's (LVL_REM_CCE1/2, the remote bit; IBS: a remote source).
  std::uint64_t remote_hitm = 0;
  /// The byte offsets (0 to 63) the samples' addresses had in the line, ascending.
  std::vector<std::uint8_t> offsets;
  /// The code addresses of the samples (perf c2c's "Code address"),
  /// ascending, distinct; at most 16.
  std::vector<std::uint64_t> code_addresses;
  /// The functions of those code addresses (named as rows --by function
  /// are), the most samples first; at most 16.
  std::vector<std::string> functions;
};

struct Row {
  std::uint32_t id = 0;
  /// What the report shows, as perf report names it: a function by its
  /// demangled name (Options::signatures: with its parameter lists), a
  /// process as "comm [pid]" (":pid", perf's name, where no COMM named it;
  /// pid -1 signed), an unmapped address "[unknown]+0x..." ("[kernel]+0x..."
  /// in the kernel's half), a call chain its frames' names from the root,
  /// joined by ';'.
  std::string name;
  std::string module;  ///< the module's path; "" for processes and call chains
  std::string build_id;  ///< the module's, lowercase hex; "" when not known
  std::uint64_t offset = 0;
  bool has_offset = false;  ///< the name is module+offset
  std::uint32_t pid = 0;    ///< by process or thread, or Options::by_process
  std::string comm;         ///< the process's name then ("" when not known)
  std::optional<std::uint32_t> tid;  ///< with a thread key: the thread's id
  std::optional<std::uint32_t> cpu;  ///< with a cpu key: the CPU's number
  /// With several keys: the name's parts, one per key in their order
  /// (Report::keys()); `name` is them joined by two spaces, as perf
  /// report's columns. Empty with one key.
  std::vector<std::string> parts;
  std::vector<QueryResult> results;   ///< one per query
  std::vector<QueryResult> children;  ///< with Options::children: its callees' samples added
};

class Report {
 public:
  /// Reads the capture. Throws tagop::Error when it cannot be read at all
  /// (no IBS processor known, a filter the capture cannot answer ...).
  Report(perf_data::PerfDataReader& reader, const Options& options);
  ~Report();
  Report(Report&&) noexcept;
  Report& operator=(Report&&) noexcept;

  /// IBS: the columns are derived events; otherwise the capture's events.
  bool ibs() const;
  GroupBy by() const;
  /// The rows' keys, in their order: Options::keys, or {Options::by}.
  const std::vector<GroupBy>& keys() const;
  /// Whether the rows are split by process (Options::by_process).
  bool by_process() const;
  /// IBS: the processor and where it came from ("HEADER_CPUID", "--family/--model").
  const CpuId& cpu() const;
  /// The names of the queries (IBS: the derived events' select values;
  /// otherwise the events' names, as HEADER_EVENT_DESC gives them).
  const std::vector<std::string>& query_names() const;
  /// Over every row.
  const std::vector<QueryResult>& totals() const;
  const Counts& counts() const;
  UnitPeriod period(amd_ibs::IbsUnit unit) const;
  const SampleContent& content() const;
  std::uint64_t lost() const;
  bool truncated() const;
  /// Damaged records, from the reader and in IBS payloads, as one count.
  const perf_data::Skipped& skipped() const;
  /// What the reader met: bytes not read, resyncs, a file that shrank.
  const perf_data::ReadSummary& read_summary() const;
  /// Everything the user should be told, in order.
  const std::vector<std::string>& warnings() const;
  /// IBS: why samples of this processor can leave query `query` (a derived
  /// event) undecided, one sentence each, from the layout table (a field
  /// the processor lacks, a gate or erratum that leaves a bit undecided):
  /// what to say beside a total with QueryResult::undecided samples, or
  /// one that is not available. Empty for other captures.
  std::vector<std::string> why_undecided(std::size_t query) const;
  /// IBS: what each unit's event asked to be sampled (L3MissOnly, ldlat);
  /// a filter that keeps every sample for other captures.
  const amd_ibs::SamplingFilter& filter(amd_ibs::IbsUnit unit) const;
  /// IBS: why a count of query `query` (a derived event) times the period
  /// is no estimate of its ops here, nor a ratio with it of theirs: the
  /// capture's filter sampled only some ops, and not all of the event's
  /// are among them. Empty when the count stands for all of them.
  std::string estimate_bias(std::size_t query) const;
  /// A column's value (report::column_value), and none for a ratio with a
  /// part estimate_bias() names: a ratio of filtered samples is not the
  /// ratio of the ops.
  std::optional<double> value(const Column& column, std::span<const QueryResult> results) const;

  /// Rows with samples (with Options::children, of their own or of their callees).
  std::size_t row_count() const;
  /// The share of the samples (IBS: of fetch and op samples kept; otherwise
  /// of the first event's periods) that `results` hold, in percent.
  double overhead(std::span<const QueryResult> results) const;
  /// The rows to show, by id: sorted by `sort` (a column of this report's
  /// kind: ColumnError otherwise) (highest first, rows
  /// without a value last, then by name), those whose overhead is at least
  /// `percent_limit`, the first `top` (0: all). With `children`, by the
  /// inclusive values.
  std::vector<std::uint32_t> select(const Column& sort, std::size_t top, double percent_limit = 0,
                                    bool children = false) const;
  /// A row, named, with its results. Throws tagop::Error for an id the
  /// report does not have.
  Row row(std::uint32_t id) const;
  /// With GroupBy::cacheline, what the samples of the row's line did;
  /// nullopt for other rows. Throws tagop::Error for an id the report
  /// does not have.
  std::optional<LineDetail> line(std::uint32_t id) const;
  /// perf mem captures: the load latency (mem.load_latency: the samples'
  /// PERF_SAMPLE_WEIGHT, WEIGHT_STRUCT's var1_dw) of event `event`'s loads
  /// that passed the filters, in row `row` (row()'s id, its own samples)
  /// or in all rows without one; nullopt for an event whose samples carry
  /// no data source with a weight. Its average is sum / samples.
  std::optional<MeasureSum> load_latency(std::size_t event, std::optional<std::uint32_t> row = std::nullopt) const;
  /// A row's stack, root first, for exporters (pprof, folded stacks):
  /// with GroupBy::callchain, the rows (by function, or by address where
  /// no symbol names it) of its call chain, which row() names but which
  /// hold no samples of their own; otherwise the row alone.
  std::vector<std::uint32_t> frames(std::uint32_t id) const;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace report
}  // namespace tagop
