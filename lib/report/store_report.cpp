// The report from the store: of IBS captures, tally_store's tallies
// answered by the engine; of others, each event's samples and periods
// summed by the server.

#include <tagop/report/store_report.hpp>

#include <algorithm>  // std::find, std::stable_sort
#include <array>    // std::array
#include <cstdio>   // std::sscanf
#include <map>      // std::map
#include <set>      // std::set
#include <sstream>  // std::istringstream
#include <tuple>    // std::tie
#include <utility>  // std::pair

#include <fmt/format.h>  // fmt::format
#include <fmt/ranges.h>  // fmt::join

#include <tagop/amd_ibs/decoder.hpp>             // IbsDecoder
#include <tagop/amd_ibs/derived_events.hpp>      // derived_event_queries, derived_event_table
#include <tagop/amd_ibs/event_availability.hpp>  // event_availability
#include <tagop/amd_ibs/families.hpp>            // nearest_known_model
#include <tagop/amd_ibs/sampling_filters.hpp>    // sampling_filter_table
#include <tagop/error.hpp>                   // Error
#include <tagop/estimate.hpp>                // estimate_from_parts, SampledPart
#include <tagop/predicate_relation.hpp>      // implies
#include <tagop/profiles/store.hpp>          // predicate_sql, query_sql, store_captures_table_name

#include "../demangle.hpp"        // demangle
#include "data_access.hpp"        // DataAccess
#include "store_chain_names.hpp"  // chain_rows
#include "store_text.hpp"  // sql_literal, tab_separated, number

