#pragma once
// What a Report keeps after its walk: the tallies, and the rows made from
// them (rows.cpp) once per distinct address. Internal to the report.

#include <cstdint>        // std::uint32_t, std::uint64_t
#include <memory>         // std::unique_ptr
#include <optional>       // std::optional
#include <string>         // std::string
#include <unordered_map>  // row keys
#include <vector>         // std::vector

#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCapture
#include <tagop/engine.hpp>                // CompiledQuery, QueryResult
#include <tagop/process_table.hpp>         // MappedModule
#include <tagop/report/report.hpp>
#include <tagop/report/symbols.hpp>  // SymbolTable
#include <tagop/symbol_files.hpp>    // SymbolFileSearch

#include "chain_table.hpp"
#include "data_objects.hpp"
#include "entry_table.hpp"
#include "kinds.hpp"
#include "space_log.hpp"

namespace tagop::report {

/// A module on this machine as the report names it: the modules of the
/// capture with one build-id (or one file) are one, whatever their paths.
struct ModuleIdentity {
  std::vector<std::uint32_t> modules;  // ProcessTable indexes, first seen first
  std::unique_ptr<SymbolTable> symbols;
  bool tried = false;
};

/// What a row stands for. Its name is made from this when it is shown.
struct RowKey {
  // parts: a row of process, thread and cpu keys only (its name is them).
  // data_object: owner the identity, value its DataObjects index; region:
  // value an index of State::regions ("[heap]", "[no data address]" ...);
  // cacheline: value the line's address, owner the row of its data object.
  enum class Type : std::uint8_t { address, function, line, module, unmapped, process, chain, parts, data_object,
                                   region, cacheline };
  Type type = Type::address;
  std::uint32_t owner = 0;  // the identity; unmapped: 1 kernel, 0 not; process: the pid
  std::uint64_t value = 0;  // offset, function, file << 32 | line, ip, comm, chain
  // Options::by_process: the process's pid + 1 (0: a row not split) and its comm.
  std::uint32_t process = 0, comm = 0;
  // A thread key: the tid + 1; a cpu key: the CPU + 1 (0: not split).
  std::uint32_t thread = 0, cpu = 0;
  bool operator==(const RowKey&) const = default;
};
struct RowKeyHash {
  std::size_t operator()(const RowKey& k) const {
    std::uint64_t h = (std::uint64_t{k.owner} << 8 | static_cast<std::uint8_t>(k.type)) * 0x9E3779B97F4A7C15ull;
    h ^= k.value * 0xBF58476D1CE4E5B9ull;
    h ^= (std::uint64_t{k.process} << 32 | k.comm) * 0x94D049BB133111EBull;
    h ^= (std::uint64_t{k.thread} << 32 | k.cpu) * 0xD6E8FEB86659FD93ull;
    return static_cast<std::size_t>(h ^ (h >> 31));
  }
};

/// How a kind's tallies count toward each query.
struct KindOutcomes {
  struct Match {
    std::uint32_t query;
    std::int32_t sum;  // the tally's sum that is the query's total; -1: none
  };
  std::vector<Match> matches;
  std::vector<std::uint32_t> unavailable;
};

struct Report::State {
  /// A function's name as the options ask (demangle, signatures).
  std::string function_name(const SymbolTable& symbols, std::uint32_t function) const {
    if (!demangle) return symbols.symbol_name(function);
    return signatures ? symbols.function_name(function) : symbols.short_function_name(function);
  }
  /// Throws ColumnError for a column made for another kind of report.
  void check(const Column& column) const;
  /// Throws tagop::Error for a row id the report does not have.
  void check_row(std::uint32_t id) const;
  GroupBy by = GroupBy::function;
  bool ibs = false;
  bool children = false;
  bool by_process = false;  // Options::by_process, or a process or thread key
  std::vector<GroupBy> keys;  // Report::keys()
  bool split_thread = false, split_cpu = false;  // a thread, a cpu key
  bool demangle = true;
  bool signatures = false;  // Options::signatures
  std::optional<amd_ibs::IbsCapture> capture;
  CpuId cpu;
  std::string cpu_source;
  std::vector<std::string> query_names;
  Column samples_column;  // IBS: fetch and op samples
  std::vector<Query> event_queries;       // other captures: one per event
  std::vector<CompiledQuery> queries;     // of the report
  std::vector<KindOutcomes> outcomes;     // by kind
  std::vector<Kind> kinds;
  std::vector<QueryResult> totals;
  std::vector<std::string> estimate_bias;  // IBS: by query, Report::estimate_bias()
  bool filtered = false;                   // IBS: a sampling filter chose the samples
  Counts counts;
  std::array<PeriodSeen, 2> periods{};
  std::array<std::uint64_t, 2> requested_period{};
  SampleContent content;
  std::uint64_t lost = 0;
  bool truncated = false;
  perf_data::Skipped skipped;
  perf_data::ReadSummary summary;
  std::vector<std::string> warnings;

