// The store's reports of call chains: rows by call chain, and by function
// or module with each row's children, of captures without IBS. The server
// tallies the samples by (capture, pid, ip, chain, event); each distinct
// frame's name comes from the frames' table (ingest names every (pid,
// address) of the samples and their chains once, as a local report's rows
// by function name them), and the rows are made here as rows.cpp makes a
// local report's: a sample's chain is its own address's row, then its
// chain's frames outward (the first left out where it is the sampled
// address), at most max_stack of them. And the call graphs of those rows
// (store_call_graphs), as a local report's.

#include <tagop/report/store_report.hpp>
#include <tagop/report/store_call_graph.hpp>  // store_call_graphs

#include <algorithm>      // std::sort, std::unique, std::stable_sort
#include <map>            // std::map
#include <sstream>        // std::istringstream
#include <unordered_map>  // frames by (capture, pid, address)

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>            // Error
#include <tagop/report/columns.hpp>   // resolve_column, resolve_event_column
#include <tagop/measures.hpp>         // measure
#include <tagop/profiles/store.hpp>   // store_frames_table_name

#include "../demangle.hpp"  // demangle
#include "kernel_address.hpp"
#include "store_chain_names.hpp"  // chain_rows
#include "store_text.hpp"         // sql_literal, tab_separated, number