namespace tagop::report {

namespace {

using store_text::number;
using store_text::sql_literal;
using store_text::tab_separated;

std::string samples_table(const IngestOptions& o) { return o.table.empty() ? profiles::store_table_name() : o.table; }
std::string captures_table(const IngestOptions& o) {
  return o.captures_table.empty() ? profiles::store_captures_table_name() : o.captures_table;
}

// Whether the URL's database's `table` has `column` (one an older tagop's
// table may lack).
bool has_column(const profiles::ClickHouseServer& server, const std::string& table, std::string_view column) {
  return number(server, server.query(fmt::format(
             "SELECT count() FROM system.columns WHERE database = currentDatabase() AND table = {} AND name = {} "
             "FORMAT TabSeparated",
             sql_literal(table), sql_literal(column)))) != 0;
}

// The keys a report's rows are by: `keys`, or `by` alone.
std::vector<StoreKey> keys_of(const StoreReportOptions& o) {
  return o.keys.empty() ? std::vector<StoreKey>{o.by} : o.keys;
}

// A sample's module as a local report's row has it: its path, or
// [kernel] or [unknown] where no mapping holds its address (rows.cpp).
constexpr const char* module_path_sql =
    "if(module = '', if(bitShiftRight(ip, 56) = 255, '[kernel]', '[unknown]'), module)";

// A number in hex as {:#x} writes it: hex() writes whole bytes ("0123").
std::string hex_sql(std::string_view column) {
  return fmt::format("replaceRegexpOne(lower(hex({})), '^0(.)', '\\\\1')", column);
}

// A sample's data address as the local data views read it (walk.cpp):
// IBS's linear address where dc.lin_addr_valid says so, perf mem's
// PERF_SAMPLE_ADDR (ingest marks it valid when not 0); else 0.
std::string data_address_sql() {
  // The condition's bit (perf mem's samples do not observe it: not a predicate).
  ConditionSet valid;
  valid.insert(condition("dc.lin_addr_valid"));
  const int word = valid.words[0] ? 0 : 1;
  return fmt::format("if(bitAnd(conditions_{}, {}) != 0, data_linear, 0)", word ? "hi" : "lo", valid.words[word]);
}

// A sample's 64-byte cache line (perf c2c's).
std::string cacheline_sql() { return fmt::format("bitAnd({}, bitNot(toUInt64(63)))", data_address_sql()); }

// A sample's address as a local report's row by address names it:
// module+0xoffset, [unknown]+0xip ([kernel]+0x...) where no mapping holds it.
std::string address_sql() {
  return fmt::format("concat(if(module = '', if(bitShiftRight(ip, 56) = 255, '[kernel]', '[unknown]'), "
                     "replaceRegexpOne(module, '^.*/', '')), '+0x', {})",
                     hex_sql("offset"));
}

// The keys named after the tallies (name_late_parts()): a row's part that
// starts with this escape (0x1B), then 'T' (a thread) or 'L' (a cache line).
constexpr char late_name = '\x1B';

// Whether functions are named by their symbols (--no-demangle,
// --signatures) rather than by the names ingest gave them.
bool by_symbols(const StoreReportOptions& options) { return !options.demangle || options.signatures; }

// The rows a report reads: the samples' table; with functions by their
// symbols, each sample with its ip's symbol (`symbol`) from the frames'
// table, which names every sampled address of a capture's processes (the
// samples' rows do not carry it: a C++ program's symbols are a fifth of
// the bytes ingest sends). GLOBAL: a cluster's samples are joined on each
// shard to the frames of every shard. A frame named twice (before its
// mapping was known, then with it): the name with a module.
std::string samples_from(const StoreReportOptions& options) {
  const std::string samples = samples_table(options.tables);
  if (!by_symbols(options)) return samples;
  return fmt::format("{} GLOBAL ANY LEFT JOIN (SELECT capture, pid, address AS ip, argMax(symbol, length(module)) AS "
                     "symbol FROM {} GROUP BY capture, pid, ip) USING (capture, pid, ip)",
                     samples, store_frames_table(options.tables));
}

std::string key_sql(const StoreKey& key, const StoreReportOptions& options) {
  // A function (or a module's file name) with its module's path after a
  // record separator (0x1E), as a local report's rows are: functions of
  // one name in two modules (ld.so's _start and the program's) are two
  // rows; name_rows() splits it off into StoreRow::module.
  if (key == StoreKey{GroupBy::function})
    return fmt::format("concat({}, '\\x1E', {})",
                       by_symbols(options) ? "if(symbol = '', function, symbol)" : store_key_column(GroupBy::function),
                       module_path_sql);
  if (key == StoreKey{GroupBy::module})
    return fmt::format("concat(replaceRegexpOne({0}, '^.*/', ''), '\\x1E', {0})", module_path_sql);
  // A process as a local report names it, "comm [pid]" (":pid" where perf
  // recorded no name), its pid and comm after file separators (0x1C) for
  // StoreRow::pid and comm; a pid that ran two programs (exec) is two rows.
  if (key == StoreKey{GroupBy::process})
    return "concat(if(comm = '', concat(':', toString(toInt32(pid))), concat(comm, ' [', toString(toInt32(pid)), "
           "']')), '\\x1C', toString(pid), '\\x1C', comm)";
  // An address as a local report's row names it, module+0xoffset
  // ([unknown]+0xip where no mapping holds it), and its module's path.
  if (key == StoreKey{GroupBy::address}) return fmt::format("concat({}, '\\x1E', {})", address_sql(), module_path_sql);
  // A thread in its process (pid and name), as a local report splits
  // them: named after the tallies by the thread's own last name.
  if (key == StoreKey{GroupBy::thread})
    return "concat('\\x1BT', toString(tid), '\\x1B', comm, '\\x1C', toString(pid))";
  // A cache line, named after the tallies by the data object of its lowest
  // address.
  if (key == StoreKey{GroupBy::cacheline})
    return fmt::format("concat('\\x1BL', toString({}))", cacheline_sql());
  if (const GroupBy* by = std::get_if<GroupBy>(&key)) return store_key_column(*by);
  if (std::get<FleetKey>(key) == FleetKey::host) return "host";
  // As CpuId::to_string() less the stepping.
  return fmt::format("concat(vendor, ' family 0x', {}, ' model 0x', {})", hex_sql("family"), hex_sql("model"));
}

// The condition of the selection's kind of captures.
std::string backend_sql(bool ibs) { return ibs ? "backend = 'amd-ibs'" : "backend != 'amd-ibs'"; }

std::string joined(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + " AND " + b;
}

// Which kinds of captures the selection holds: IBS or not.
// The options without the local report's filters of samples (where, cpu,
// pid, tid, comm, time): the samples of the store that the host, times and
// backend choose.
StoreReportOptions chosen_samples(const StoreReportOptions& options) {
  StoreReportOptions chosen = options;
  chosen.where.reset();
  chosen.cpus.clear();
  chosen.pids.clear();
  chosen.tids.clear();
  chosen.comms.clear();
  chosen.time.reset();
  return chosen;
}

// The samples of IBS captures and of others that `options` choose.
std::pair<std::uint64_t, std::uint64_t> sample_kinds(const profiles::ClickHouseServer& server,
                                                     const StoreReportOptions& options) {
  const std::string where = store_report_where_sql(options);
  const std::string answer = server.query(fmt::format(
      "SELECT backend = 'amd-ibs' AS ibs, count() FROM {} WHERE capture IN (SELECT capture FROM {}){} GROUP BY ibs "
      "ORDER BY ibs FORMAT TabSeparated",
      samples_table(options.tables), captures_table(options.tables), where.empty() ? "" : " AND (" + where + ")"));
  std::uint64_t ibs = 0, other = 0;
  for (const auto& line : tab_separated(answer))
    if (line.size() == 2) (line[0] == "1" ? ibs : other) = number(server, line[1]);
  return {ibs, other};
}

bool choose_ibs(const profiles::ClickHouseServer& server, const StoreReportOptions& options) {
  if (options.backend != StoreBackend::automatic) return options.backend == StoreBackend::ibs;
  StoreReportOptions chosen = options;
  chosen.where.reset();  // the samples the host, times and filters choose, whatever --where keeps
  auto [ibs, other] = sample_kinds(server, chosen);
  // None meets the filters: the report (of nothing) is of the kind they filtered.
  if (!ibs && !other) std::tie(ibs, other) = sample_kinds(server, chosen = chosen_samples(options));
  if (ibs && other) {
    const std::string where = store_report_where_sql(chosen);
    throw Error(fmt::format("{}: the store's samples{} are of IBS captures ({}) and of others ({}), whose columns "
                            "differ (derived events; events by period): choose one kind (--backend amd-ibs or perf) "
                            "or the hosts of one (--host)",
                            server.url(), where.empty() ? "" : " where " + where, ibs, other));
  }
  return other == 0;
}

// Rows by process are named by the samples' comm, a column that a
// samples' table of tagop 0.8.1 lacks until an ingest adds it.
void check_process_names(const profiles::ClickHouseServer& server, const StoreReportOptions& options) {
  const std::string table = samples_table(options.tables);
  if (!has_column(server, table, "comm"))
    throw Error(fmt::format("{}: the samples' table {} has no process names (column comm): it was made by tagop 0.8.1, "
                            "whose rows by process were pids; an ingest of this tagop adds the column (its older "
                            "rows' processes are then named :pid)",
                            server.url(), table));
}

// --since and --until read the samples' wall_time, a column that a
// samples' table of tagop 0.9 lacks until an ingest adds it.
void check_wall_times(const profiles::ClickHouseServer& server, const StoreReportOptions& options) {
  const std::string table = samples_table(options.tables);
  if (!has_column(server, table, "wall_time"))
    throw Error(fmt::format("{}: the samples' table {} has no times of day (column wall_time): it was made by tagop "
                            "0.9 or before; an ingest of this tagop adds the column (its older rows are then chosen "
                            "by --since and --until by when their captures were ingested)",
                            server.url(), table));
}

// Rows by address and thread are of columns that captures ingested by
// tagop 0.8 lack (offset, thread_comm): a report of them says which.
void check_row_columns(const profiles::ClickHouseServer& server, const StoreReportOptions& options, std::string_view by,
                       std::string_view where_sql) {
  const std::string captures = captures_table(options.tables);
  const bool versioned = has_column(server, captures, "tagop_version");
  const std::string answer = server.query(fmt::format(
      "SELECT count(), any(host), any(file) FROM {} WHERE {} AND capture IN (SELECT capture FROM {}{}) FORMAT "
      "TabSeparated",
      captures, versioned ? "tagop_version = ''" : "1", samples_table(options.tables),
      where_sql.empty() ? std::string() : fmt::format(" WHERE {}", where_sql)));
  const auto lines = tab_separated(answer);
  if (lines.empty() || lines.front().size() != 3 || number(server, lines.front()[0]) == 0) return;
  throw Error(fmt::format("{}: rows by {} are not in the store's rows of {} capture(s) ingested by tagop 0.8 ({} of "
                          "{}, the first): their rows lack the samples' offsets in their modules and their threads' "
                          "names; choose other captures (--host, --since)",
                          server.url(), by, lines.front()[0], lines.front()[2], lines.front()[1]));
}

// The SQL condition of the options' captures (host, since, until) and kind,
// whatever --where keeps.
std::string captures_where_sql(const StoreReportOptions& options, bool ibs) {
  StoreReportOptions all = options;
  all.where.reset();
  return joined(backend_sql(ibs), store_report_where_sql(all));
}

// The parts that key_sql() leaves to be named after the tallies, named as a
// local report names them: a thread "tid:name", its own last name (the
// latest of its samples'), else its process's, else [unknown] (rows.cpp
// parts()); a cache line "0x<line>  <object>", the data object of its
// lowest address among the report's samples (rows.cpp name_data()).
void name_late_parts(const profiles::ClickHouseServer& server, const StoreReportOptions& options, bool ibs,
                     std::vector<std::string*>& parts) {
  bool threads = false, lines = false;
  for (const std::string* p : parts) (p->at(1) == 'T' ? threads : lines) = true;
  std::map<std::string, std::string> thread_names, line_names;
  const auto read = [&](std::map<std::string, std::string>& to, const std::string& sql) {
    for (const auto& line : tab_separated(server.query(sql)))
      if (line.size() == 2) to[line[0]] = line[1];
  };
  if (threads)
    read(thread_names, fmt::format("SELECT toString(tid), argMax(thread_comm, time) FROM {} WHERE capture IN (SELECT "
                                   "capture FROM {}) AND thread_comm != '' AND ({}) GROUP BY tid FORMAT TabSeparated",
                                   samples_table(options.tables), captures_table(options.tables),
                                   captures_where_sql(options, ibs)));
  if (lines)
    read(line_names, fmt::format("SELECT toString({0}) AS line, argMin(data_object, {1}) FROM {2} WHERE capture IN "
                                 "(SELECT capture FROM {3}) AND ({4}) GROUP BY line FORMAT TabSeparated",
                                 cacheline_sql(), data_address_sql(), samples_table(options.tables),
                                 captures_table(options.tables),
                                 joined(backend_sql(ibs), store_report_where_sql(options))));
  for (std::string* p : parts) {
    if (p->at(1) == 'T') {
      const std::size_t comm = p->find(late_name, 2);
      const std::string tid = p->substr(2, comm - 2);
      const auto named = thread_names.find(tid);
      const std::string name = named != thread_names.end() ? named->second
                               : comm != std::string::npos  ? p->substr(comm + 1)
                                                            : std::string();
      *p = fmt::format("{}:{}", tid, name.empty() ? "[unknown]" : name);
    } else {
      const std::string line = p->substr(2);
      const auto named = line_names.find(line);
      *p = fmt::format("{:#x}  {}", number(server, line), named != line_names.end() ? named->second : "");
    }
  }
}

// Splits each row's name into its keys' parts (several keys), a
// function's module and a process's pid off its name (key_sql), and names
// the parts left late (name_late_parts()).
void name_rows(const profiles::ClickHouseServer& server, const StoreReportOptions& options, bool ibs,
               std::vector<StoreRow>& rows) {
  const std::size_t keys = keys_of(options).size();
  const auto module_off = [](std::string& part, StoreRow& row) {
    if (const std::size_t separator = part.find('\x1E'); separator != std::string::npos) {
      row.module = part.substr(separator + 1);
      part.resize(separator);
    }
    if (const std::size_t separator = part.find('\x1C'); separator != std::string::npos) {
      row.pid = static_cast<std::uint32_t>(std::stoul(part.substr(separator + 1)));
      if (const std::size_t comm = part.find('\x1C', separator + 1); comm != std::string::npos)
        row.comm = part.substr(comm + 1);
      part.resize(separator);
    }
  };
  std::vector<std::string*> late;
  for (StoreRow& row : rows) {
    std::size_t begin = 0;
    for (;;) {
      const std::size_t end = row.name.find('\x1F', begin);
      row.parts.push_back(row.name.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
      module_off(row.parts.back(), row);
      if (end == std::string::npos) break;
      begin = end + 1;
    }
  }
  // --signatures: the function's symbol (its key's value) demangled whole.
  const std::vector<StoreKey> key_list = keys_of(options);
  const auto function_key = std::find(key_list.begin(), key_list.end(), StoreKey{GroupBy::function});
  if (options.demangle && options.signatures && function_key != key_list.end())
    for (StoreRow& row : rows)
      if (std::string& part = row.parts.at(static_cast<std::size_t>(function_key - key_list.begin())); part.starts_with("_Z"))
        part = demangle(part.c_str());
  // After every row's parts are made: the vectors stay put.
  for (StoreRow& row : rows)
    for (std::string& part : row.parts)
      if (part.size() > 1 && part[0] == late_name) late.push_back(&part);
  if (!late.empty()) name_late_parts(server, options, ibs, late);
  for (StoreRow& row : rows) {
    std::string name;
    for (const std::string& part : row.parts) name += (name.empty() ? "" : "  ") + part;
    row.name = std::move(name);
    if (keys < 2) row.parts.clear();
  }
}

// The events' types and configs (StoreReport::event_ids) from the
// captures' table, for the captures of the samples `where_sql` chooses.
std::vector<std::optional<StoreEventId>> event_ids(const profiles::ClickHouseServer& server,
                                                   const StoreReportOptions& options, const std::string& where_sql,
                                                   const std::vector<std::string>& names) {
  std::vector<std::optional<StoreEventId>> out(names.size());
  const std::string captures = captures_table(options.tables);
  if (!has_column(server, captures, "event_configs")) return out;
  // Each name's ids across the captures.
  std::map<std::string, std::set<std::pair<std::uint32_t, std::uint64_t>>> ids;
  const std::string answer = server.query(fmt::format(
      "SELECT name, toString(type), toString(config), length(event_names) FROM {0} LEFT ARRAY JOIN event_names AS name, "
      "event_types AS type, event_configs AS config WHERE capture IN (SELECT capture FROM {1} WHERE {2}) "
      "FORMAT TabSeparated",
      captures, samples_table(options.tables), where_sql));
  for (const auto& line : tab_separated(answer)) {
    if (line.size() != 4) continue;
    if (number(server, line[3]) == 0) return out;  // a capture of before 0.10: names alone
    ids[line[0]].emplace(static_cast<std::uint32_t>(number(server, line[1])), number(server, line[2]));
  }
  for (std::size_t e = 0; e < names.size(); ++e)
    if (const auto it = ids.find(names[e]); it != ids.end() && it->second.size() == 1)
      out[e] = StoreEventId{it->second.begin()->first, it->second.begin()->second};
  return out;
}

// Whether a captures' tagop_version is 0.`minor` or later ('' is 0.8's).
bool version_at_least(const std::string& version, unsigned minor) {
  unsigned major = 0, at = 0;
  return std::sscanf(version.c_str(), "%u.%u", &major, &at) == 2 && (major > 0 || at >= minor);
}

// The report's captures ingested by a tagop before 0.`minor`
// (tagop_version '' is 0.8's): how many, and the first as words.
std::pair<std::uint64_t, std::string> captures_before(const profiles::ClickHouseServer& server,
                                                      const StoreReportOptions& options, const std::string& where_sql,
                                                      unsigned before_minor) {
  const std::string captures = captures_table(options.tables);
  const bool versioned = has_column(server, captures, "tagop_version");
  const std::string answer = server.query(fmt::format(
      "SELECT {}, host, file FROM {} WHERE capture IN (SELECT capture FROM {}{}) FORMAT TabSeparated",
      versioned ? "tagop_version" : "''", captures, samples_table(options.tables),
      where_sql.empty() ? std::string() : " WHERE " + where_sql));
  std::uint64_t old = 0;
  std::string first;
  for (const auto& line : tab_separated(answer)) {
    if (line.size() != 3) continue;
    if (version_at_least(line[0], before_minor)) continue;
    if (old++ == 0) first = fmt::format("{} of {}, by tagop {}", line[2], line[1], line[0].empty() ? "0.8" : line[0]);
  }
  return {old, first};
}

// Captures ingested by a tagop before 0.10: their rows have no data access
// (0), so no perf c2c counts. "" where none of the report's captures is
// one, else which.
std::string captures_without_access(const profiles::ClickHouseServer& server, const StoreReportOptions& options,
                                    const std::string& where_sql) {
  const auto [old, first] = captures_before(server, options, where_sql, 10);
  if (!old) return "";
  return fmt::format("{} capture(s) ingested by a tagop before 0.10 ({}, the first) have no data access in their "
                     "rows: the lines' perf c2c counts need them ingested again by this tagop, or other captures "
                     "(--host, --since)",
                     old, first);
}

// Functions by their symbols (--no-demangle, --signatures) need the
// symbols, which ingest keeps from tagop 0.11 on; data objects are named
// at ingest, demangled.
void check_symbols(const profiles::ClickHouseServer& server, const StoreReportOptions& options,
                   const std::string& where_sql) {
  if (!by_symbols(options)) return;
  const std::vector<StoreKey> keys = keys_of(options);
  for (GroupBy data : {GroupBy::data, GroupBy::cacheline})
    if (!options.demangle && std::find(keys.begin(), keys.end(), StoreKey{data}) != keys.end())
      throw Error(fmt::format("--no-demangle: the store's data objects are named at ingest, demangled; rows by {} "
                              "are of those names",
                              name_of(data)));
  const auto [old, first] = captures_before(server, options, where_sql, 11);
  if (old)
    throw Error(fmt::format("{}: functions by their symbols ({}) are not in the rows of {} capture(s) ingested by a "
                            "tagop before 0.11 ({}, the first), which kept only the demangled names; ingest them "
                            "again with this tagop, or choose other captures (--host, --since)",
                            server.url(), options.demangle ? "--signatures" : "--no-demangle", old, first));
}

// With a cacheline key: what each row's samples did, as Report::line()
// counts them, by the rows' keys (before name_rows() names them).
void add_line_details(const profiles::ClickHouseServer& server, const StoreReportOptions& options,
                      const std::string& where_sql, StoreReport& out) {
  out.lines_unknown = captures_without_access(server, options, where_sql);
  if (!out.lines_unknown.empty()) return;
  const std::string from = fmt::format("FROM {} WHERE capture IN (SELECT capture FROM {}) AND ({})",
                                       samples_from(options), captures_table(options.tables), where_sql);
  using namespace DataAccess;
  const std::string counts = server.query(fmt::format(
      "SELECT toString({0}) AS key, count(), countIf(bitAnd(data_access, {1}) != 0), countIf(bitAnd(data_access, "
      "{2}) != 0), countIf(bitAnd(data_access, {3}) != 0), countIf(bitAnd(data_access, {4}) = {5}), "
      "countIf(bitAnd(data_access, {4}) = {4}), groupBitOr(bitShiftLeft(toUInt64(1), bitAnd({6}, 63))), "
      "arraySlice(arraySort(groupUniqArray(ip)), 1, 16) {7} GROUP BY key FORMAT TabSeparated",
      store_keys_sql(options), load, store, l1_miss, hitm | remote, hitm, data_address_sql(), from));
  std::map<std::string, LineDetail> details;
  for (const auto& line : tab_separated(counts)) {
    if (line.size() != 9) continue;
    LineDetail& d = details[line[0]];
    d.samples = number(server, line[1]);
    d.loads = number(server, line[2]);
    d.stores = number(server, line[3]);
    d.l1_misses = number(server, line[4]);
    d.local_hitm = number(server, line[5]);
    d.remote_hitm = number(server, line[6]);
    const std::uint64_t offsets = number(server, line[7]);
    for (std::uint8_t b = 0; b < 64; ++b)
      if (offsets >> b & 1) d.offsets.push_back(b);
    // "[4198400,4198407]"
    std::istringstream code(line[8].size() > 2 ? line[8].substr(1, line[8].size() - 2) : "");
    for (std::string a; std::getline(code, a, ',');) d.code_addresses.push_back(number(server, a));
  }
  // The functions by their samples, most first, then by name (two of one
  // name in two modules are two, as a local report's rows).
  std::map<std::string, std::vector<std::pair<std::uint64_t, std::string>>> functions;
  for (const auto& line : tab_separated(server.query(fmt::format(
           "SELECT toString({}) AS key, function, count() {} GROUP BY key, function, module FORMAT TabSeparated",
           store_keys_sql(options), from))))
    if (line.size() == 3) functions[line[0]].emplace_back(number(server, line[2]), line[1]);
  for (StoreRow& row : out.rows) {
    const auto d = details.find(row.name);
    if (d == details.end()) continue;
    std::vector<std::pair<std::uint64_t, std::string>>& named = functions[row.name];
    std::sort(named.begin(), named.end(),
              [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    for (std::size_t i = 0; i < named.size() && i < 16; ++i) d->second.functions.push_back(named[i].second);
    // The line's first byte, from its key's part ("\x1BL<line>").
    if (const std::size_t at = row.name.find("\x1BL"); at != std::string::npos) {
      const std::size_t end = row.name.find_first_not_of("0123456789", at + 2);
      d->second.address = number(server, row.name.substr(at + 2, end == std::string::npos ? end : end - at - 2));
    }
    row.line = std::move(d->second);
  }
}

std::uint64_t where_undecided(const profiles::ClickHouseServer& server, const StoreReportOptions& options);

// Other captures: per row and event, the samples, periods and load latency.
void events_report(const profiles::ClickHouseServer& server, const StoreReportOptions& options, StoreReport& out) {
  const std::uint32_t latency = 1u << measure("mem.load_latency").index;
  const std::string column = profiles::measure_column(measure("mem.load_latency"));
  const std::string answer = server.query(fmt::format(
      "SELECT toString({0}) AS key, event, count(), sum(period), countIf(bitAnd(measured, {1}) != 0), "
      "sumIf({2}, bitAnd(measured, {1}) != 0) FROM {3} WHERE capture IN (SELECT capture FROM {4}) AND ({5}) "
      "GROUP BY key, event ORDER BY key, event FORMAT TabSeparated",
      store_keys_sql(options), latency, column, samples_from(options), captures_table(options.tables),
      joined(backend_sql(false), out.where_sql)));
  struct Cell {
    QueryResult result;
    MeasureSum latency;
  };
  std::map<std::string, std::size_t> events;  // name -> column, by name
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, Cell>>>> rows;
  for (const auto& line : tab_separated(answer)) {
    if (line.size() != 6) continue;
    if (rows.empty() || rows.back().first != line[0]) rows.emplace_back(line[0], std::vector<std::pair<std::string, Cell>>{});
    Cell cell;
    cell.result.count = number(server, line[2]);
    cell.result.total = number(server, line[3]);
    cell.latency = {number(server, line[4]), number(server, line[5])};
    events.emplace(line[1], 0);
    rows.back().second.emplace_back(line[1], cell);
  }
  for (auto& [name, column_index] : events) {
    column_index = out.query_names.size();
    out.query_names.push_back(name);
  }
  out.event_ids = event_ids(server, options, joined(backend_sql(false), out.where_sql), out.query_names);
  const std::size_t n = out.query_names.size();
  out.totals.assign(n, {});
  out.load_latency.assign(n, std::nullopt);
  const auto add_latency = [](std::optional<MeasureSum>& to, const MeasureSum& m) {
    if (!m.samples) return;
    if (!to) to.emplace();
    to->samples += m.samples;
    to->sum += m.sum;
  };
  for (const auto& [name, cells] : rows) {
    StoreRow& row = out.rows.emplace_back();
    row.name = name;
    row.results.assign(n, {});
    row.load_latency.assign(n, std::nullopt);
    for (const auto& [event, cell] : cells) {
      const std::size_t e = events.at(event);
      row.results[e] += cell.result;
      out.totals[e] += cell.result;
      add_latency(row.load_latency[e], cell.latency);
      add_latency(out.load_latency[e], cell.latency);
    }
  }
  out.where_undecided = where_undecided(server, options);
}

// Other captures with a where: the samples it leaves open, as the engine
// decides it.
std::uint64_t where_undecided(const profiles::ClickHouseServer& server, const StoreReportOptions& options) {
  if (!options.where) return 0;
  const profiles::QuerySql sql = profiles::query_sql(Query{*options.where, std::nullopt});
  StoreReportOptions all = options;
  all.where.reset();
  const std::string answer = server.query(fmt::format(
      "SELECT countIf(NOT ({}) AND NOT ({})) FROM {} WHERE capture IN (SELECT capture FROM {}) AND ({}) "
      "FORMAT TabSeparated",
      sql.yes, sql.no, samples_table(options.tables), captures_table(options.tables),
      joined(backend_sql(false), store_report_where_sql(all))));
  return number(server, answer);
}

// IBS: the captures' periods, as a local report of each reads them
// (unit_period() of the captures' table's period columns); value 0 for a
// capture ingested before the table had them.
std::vector<StoreCapturePeriods> capture_periods(const profiles::ClickHouseServer& server, const IngestOptions& tables,
                                                 const std::vector<std::uint64_t>& ids) {
  std::vector<StoreCapturePeriods> out;
  for (std::uint64_t id : ids) out.push_back({id, {}});
  if (ids.empty()) return out;
  const std::string captures = captures_table(tables);
  // A store whose captures' table predates the period columns (ingest adds them).
  if (!has_column(server, captures, "op_filter_load_latency")) return out;
  std::string list, columns;
  for (std::uint64_t id : ids) list += fmt::format("{}{}", list.empty() ? "" : ", ", id);
  for (const char* unit : {"fetch", "op"})
    for (const char* what : {"requested", "samples", "sum", "min", "max"}) columns += fmt::format(", {}_period_{}", unit, what);
  const std::string answer = server.query(fmt::format(
      "SELECT capture{}, op_counts_ops, fetch_filter_population, fetch_filter_load_latency, op_filter_population, "
      "op_filter_load_latency FROM {} WHERE capture IN ({}) FORMAT TabSeparated",
      columns, captures, list));
  for (const auto& line : tab_separated(answer)) {
    if (line.size() != 16) continue;
    const auto at = std::find_if(out.begin(), out.end(), [&](const StoreCapturePeriods& c) {
      return c.capture == number(server, line[0]);
    });
    if (at == out.end()) continue;
    for (std::size_t u = 0; u < 2; ++u) {
      PeriodSeen seen;
      seen.samples = number(server, line[2 + 5 * u]);
      seen.sum = number(server, line[3 + 5 * u]);
      if (seen.samples) {
        seen.min = number(server, line[4 + 5 * u]);
        seen.max = number(server, line[5 + 5 * u]);
      }
      seen.counts_ops = u == 1 && line[11] == "1";
      at->units[u] = unit_period(static_cast<amd_ibs::IbsUnit>(u), seen, number(server, line[1 + 5 * u]));
      // The filter: its population and load latency, and L3MissOnly where
      // the population is (at least) its (Zen 5's ldlat sets it too).
      amd_ibs::SamplingFilter& f = at->filters[u];
      const std::string& population = line[12 + 2 * u];
      f.load_latency = static_cast<std::uint32_t>(number(server, line[13 + 2 * u]));
      if (!population.empty()) f.population = Predicate::parse(population);
      for (const amd_ibs::SamplingFilterSpec& spec : amd_ibs::sampling_filter_table())
        if (spec.unit == static_cast<amd_ibs::IbsUnit>(u) && spec.kind == amd_ibs::SamplingFilterKind::l3_miss_only)
          f.l3_miss_only = !population.empty() && implies(f.population, Predicate::parse(spec.population));
    }
  }
  return out;
}

// IBS: by query, why some of its samples could not decide it, as a local
// report of each capture says (Report::why_undecided()): the reasons of
// each capture's processor's layout (the nearest model tagop knows, as the
// capture is decoded; with L3MissOnly, its ops' l3.miss assumed), each
// once. Asked of the server only where some query has undecided samples.
std::vector<std::vector<std::string>> undecided_reasons(const profiles::ClickHouseServer& server,
                                                        const IngestOptions& tables, const StoreReport& report) {
  const auto table = amd_ibs::derived_event_table();
  std::vector<std::vector<std::string>> out(table.size());
  const bool any = std::any_of(report.totals.begin(), report.totals.end(), [](const QueryResult& q) { return q.undecided != 0; });
  if (!any || report.captures.empty()) return out;
  std::string list;
  for (const StoreCapturePeriods& c : report.captures) list += fmt::format("{}{}", list.empty() ? "" : ", ", c.capture);
  const std::string answer = server.query(fmt::format(
      "SELECT toString(capture), any(family), any(model) FROM {} WHERE capture IN ({}) GROUP BY capture FORMAT "
      "TabSeparated",
      samples_table(tables), list));
  for (const auto& line : tab_separated(answer)) {
    if (line.size() != 3) continue;
    const std::uint64_t id = number(server, line[0]);
    const auto family = static_cast<unsigned>(number(server, line[1])), model = static_cast<unsigned>(number(server, line[2]));
    amd_ibs::IbsDecoder decoder(family, amd_ibs::nearest_known_model(family, model).value_or(model));
    for (const StoreCapturePeriods& c : report.captures)
      if (c.capture == id && c.filters[static_cast<std::size_t>(amd_ibs::IbsUnit::op)].l3_miss_only)
        decoder.assume(amd_ibs::IbsUnit::op, ConditionSet{condition("l3.miss")});
    for (std::size_t q = 0; q < table.size() && q < report.totals.size(); ++q) {
      if (report.totals[q].undecided == 0) continue;
      for (const std::string& why : amd_ibs::event_availability(table[q], decoder).reasons)
        if (std::find(out[q].begin(), out[q].end(), why) == out[q].end()) out[q].push_back(why);
    }
  }
  return out;
}

// One capture's results in a row (or in all rows): its index in
// StoreReport::captures, and one result per query.
struct CaptureResults {
  std::size_t capture = 0;
  std::vector<QueryResult> results;
};

// The estimate of count query `q` of a row (or the totals), `merged` its
// results over `parts`, each capture's: the captures with samples of the
// query's unit there, each by its own period; none: a count of 0 over every
// capture of the report whose period is known.
std::optional<StoreEstimate> estimate_of(std::size_t q, const QueryResult& merged,
                                         const std::vector<CaptureResults>& parts, const StoreReport& report,
                                         const std::array<std::size_t, 2>& unit_samples) {
  const std::vector<StoreCapturePeriods>& captures = report.captures;
  const auto& event = amd_ibs::derived_event_table()[q];
  if (!event.sums.empty() || !merged.available() || !report.estimate_bias[q].empty()) return std::nullopt;
  const auto u = static_cast<std::size_t>(event.unit);
  std::vector<SampledPart> sampled;
  std::vector<const UnitPeriod*> periods;
  for (const CaptureResults& part : parts)
    if (part.results[unit_samples[u]].count) {
      periods.push_back(&captures[part.capture].units[u]);
      sampled.push_back({part.results[q].count, periods.back()->value});
    }
  if (sampled.empty())
    for (const StoreCapturePeriods& c : captures)
      if (c.units[u].value > 0) {
        periods.push_back(&c.units[u]);
        sampled.push_back({0, c.units[u].value});
      }
  if (sampled.empty()) return std::nullopt;
  for (const UnitPeriod* p : periods)
    if (p->value <= 0 || p->unit != periods.front()->unit) return std::nullopt;  // not known, or other units
  return StoreEstimate{merged.count, estimate_from_parts(sampled), periods.front()->unit};
}

// An IBS tally row by call chain: its row's key, name, frames and process.
struct ChainRow {
  std::string key;  // the name, and the pid and comm where rows are split by process
  std::string name;
  std::vector<StoreFrameName> frames;
  std::optional<std::uint32_t> pid;
  std::string comm;
};

// The rows of IBS tallies keyed "pid 0x1F ip 0x1F [chain] 0x1D capture"
// ("[chain] 0x1E comm" split by process) (ibs_report), as a local report's
// rows by call chain (store_chain_report's naming): the chain's frames'
// names joined by ';', root first.
std::vector<ChainRow> rows_by_chain(const profiles::ClickHouseServer& server, const StoreReportOptions& options,
                                    const std::vector<std::string>& keys, bool by_module) {
  std::vector<detail::ChainPlace> places;
  std::vector<std::string> comms;
  for (const std::string& key : keys) {
    const std::size_t pid_end = key.find('\x1F'), ip_end = key.find('\x1F', pid_end + 1), capture = key.rfind('\x1D');
    if (pid_end == std::string::npos || ip_end == std::string::npos || capture == std::string::npos || capture < ip_end)
      throw Error(fmt::format("{}: a tally key the store sent is not pid, ip, chain and capture", server.url()));
    const std::size_t comm = std::min(key.find('\x1E', ip_end), capture);
    comms.push_back(comm < capture ? key.substr(comm + 1, capture - comm - 1) : std::string());
    places.push_back({number(server, key.substr(capture + 1)),
                      static_cast<std::uint32_t>(number(server, key.substr(0, pid_end))),
                      number(server, key.substr(pid_end + 1, ip_end - pid_end - 1)),
                      detail::chain_addresses(server, key.substr(ip_end + 1, comm - ip_end - 1))});
  }
  std::vector<std::vector<StoreFrameName>> frames = detail::chain_rows(server, options, places, by_module);
  std::vector<ChainRow> out;
  for (std::size_t i = 0; i < places.size(); ++i) {
    ChainRow& row = out.emplace_back();
    for (const StoreFrameName& f : frames[i]) row.name += (row.name.empty() ? "" : ";") + f.name;
    row.key = row.name;
    if (options.by_process) {
      row.key += fmt::format("\x1F{}\x1F{}", places[i].pid, comms[i]);
      row.pid = places[i].pid;
      row.comm = comms[i];
    }
    row.frames = std::move(frames[i]);
  }
  return out;
}

// IBS captures: tally_store's tallies by key and capture, answered by the
// engine and summed by key (each capture's part kept for the estimates).
void ibs_report(const profiles::ClickHouseServer& server, const StoreReportOptions& options, StoreReport& out) {
  // The key, and the capture after a group separator (0x1D). By call
  // chain, or with the callees' (by function or module): the sample's pid,
  // ip and first max_stack frames, whose names come from the frames' table
  // (rows_by_chain); split by process, its comm too.
  const bool children = options.children;
  const bool by_module = children && keys_of(options) == std::vector<StoreKey>{GroupBy::module};
  const bool chains = children || keys_of(options) == std::vector<StoreKey>{GroupBy::callchain};
  const std::string row_key =
      chains ? fmt::format("concat(toString(pid), '\\x1F', toString(ip), '\\x1F', toString(arraySlice(chain, 1, {})){})",
                           std::max<std::size_t>(options.max_stack, 1), options.by_process ? ", '\\x1E', comm" : "")
             : store_keys_sql(options);
  const std::string key = fmt::format("concat(toString({}), '\\x1D', toString(capture))", row_key);
  const StoreTallies tallies =
      tally_store(server, key, joined(backend_sql(true), out.where_sql), options.tables, samples_from(options));
  const std::vector<ChainRow> chain_of =
      chains ? rows_by_chain(server, options, tallies.rows, by_module) : std::vector<ChainRow>{};
  const std::span<const Query> queries = amd_ibs::derived_event_queries();
  for (const auto& e : amd_ibs::derived_event_table()) out.query_names.push_back(amd_ibs::select_string(e.select));
  out.totals = tallies.tallies.evaluate(queries);
  std::vector<std::vector<QueryResult>> by_row = tallies.tallies.evaluate_by_row(queries);
  by_row.resize(tallies.rows.size(), std::vector<QueryResult>(queries.size()));

  std::vector<std::uint64_t> ids;
  std::vector<std::vector<CaptureResults>> parts, child_parts;  // by row of `out`
  std::map<std::string, std::size_t> row_of;                     // key -> row of `out`
  // The row of a key, a new one (`make` names it) when it has none.
  const auto row_at = [&](const std::string& key, auto make) {
    const auto [row, added] = row_of.emplace(key, out.rows.size());
    if (added) {
      StoreRow& made = out.rows.emplace_back();
      made.name = key;
      made.results.assign(queries.size(), {});
      if (children) made.children.assign(queries.size(), {});
      make(made);
      parts.emplace_back();
      child_parts.emplace_back();
    }
    return row->second;
  };
  std::vector<std::size_t> through;
  for (std::size_t t = 0; t < tallies.rows.size(); ++t) {
    const std::string& name = tallies.rows[t];
    const std::size_t separator = name.rfind('\x1D');
    const std::uint64_t id = number(server, name.substr(separator + 1));
    auto at = std::find(ids.begin(), ids.end(), id);
    if (at == ids.end()) at = ids.insert(ids.end(), id);
    const auto capture = static_cast<std::size_t>(at - ids.begin());
    std::size_t row = 0;
    if (children) {
      // The sample's own row, and every row its chain passes through, once
      // each (rows.cpp children()), as the chains' rows by function or
      // module (store_chain_report).
      const auto frame_row = [&](const StoreFrameName& f) {
        return row_at(f.name + '\x1E' + f.module, [&](StoreRow& made) {
          made.name = f.name;
          made.module = f.module;
        });
      };
      row = frame_row(chain_of[t].frames.back());
      through.clear();
      for (const StoreFrameName& f : chain_of[t].frames) through.push_back(frame_row(f));
      std::sort(through.begin(), through.end());
      through.erase(std::unique(through.begin(), through.end()), through.end());
      for (std::size_t r : through) {
        for (std::size_t q = 0; q < queries.size(); ++q) out.rows[r].children[q] += by_row[t][q];
        child_parts[r].push_back({capture, by_row[t]});
      }
    } else if (chains) {
      row = row_at(chain_of[t].key, [&](StoreRow& made) {
        made.name = chain_of[t].name;
        made.frames = chain_of[t].frames;
        made.pid = chain_of[t].pid;
        made.comm = chain_of[t].comm;
      });
    } else {
      row = row_at(name.substr(0, separator), [](StoreRow&) {});
    }
    for (std::size_t q = 0; q < queries.size(); ++q) out.rows[row].results[q] += by_row[t][q];
    parts[row].push_back({capture, std::move(by_row[t])});
  }
  out.captures = capture_periods(server, options.tables, ids);
  // Which counts the captures' sampling filters bias, as a local report of
  // each finds them.
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const auto& e = amd_ibs::derived_event_table()[q];
    std::string& bias = out.estimate_bias.emplace_back();
    for (const StoreCapturePeriods& c : out.captures) {
      const amd_ibs::SamplingFilter& f = c.filters[static_cast<std::size_t>(e.unit)];
      if (!bias.empty() || !f.any()) continue;
      if (f.load_latency)
        bias = fmt::format("capture {:016x} samples loads with ldlat={}: no count of {}'s ops follows from them",
                           c.capture, f.load_latency, amd_ibs::select_string(e.select));
      else if (!implies(queries[q].predicate, f.population))
        bias = fmt::format("capture {:016x} samples only {}: {}'s ops outside them were not sampled", c.capture,
                           f.population.to_string(), amd_ibs::select_string(e.select));
    }
  }

  // The samples of each unit: 0xF000 counts every fetch sample, 0xF100 every op sample.
  const std::array<std::size_t, 2> unit_samples{*resolve_column("0xF000").event, *resolve_column("0xF100").event};
  std::vector<CaptureResults> totals;  // by capture
  for (std::size_t c = 0; c < ids.size(); ++c) totals.push_back({c, std::vector<QueryResult>(queries.size())});
  for (std::size_t r = 0; r < out.rows.size(); ++r) {
    StoreRow& row = out.rows[r];
    for (std::size_t q = 0; q < queries.size(); ++q) {
      row.estimates.push_back(estimate_of(q, row.results[q], parts[r], out, unit_samples));
      if (children) row.children_estimates.push_back(estimate_of(q, row.children[q], child_parts[r], out, unit_samples));
    }
    for (const CaptureResults& part : parts[r])
      for (std::size_t q = 0; q < queries.size(); ++q) totals[part.capture].results[q] += part.results[q];
  }
  for (std::size_t q = 0; q < queries.size(); ++q)
    out.estimates.push_back(estimate_of(q, out.totals[q], totals, out, unit_samples));
  out.undecided_reasons = undecided_reasons(server, options.tables, out);
}

}  // namespace

double store_overhead(const StoreReport& report, std::span<const QueryResult> results) {
  auto share = [](double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; };
  if (!report.ibs)
    return results.empty() || report.totals.empty()
               ? 0
               : share(static_cast<double>(results[0].total), static_cast<double>(report.totals[0].total));
  // As Report::overhead(): the "samples" column's value, fetch and op samples.
  const Column samples = resolve_column("samples");
  return share(*column_value(samples, results), *column_value(samples, report.totals));
}

std::optional<double> store_value(const StoreReport& report, const Column& column, std::span<const QueryResult> results) {
  if (column.ratio)
    for (std::size_t q : column.queries())
      if (q < report.estimate_bias.size() && !report.estimate_bias[q].empty()) return std::nullopt;
  return column_value(column, results);
}

std::optional<UnitPeriod> store_shared_period(const StoreReport& report, std::size_t unit) {
  std::optional<UnitPeriod> out;
  for (const StoreCapturePeriods& c : report.captures) {
    const UnitPeriod& p = c.units.at(unit);
    if (p.value == 0) continue;  // no samples of the unit
    if (out && (out->value != p.value || out->unit != p.unit || out->source != p.source)) return std::nullopt;
    out = p;
  }
  return out;
}

std::vector<std::size_t> store_row_order(const StoreReport& report, const Column& sort, std::size_t top,
                                         double percent_limit) {
  std::vector<std::size_t> order;
  std::vector<double> key(report.rows.size());
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const StoreRow& row = report.rows[i];
    const std::span<const QueryResult> shown = row.children.empty() ? row.results : row.children;
    if (percent_limit > 0 && store_overhead(report, shown) < percent_limit) continue;
    order.push_back(i);
    key[i] = store_value(report, sort, shown).value_or(-1);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return key[a] != key[b] ? key[a] > key[b] : report.rows[a].name < report.rows[b].name;
  });
  if (top && order.size() > top) order.resize(top);
  return order;
}

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
    case GroupBy::address: return address_sql();
    case GroupBy::cacheline: return cacheline_sql();
    default: break;
  }
  throw Error(fmt::format("--by {}: the store's rows are by function, module, process, thread, cpu, line, data, "
                          "address or cacheline, by callchain (alone), or by host or processor",
                          name_of(by)));
}