  // The tallies.
  Entries entries;
  // With a thread or cpu key: each entry's tid and CPU (the walk kept
  // them beside the chain, Walk::splits()).
  std::vector<std::uint32_t> entry_tid, entry_cpu;
  Sums sums;  // sums_width for each entry
  std::size_t sums_width = 0;
  ChainTable chains;

  // Rows: each entry's row, and each row's entries (and, with children,
  // the entries whose call chains pass through it).
  std::vector<RowKey> rows;
  std::vector<std::uint32_t> entry_row;
  std::vector<std::uint32_t> row_start, row_entries;
  std::vector<bool> latency_events;  // perf mem: events whose loads sum mem.load_latency
  std::vector<std::uint32_t> child_start, child_entries;
  std::vector<std::vector<std::uint32_t>> chain_rows;  // by callchain: each chain row's function rows, root first

  // Names.
  std::vector<MappedModule> modules;
  std::vector<std::uint32_t> identity_of_module;
  std::vector<ModuleIdentity> identities;
  std::vector<std::string> comms;
  std::unordered_map<std::uint32_t, std::string> thread_comms;  // by tid: Walk::thread_comms()
  // Data views (GroupBy::data, cacheline): where the modules' files are
  // found, each identity's data objects (null: none found), the regions' names.
  SymbolFileSearch data_files;
  std::vector<std::unique_ptr<DataObjects>> data_objects;
  std::vector<std::string> regions;
  // Data views, by entry: the row (by function) of its code address; none
  // where it has none.
  std::vector<std::uint32_t> entry_code_row;

  /// A row's results: its own samples, or with `children` those whose
  /// call chains pass through it too.
  std::vector<QueryResult> results(std::uint32_t row, bool children) const;
  /// The same into `out` (zeroed first), by `outcomes` (by kind).
  void results(std::uint32_t row, bool children, const std::vector<KindOutcomes>& by_kind,
               std::vector<QueryResult>& out) const;
  void add(std::size_t entry, const KindOutcomes& outcome, std::vector<QueryResult>& out) const;
  /// Every row's results of `queries` only (each at most once), row by
  /// row, `queries.size()` a row, in their order; by_kind: outcomes_of(queries).
  /// Without callers' entries: in one pass over the entries in their
  /// order, not row by row (a row's entries lie anywhere among them: 30 k
  /// rows read so missed the cache for nearly every entry).
  std::vector<QueryResult> row_results(std::span<const std::size_t> queries,
                                       const std::vector<KindOutcomes>& by_kind) const;
  /// The outcomes of each kind, only for these queries.
  std::vector<KindOutcomes> outcomes_of(const std::vector<std::size_t>& queries) const;
  /// A row's name: with several keys, its parts() joined by two spaces.
  std::string name(const RowKey& key) const;
  /// The name of what the row is without its process, thread and cpu.
  std::string base_name(const RowKey& key) const;
  /// With several keys: one part per key, in their order.
  std::vector<std::string> parts(const RowKey& key) const;
  const std::string& identity_path(std::uint32_t identity) const {
    return modules[identities[identity].modules.front()].filename;
  }
};

/// Rows from the walk's tallies: resolves every distinct address with the
/// mappings of its time, names it by the symbols of its module, and
/// groups the entries (rows.cpp).
void make_rows(Report::State& s, const SpaceLog& spaces, std::span<const std::shared_ptr<SymbolSource>> sources);

}  // namespace tagop::report