namespace tagop::report {

namespace {

using store_text::number;
using store_text::sql_literal;
using store_text::tab_separated;

std::string table_or(const std::string& given, std::string (*standard)()) { return given.empty() ? standard() : given; }

struct FrameKey {
  std::uint64_t capture, address;
  std::uint32_t pid;
  friend bool operator==(const FrameKey&, const FrameKey&) = default;
};
struct FrameKeyHash {
  std::size_t operator()(const FrameKey& k) const {
    std::uint64_t h = (k.capture ^ k.address * 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull ^ k.pid;
    return static_cast<std::size_t>(h ^ (h >> 31));
  }
};

// The (pid, ip, chain) tallies of one capture, by event (and comm, split by
// process).
struct ChainTally {
  std::uint64_t capture = 0;
  std::uint32_t pid = 0;
  std::string comm;
  std::uint64_t ip = 0;
  std::vector<std::uint64_t> chain;
  std::string event;
  QueryResult result;
  MeasureSum latency;
};

// The frames' names of the captures the tallies are of; throws naming a
// capture the frames' table has none of (ingested before it was made).
std::unordered_map<FrameKey, StoreFrameName, FrameKeyHash> frame_names(const profiles::ClickHouseServer& server,
                                                                       const StoreReportOptions& options,
                                                                       std::vector<std::uint64_t> ids) {
  const std::string frames = store_frames_table(options.tables);
  const std::string captures = table_or(options.tables.captures_table, profiles::store_captures_table_name);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::unordered_map<FrameKey, StoreFrameName, FrameKeyHash> out;
  if (ids.empty()) return out;
  std::string list;
  for (std::uint64_t id : ids) list += fmt::format("{}{}", list.empty() ? "" : ", ", id);
  if (number(server, server.query(fmt::format("SELECT count() FROM system.tables WHERE database = currentDatabase() "
                                              "AND name = {}",
                                              sql_literal(frames)))) == 0)
    throw Error(fmt::format("{}: the store has no frames' table ({}), which names the frames of call chains: its "
                            "captures were ingested by a tagop that did not write it; ingest them again (into "
                            "another database, or after deleting their rows) to report their call chains",
                            server.url(), frames));
  std::vector<bool> named(ids.size());
  // --no-demangle and --signatures: a function by its symbol, as a local
  // report's row names it (Options::demangle, signatures).
  const bool symbols = !options.demangle || options.signatures;
  for (auto& line : tab_separated(server.query(fmt::format(
           "SELECT capture, pid, address, module, {} FROM {} WHERE capture IN ({}) FORMAT TabSeparated",
           symbols ? "if(symbol = '', function, symbol)" : "function", frames, list)))) {
    if (line.size() != 5) continue;
    if (symbols && options.demangle && line[4].starts_with("_Z")) line[4] = demangle(line[4].c_str());
    const FrameKey key{number(server, line[0]), number(server, line[2]), static_cast<std::uint32_t>(number(server, line[1]))};
    named[std::lower_bound(ids.begin(), ids.end(), key.capture) - ids.begin()] = true;
    // Written twice (ingest's bounded memory, or named again once its
    // mapping was known): the one with a module.
    auto [it, fresh] = out.try_emplace(key, StoreFrameName{std::move(line[4]), std::move(line[3])});
    if (!fresh && it->second.module.empty() && !line[3].empty()) it->second = {std::move(line[4]), std::move(line[3])};
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (named[i]) continue;
    const auto about = tab_separated(server.query(
        fmt::format("SELECT host, file FROM {} WHERE capture = {} FORMAT TabSeparated", captures, ids[i])));
    const std::string what = !about.empty() && about[0].size() == 2
                                 ? fmt::format("capture {} (host {}, file {})", ids[i], about[0][0], about[0][1])
                                 : fmt::format("capture {}", ids[i]);
    throw Error(fmt::format("{}: {} has no frames in {}: it was ingested by a tagop that did not name the frames of "
                            "call chains; ingest it again (after ALTER TABLE ... DELETE WHERE capture = {} on the "
                            "samples' and captures' tables) to report its call chains",
                            server.url(), what, frames, ids[i]));
  }
  return out;
}

const StoreFrameName& frame_of(const profiles::ClickHouseServer& server,
                               const std::unordered_map<FrameKey, StoreFrameName, FrameKeyHash>& names,
                               const FrameKey& key) {
  const auto it = names.find(key);
  if (it == names.end())
    throw Error(fmt::format("{}: the frames' table has no name for address {:#x} of pid {} of capture {} (a damaged "
                            "or half-deleted store)",
                            server.url(), key.address, key.pid, key.capture));
  return it->second;
}

// A frame's row, as a local report's row by function (or by module) names
// it: where no mapping holds the address, its module is [kernel] or
// [unknown] (and so is its name by module); by module, the file's name.
StoreFrameName row_of_frame(const StoreFrameName& frame, std::uint64_t address, bool by_module) {
  if (frame.module.empty()) {
    const char* what = kernel_address(address) ? "[kernel]" : "[unknown]";
    return {by_module ? std::string(what) : frame.name, what};
  }
  if (!by_module) return frame;
  const std::size_t slash = frame.module.rfind('/');
  return {slash == std::string::npos ? frame.module : frame.module.substr(slash + 1), frame.module};
}

// A sample's frames (rows.cpp chain_of): its own address's, then its
// chain's (the first left out where it is the sampled address), named as
// a local report's rows by function (or module) name them; the sample's
// first.
void place_frames(const profiles::ClickHouseServer& server,
                  const std::unordered_map<FrameKey, StoreFrameName, FrameKeyHash>& names, std::uint64_t capture,
                  std::uint32_t pid, std::uint64_t ip, std::span<const std::uint64_t> chain, bool by_module,
                  std::vector<StoreFrameName>& out) {
  out.clear();
  out.push_back(row_of_frame(frame_of(server, names, {capture, ip, pid}), ip, by_module));
  for (std::size_t i = 0; i < chain.size(); ++i)
    if (i != 0 || chain[i] != ip) out.push_back(row_of_frame(frame_of(server, names, {capture, chain[i], pid}), chain[i], by_module));
}

}  // namespace

namespace detail {

std::vector<std::uint64_t> chain_addresses(const profiles::ClickHouseServer& server, const std::string& text) {
  std::vector<std::uint64_t> out;
  if (text.size() < 2 || text.front() != '[' || text.back() != ']')
    throw Error(fmt::format("{}: a call chain the store sent is not an array: {}", server.url(), text));
  std::size_t begin = 1;
  while (begin + 1 < text.size()) {
    const std::size_t comma = std::min(text.find(',', begin), text.size() - 1);
    out.push_back(number(server, text.substr(begin, comma - begin)));
    begin = comma + 1;
  }
  return out;
}

std::vector<std::vector<StoreFrameName>> chain_rows(const profiles::ClickHouseServer& server,
                                                    const StoreReportOptions& options,
                                                    std::span<const ChainPlace> places, bool by_module) {
  std::vector<std::uint64_t> ids;
  for (const ChainPlace& p : places) ids.push_back(p.capture);
  const auto names = frame_names(server, options, std::move(ids));
  std::vector<std::vector<StoreFrameName>> out;
  std::vector<StoreFrameName> frames;
  for (const ChainPlace& p : places) {
    const std::span<const std::uint64_t> chain(p.chain.data(), std::min(p.chain.size(), options.max_stack));
    place_frames(server, names, p.capture, p.pid, p.ip, chain, by_module, frames);
    out.emplace_back(frames.rbegin(), frames.rend());
  }
  return out;
}

}  // namespace detail

StoreReport store_chain_report(const profiles::ClickHouseServer& server, const StoreReportOptions& options) {
  const std::vector<StoreKey> keys = options.keys.empty() ? std::vector<StoreKey>{options.by} : options.keys;
  const GroupBy* by = keys.size() == 1 ? std::get_if<GroupBy>(&keys.front()) : nullptr;
  const bool callchain = by && *by == GroupBy::callchain;
  if (!callchain && !(options.children && by && (*by == GroupBy::function || *by == GroupBy::module)))
    throw Error("the store's call chains make rows by call chain, or by function or module with --children");
  StoreReport out;
  out.ibs = false;
  out.where_sql = store_report_where_sql(options);
  const std::string samples = table_or(options.tables.table, profiles::store_table_name);
  const std::string captures = table_or(options.tables.captures_table, profiles::store_captures_table_name);
  const std::uint32_t latency = 1u << measure("mem.load_latency").index;
  const std::string selection = fmt::format("backend != 'amd-ibs'{}", out.where_sql.empty() ? "" : " AND " + out.where_sql);
  // The server keeps the first max_stack frames (at least one: the
  // slice's length 0 would mean all); the rest is cut here.
  // Split by process: by its name too (a pid that ran two programs is two
  // processes, as a local report's spaces).
  const char* comm = options.by_process ? "comm" : "''";
  const std::string answer = server.query(fmt::format(
      "SELECT capture, pid, ip, arraySlice(chain, 1, {0}) AS frames, event, count(), sum(period), "
      "countIf(bitAnd(measured, {1}) != 0), sumIf({2}, bitAnd(measured, {1}) != 0), {6} AS process FROM {3} "
      "WHERE capture IN (SELECT capture FROM {4}) AND ({5}) GROUP BY capture, pid, ip, frames, event, process "
      "FORMAT TabSeparated",
      std::max<std::size_t>(options.max_stack, 1), latency, profiles::measure_column(measure("mem.load_latency")),
      samples, captures, selection, comm));
  std::vector<ChainTally> tallies;
  bool any_chain = false;
  std::map<std::string, std::size_t> events;  // name -> column, by name
  for (const auto& line : tab_separated(answer)) {
    if (line.size() != 10) continue;
    ChainTally& t = tallies.emplace_back();
    t.capture = number(server, line[0]);
    t.pid = static_cast<std::uint32_t>(number(server, line[1]));
    t.ip = number(server, line[2]);
    t.chain = detail::chain_addresses(server, line[3]);
    any_chain |= !t.chain.empty();
    if (t.chain.size() > options.max_stack) t.chain.resize(options.max_stack);
    t.event = line[4];
    t.result.count = number(server, line[5]);
    t.result.total = number(server, line[6]);
    t.latency = {number(server, line[7]), number(server, line[8])};
    t.comm = line[9];
    events.emplace(t.event, 0);
  }
  for (auto& [name, column] : events) {
    column = out.query_names.size();
    out.query_names.push_back(name);
  }
  // As a local report: rows of chains need samples that have them.
  if (!tallies.empty() && !any_chain)
    throw Error(fmt::format("{}: {}: the store's samples{} have no call chains (record with perf record -g)",
                            server.url(), callchain ? "--by callchain" : "--children",
                            out.where_sql.empty() ? "" : " where " + out.where_sql));
  const std::size_t n = out.query_names.size();
  out.totals.assign(n, {});
  out.load_latency.assign(n, std::nullopt);
  std::vector<std::uint64_t> ids;
  for (const ChainTally& t : tallies) ids.push_back(t.capture);
  const auto names = frame_names(server, options, std::move(ids));

  // Rows by their key: the chain's names (and pid), or the frame's name
  // and module.
  std::unordered_map<std::string, std::size_t> row_of;
  const auto row = [&](const std::string& key, auto make) -> StoreRow& {
    auto [it, fresh] = row_of.try_emplace(key, out.rows.size());
    if (fresh) {
      StoreRow& r = out.rows.emplace_back();
      make(r);
      r.results.assign(n, {});
      r.load_latency.assign(n, std::nullopt);
      if (options.children) r.children.assign(n, {});
    }
    return out.rows[it->second];
  };
  const auto add_latency = [](std::optional<MeasureSum>& to, const MeasureSum& m) {
    if (!m.samples) return;
    if (!to) to.emplace();
    to->samples += m.samples;
    to->sum += m.sum;
  };
  std::vector<StoreFrameName> chain;
  std::vector<std::size_t> through;
  for (const ChainTally& t : tallies) {
    const std::size_t e = events.at(t.event);
    out.totals[e] += t.result;
    add_latency(out.load_latency[e], t.latency);
    place_frames(server, names, t.capture, t.pid, t.ip, t.chain, *by == GroupBy::module, chain);
    if (callchain) {
      std::string key;
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) key += (key.empty() ? "" : ";") + it->name;
      const std::string name = key;
      if (options.by_process) key += fmt::format("\x1F{}\x1F{}", t.pid, t.comm);
      StoreRow& r = row(key, [&](StoreRow& made) {
        made.name = name;
        made.frames.assign(chain.rbegin(), chain.rend());
        if (options.by_process) {
          made.pid = t.pid;
          made.comm = t.comm;
        }
      });
      r.results[e] += t.result;
      add_latency(r.load_latency[e], t.latency);
      continue;
    }
    // By function or module: the sample's own row, and every row its chain
    // passes through, once each (rows.cpp children()).
    through.clear();
    for (std::size_t i = 0; i < chain.size(); ++i) {
      StoreRow& r = row(chain[i].name + '\x1E' + chain[i].module, [&](StoreRow& made) {
        made.name = chain[i].name;
        made.module = chain[i].module;
      });
      const std::size_t index = static_cast<std::size_t>(&r - out.rows.data());
      if (i == 0) {
        r.results[e] += t.result;
        add_latency(r.load_latency[e], t.latency);
      }
      through.push_back(index);
    }
    std::sort(through.begin(), through.end());
    through.erase(std::unique(through.begin(), through.end()), through.end());
    for (std::size_t index : through) out.rows[index].children[e] += t.result;
  }
  return out;
}

void write_store_export(ExportFormat format, const StoreReport& chains, std::size_t event, std::string_view source,
                        const std::string& path) {
  if (event >= chains.query_names.size())
    throw Error(fmt::format("write_store_export: event {} is not one of the report's {}", event,
                            chains.query_names.size()));
  StorePageView view{.source = std::string(source)};
  view.sort = resolve_event_column(chains.query_names, chains.query_names[event]);
  write_store_export(format, chains, view, path);
}

StoreCallGraphs store_call_graphs(const StoreReport& chains, const CallGraphOptions& options) {
  StoreCallGraphs out;
  if (chains.rows.empty()) return out;
  // A function is its name in its module, as a local report's row by function.
  std::unordered_map<std::string, std::uint32_t> ids;
  std::vector<WeightedChain> weighted;
  const Column all = chains.ibs ? resolve_column("samples") : resolve_event_column(chains.query_names, "samples");
  for (const std::size_t i : store_row_order(chains, all)) {
    const StoreRow& row = chains.rows[i];
    if (row.frames.empty()) throw Error("store_call_graphs: the report's rows are not by call chain");
    WeightedChain& chain = weighted.emplace_back();
    chain.percent = store_overhead(chains, row.results);
    for (const StoreFrameName& frame : row.frames) {
      const auto [it, fresh] = ids.try_emplace(frame.name + '\x1E' + frame.module, static_cast<std::uint32_t>(out.frames.size()));
      if (fresh) out.frames.push_back(frame);
      chain.frames.push_back(it->second);
    }
  }
  out.graphs = call_graphs(weighted, options);
  // Ties by name, as the local report's graphs.
  std::stable_sort(out.graphs.begin(), out.graphs.end(), [&](const CallGraph& a, const CallGraph& b) {
    return a.percent != b.percent ? a.percent > b.percent : out.frames[a.function].name < out.frames[b.function].name;
  });
  return out;
}

}  // namespace tagop::report