std::string store_key_name(const StoreKey& key) {
  if (const GroupBy* by = std::get_if<GroupBy>(&key)) return std::string(name_of(*by));
  return std::get<FleetKey>(key) == FleetKey::host ? "host" : "processor";
}

std::vector<StoreKey> parse_store_keys(std::string_view list) {
  std::vector<StoreKey> out;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t comma = list.find(',', begin);
    const std::string_view name = list.substr(begin, comma == std::string_view::npos ? std::string_view::npos : comma - begin);
    StoreKey key;
    if (name == "host") key = FleetKey::host;
    else if (name == "processor") key = FleetKey::processor;
    else if (const std::optional<GroupBy> by = parse_group_by(name)) {
      if (*by != GroupBy::callchain) (void)store_key_column(*by);  // throws for a key the store lacks
      key = *by;
    } else
      throw Error(fmt::format("--by '{}': '{}' is not a key of the store's rows: host, processor, function, module, "
                              "process, thread, cpu, line, data or callchain (alone), or several separated by commas (host,function)",
                              list, name));
    for (const StoreKey& k : out)
      if (k == key) throw Error(fmt::format("--by '{}': {} twice", list, name));
    out.push_back(key);
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  if (out.size() > 1 && std::find(out.begin(), out.end(), StoreKey{GroupBy::callchain}) != out.end())
    throw Error(fmt::format("--by '{}': callchain is a key alone (its rows are the chains' frames, root first)", list));
  return out;
}

std::string store_keys_sql(const StoreReportOptions& options) {
  const std::vector<StoreKey> keys = keys_of(options);
  if (keys.size() == 1) return key_sql(keys.front(), options);
  std::string out = "concat(";
  for (std::size_t i = 0; i < keys.size(); ++i) out += fmt::format("{}toString({})", i ? ", '\\x1F', " : "", key_sql(keys[i], options));
  return out + ")";
}

std::string store_report_where_sql(const StoreReportOptions& options) {
  std::vector<std::string> parts;
  if (!options.host.empty()) parts.push_back(fmt::format("host = {}", sql_literal(options.host)));
  const std::string captures = captures_table(options.tables);
  // A sample by its time of day where its capture says it (wall_time),
  // else by when its capture was ingested (rows of tagop 0.9, captures
  // without perf's sample times).
  for (const auto& [time, op] : {std::pair{&options.since, ">="}, std::pair{&options.until, "<"}})
    if (!time->empty())
      parts.push_back(fmt::format(
          "(wall_time != 0 AND wall_time {0} toUInt64(toUnixTimestamp(parseDateTimeBestEffort({2}))) * 1000000000 OR "
          "wall_time = 0 AND capture IN (SELECT capture FROM {1} WHERE ingested {0} parseDateTimeBestEffort({2})))",
          op, captures, sql_literal(*time)));
  // A local report's filters of samples, of the same columns.
  const auto any_of = [&](const char* column, const auto& values, auto literal) {
    if (values.empty()) return;
    std::vector<std::string> listed;
    for (const auto& v : values) listed.push_back(literal(v));
    parts.push_back(fmt::format("{} IN ({})", column, fmt::join(listed, ", ")));
  };
  const auto number_literal = [](std::uint32_t v) { return fmt::format("{}", v); };
  any_of("cpu", options.cpus, number_literal);
  any_of("pid", options.pids, number_literal);
  any_of("tid", options.tids, number_literal);
  any_of("comm", options.comms, [](const std::string& v) { return sql_literal(v); });
  if (options.time) parts.push_back(fmt::format("time >= {} AND time <= {}", options.time->start, options.time->stop));
  if (options.where) parts.push_back(fmt::format("({})", profiles::predicate_sql(*options.where)));
  std::string out;
  for (const std::string& p : parts) out = joined(out, p);
  return out;
}

namespace {

// A report without rows: whether the host, times and backend chose any
// sample (else the filters left none); of other captures, the events of
// those samples as its columns, each of none, as a local report whose
// filters keep nothing has its capture's events.
void describe_empty(const profiles::ClickHouseServer& server, const StoreReportOptions& options, StoreReport& out) {
  const std::string where = joined(backend_sql(out.ibs), store_report_where_sql(chosen_samples(options)));
  std::vector<std::string> events;
  for (auto& line : tab_separated(server.query(
           fmt::format("SELECT event FROM {} WHERE capture IN (SELECT capture FROM {}) AND ({}) GROUP BY event ORDER "
                       "BY event FORMAT TabSeparated",
                       samples_table(options.tables), captures_table(options.tables), where))))
    if (line.size() == 1) events.push_back(std::move(line[0]));
  out.chosen_none = events.empty();
  if (out.ibs || !out.query_names.empty()) return;
  out.query_names = std::move(events);
  out.event_ids = event_ids(server, options, where, out.query_names);
  out.totals.assign(out.query_names.size(), {});
  out.load_latency.assign(out.query_names.size(), std::nullopt);
}

// The report's rows, and its columns where it has rows.
StoreReport store_report_rows(const profiles::ClickHouseServer& server, const StoreReportOptions& options) {
  if (!options.since.empty() || !options.until.empty()) check_wall_times(server, options);
  StoreReport out;
  out.where_sql = store_report_where_sql(options);
  const std::vector<StoreKey> keys_given = keys_of(options);
  check_symbols(server, options, out.where_sql);
  if (options.children || keys_given == std::vector<StoreKey>{GroupBy::callchain}) {
    if (choose_ibs(server, options)) {
      // IBS: the tallies by chain, named from the frames' table.
      out.ibs = true;
      ibs_report(server, options, out);
      return out;
    }
    // Of the chains and the frames' table (store_chains.cpp).
    out = store_chain_report(server, options);
    out.where_undecided = where_undecided(server, options);
    return out;
  }
  (void)store_keys_sql(options);  // throws for a key the store lacks, before any query
  const auto has = [&](GroupBy by) {
    return std::find(keys_given.begin(), keys_given.end(), StoreKey{by}) != keys_given.end();
  };
  if (has(GroupBy::process)) check_process_names(server, options);
  out.ibs = choose_ibs(server, options);
  for (GroupBy by : {GroupBy::address, GroupBy::thread})
    if (has(by)) check_row_columns(server, options, name_of(by), joined(backend_sql(out.ibs), out.where_sql));
  if (out.ibs) ibs_report(server, options, out);
  else events_report(server, options, out);
  if (has(GroupBy::cacheline)) add_line_details(server, options, joined(backend_sql(out.ibs), out.where_sql), out);
  name_rows(server, options, out.ibs, out.rows);
  return out;
}

}  // namespace

std::string store_damage(const profiles::ClickHouseServer& server, const StoreReportOptions& options) {
  const std::string captures = captures_table(options.tables);
  const bool kept = has_column(server, captures, "damage"), versioned = has_column(server, captures, "tagop_version");
  const StoreReportOptions chosen = chosen_samples(options);
  const std::string where = joined(options.backend == StoreBackend::automatic ? std::string()
                                                                             : backend_sql(options.backend == StoreBackend::ibs),
                                   store_report_where_sql(chosen));
  const std::string answer = server.query(fmt::format(
      "SELECT {}, {}, host, file FROM {} WHERE capture IN (SELECT capture FROM {}{}) ORDER BY host, file FORMAT "
      "TabSeparated",
      versioned ? "tagop_version" : "''", kept ? "damage" : "''", captures, samples_table(options.tables),
      where.empty() ? std::string() : " WHERE " + where));
  std::uint64_t damaged = 0;
  std::string first;
  for (const auto& line : tab_separated(answer)) {
    if (line.size() != 4) continue;
    const bool known = version_at_least(line[0], 11);
    if (known && line[1].empty()) continue;
    if (damaged++ == 0)
      first = fmt::format("{} of {} {}", line[3], line[2],
                          known ? fmt::format("is damaged ({})", line[1])
                                : fmt::format("was ingested by tagop {}, which did not keep what its reading met",
                                              line[0].empty() ? "0.8" : line[0]));
  }
  if (!damaged) return "";
  return damaged == 1 ? first : fmt::format("{} (and {} other capture(s))", first, damaged - 1);
}

StoreReport store_report(const profiles::ClickHouseServer& server, const StoreReportOptions& options) {
  StoreReport out = store_report_rows(server, options);
  if (out.rows.empty()) describe_empty(server, options, out);
  return out;
}

EventMatches store_match_events(const StoreReport& a, const StoreReport& b) {
  const auto id = [](const StoreReport& r, std::size_t e) {
    return e < r.event_ids.size() ? r.event_ids[e] : std::nullopt;
  };
  EventMatches out;
  std::vector<bool> taken(b.query_names.size());
  for (std::size_t e = 0; e < a.query_names.size(); ++e) {
    bool found = false;
    for (std::size_t f = 0; f < taken.size() && !found; ++f) {
      const std::optional<StoreEventId> ia = id(a, e), ib = id(b, f);
      if (taken[f] || (ia && ib ? *ia != *ib : a.query_names[e] != b.query_names[f])) continue;
      taken[f] = found = true;
      out.matched.push_back({e, f, a.query_names[e], b.query_names[f]});
    }
    if (!found) out.only_a.push_back(a.query_names[e]);
  }
  for (std::size_t f = 0; f < taken.size(); ++f)
    if (!taken[f]) out.only_b.push_back(b.query_names[f]);
  return out;
}

std::vector<DiffColumn> store_diff(const StoreReport& a, const StoreReport& b, const std::vector<Column>& columns) {
  if (a.ibs != b.ibs)
    throw Error(fmt::format("A's samples are {} IBS captures and B's {}: their columns cannot be compared",
                            a.ibs ? "of" : "not of", b.ibs ? "of" : "not of"));
  // A process by its name alone, as a local diff matches them: pids
  // differ between runs.
  const auto name = [](const StoreRow& row) {
    if (!row.pid || !row.parts.empty()) return row.name;
    const std::string pid = fmt::format(" [{}]", static_cast<std::int32_t>(*row.pid));
    return row.name.ends_with(pid) ? row.name.substr(0, row.name.size() - pid.size()) : row.name;
  };
  const auto side = [&](const StoreReport& r) {
    DiffSide out;
    for (const StoreRow& row : r.rows) out.rows.push_back({name(row), row.module, row.results});
    out.totals = r.totals;
    out.value = [](const Column& c, std::span<const QueryResult> results) { return column_value(c, results); };
    return out;
  };
  if (a.ibs) return diff_sides(side(a), side(b), columns, columns);
  // Other captures: each pair of events, as a local diff pairs them.
  const EventMatches matches = store_match_events(a, b);
  std::vector<Column> columns_a, columns_b;
  for (const EventMatch& m : matches.matched) {
    columns_a.push_back(resolve_event_column(a.query_names, m.name_a));
    columns_b.push_back(resolve_event_column(b.query_names, m.name_b));
  }
  if (columns_a.empty())
    throw Error(fmt::format("no event of A's samples ({}) matches one of B's ({}) (the same type and config, as perf "
                            "diff matches them): nothing to compare",
                            fmt::join(a.query_names, ", "), fmt::join(b.query_names, ", ")));
  return diff_sides(side(a), side(b), columns_a, columns_b);
}

}  // namespace tagop::report
