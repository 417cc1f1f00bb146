// Call chains from the store (tagop report --source --by callchain,
// --children, --format folded and pprof) against the local report of the
// same perf record -g captures: the expected rows, stacks and profiles are
// the local command's on the capture files (its own path: the raw records,
// its own symbol tables), never the store's.

#include <catch2/catch.hpp>

#include <algorithm>   // std::sort
#include <chrono>      // std::chrono::milliseconds
#include <filesystem>  // std::filesystem
#include <map>         // std::map
#include <sstream>     // std::istringstream
#include <string>      // std::string
#include <string_view>  // std::string_view
#include <thread>      // std::this_thread::sleep_for
#include <tuple>       // std::tuple
#include <vector>      // std::vector

#include <fmt/format.h>       // fmt::format
#include <nlohmann/json.hpp>  // the reports' --json

#include <tagop/error.hpp>                  // tagop::Error
#include <tagop/profiles/clickhouse.hpp>    // ClickHouseServer
#include <tagop/profiles/store.hpp>         // store_captures_table_name
#include <tagop/report/ingest.hpp>          // ingest_capture
#include <tagop/report/store_report.hpp>    // store_report

#include "profiles/clickhouse_fixture.hpp"
#include "report/store_captures.hpp"
#include "run_command.hpp"

using namespace tagop;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string output_of(const std::string& arguments) {
  const RunResult r = run_tagop(arguments);
  INFO(arguments << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

std::string database(const test::LocalClickHouse& local, const std::string& name) {
  profiles::ClickHouseServer(local.url()).query("CREATE DATABASE IF NOT EXISTS " + name);
  return local.url() + "/?database=" + name;
}

// A --json events report's rows: name (and module, where the row has one)
// -> its events with samples and, with --children, its children's.
std::map<std::string, json> chain_rows(const std::string& text) {
  std::map<std::string, json> out;
  const json document = json::parse(text);  // kept: the loop reads into it
  for (const json& row : document.at("rows")) {
    std::string name = row.at("name").get<std::string>();
    if (row.contains("module")) name += "\n" + row.at("module").get<std::string>();
    json values;
    const auto sampled = [](const json& events) {
      json kept = json::object();
      for (const auto& [event, entry] : events.items())
        if (entry.at("samples").get<std::uint64_t>() != 0) kept[event] = entry;
      return kept;
    };
    values["events"] = sampled(row.at("events"));
    if (row.contains("children")) values["children"] = sampled(row.at("children"));
    INFO(name);
    CHECK(out.count(name) == 0);
    out[name] = values;
  }
  return out;
}

std::vector<std::string> sorted_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  std::sort(out.begin(), out.end());
  return out;
}

// `go tool pprof -traces` of a profile: each sample's values and stack
// (leaf first) and its pid and comm labels, the samples sorted; the header
// left out.
std::vector<std::string> pprof_traces(const std::string& file, const std::string& sample_index) {
  const RunResult r = run_shell(fmt::format("go tool pprof -sample_index={} -traces {}", sample_index, file));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> out;
  std::string trace;
  bool started = false;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (line.find("-----------+--") == 0) {
      if (started && !trace.empty()) out.push_back(trace);
      started = true;
      trace.clear();
      continue;
    }
    if (!started) continue;
    trace += line + "\n";
  }
  if (!trace.empty()) out.push_back(trace);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("report --source by call chain, with --children, and its folded and pprof stacks: the local ones",
          "[store][source][chains]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const std::string a = test::user_chain_capture("chains-a.data", 200), b = test::user_chain_capture("chains-b.data", 300);
  if (a.empty() || b.empty()) return;
  const std::string url = database(*local, "source_chains");
  for (const auto& [file, host] : {std::pair{a, "chains-a"}, std::pair{b, "chains-b"}}) {
    const RunResult ingest = run_tagop(fmt::format("ingest '{}' {} --host {}", url, file, host));
    INFO(ingest.err);
    REQUIRE(ingest.exit_code == 0);
  }
  for (const auto& [file, host] : {std::pair{a, "chains-a"}, std::pair{b, "chains-b"}}) {
    INFO(file);
    const std::string store = fmt::format("report --source '{}' --host {}", url, host);

    // Rows by call chain: each chain of names, root first, its events.
    const auto expected = chain_rows(output_of(fmt::format("report {} --by callchain --top 0 --json", file)));
    CHECK(expected.size() >= 3);
    bool deep = false;  // main;middle_a;leaf, at least (run() is inlined)
    for (const auto& [name, values] : expected) deep |= name.find("main;middle_a;leaf") != std::string::npos;
    CHECK(deep);
    CHECK(chain_rows(output_of(store + " --by callchain --top 0 --json")) == expected);

    // --max-stack: chains cut as the local report cuts them.
    CHECK(chain_rows(output_of(store + " --by callchain --max-stack 3 --top 0 --json")) ==
          chain_rows(output_of(fmt::format("report {} --by callchain --max-stack 3 --top 0 --json", file))));

    // --children by function and by module: each row's self and children.
    for (const char* by : {"function", "module"}) {
      INFO(by);
      const auto local_rows = chain_rows(output_of(fmt::format("report {} --by {} --children --top 0 --json", file, by)));
      CHECK(local_rows.size() >= 2);
      CHECK(chain_rows(output_of(fmt::format("{} --by {} --children --top 0 --json", store, by))) == local_rows);
    }

    // --percent-limit: the rows of at least that share, as the local report keeps them.
    for (const char* rows : {"--by function --percent-limit 20", "--by function --children --percent-limit 60",
                             "--by callchain --percent-limit 10"}) {
      INFO(rows);
      const auto kept = chain_rows(output_of(fmt::format("report {} {} --top 0 --json", file, rows)));
      CHECK(!kept.empty());
      CHECK(kept.size() < chain_rows(output_of(fmt::format("report {} {} --top 0 --percent-limit 0 --json", file,
                                                           std::string(rows).substr(0, std::string(rows).find(" --percent"))))).size());
      CHECK(chain_rows(output_of(fmt::format("{} {} --top 0 --json", store, rows))) == kept);
    }

    // --call-graph: perf's graph under each function, drawn as the local
    // report draws it (its first line names the capture, or the store).
    const auto graphs = [](const std::string& text) { return text.substr(text.find('\n') + 1); };
    bool branched = false;  // a graph with branches ("--66.94%--"), not only stems
    for (const char* graph : {"caller", "callee", "caller,0 --children", "callee,2 --children --top 2",
                              "caller --percent-limit 20"}) {
      INFO(graph);
      const std::string drawn = graphs(output_of(fmt::format("report {} --call-graph {}", file, graph)));
      CHECK(drawn.find("---") != std::string::npos);
      branched |= drawn.find("%--") != std::string::npos;
      CHECK(graphs(output_of(fmt::format("{} --call-graph {}", store, graph))) == drawn);
    }
    CHECK(branched);

    // Folded stacks: the same lines (each stack once, its periods).
    const std::vector<std::string> folded = sorted_lines(output_of(fmt::format("report {} --format folded", file)));
    CHECK(folded.size() >= 3);
    CHECK(sorted_lines(output_of(store + " --format folded")) == folded);
    CHECK(sorted_lines(output_of(store + " --format folded --sort task-clock:u")) ==
          sorted_lines(output_of(fmt::format("report {} --format folded --sort task-clock:u", file))));

    // pprof: every sample's values, stack, pid and comm, as go tool pprof reads them.
    const std::string local_pprof = test::temp("chains-local.pb.gz"), store_pprof = test::temp("chains-store.pb.gz");
    output_of(fmt::format("report {} --format pprof -o {}", file, local_pprof));
    output_of(fmt::format("{} --format pprof -o {}", store, store_pprof));
    for (const char* index : {"cpu-clock:u", "cpu-clock:u_samples", "task-clock:u"}) {
      INFO(index);
      const auto traces = pprof_traces(local_pprof, index);
      CHECK(traces.size() >= 3);
      CHECK(pprof_traces(store_pprof, index) == traces);
    }
    fs::remove(local_pprof);
    fs::remove(store_pprof);
  }

  // The text tables: the chains, root first; the children's column.
  const std::string text = output_of(fmt::format("report --source '{}' --host chains-a --by callchain", url));
  CHECK(text.find("main;middle_a;leaf") != std::string::npos);
  CHECK(output_of(fmt::format("report --source '{}' --children", url)).find("children") != std::string::npos);

  // --call-graph of samples without chains, or not by function: clear errors.
  const RunResult flat = run_tagop(fmt::format("report --source '{}' --host chains-a --call-graph caller --by module", url));
  CHECK(flat.exit_code == 2);
  CHECK(flat.err.find("--by function") != std::string::npos);
  const RunResult json_graph = run_tagop(fmt::format("report --source '{}' --call-graph caller --json", url));
  CHECK(json_graph.exit_code == 2);
  CHECK(json_graph.err.find("text only") != std::string::npos);

  // Functions by their symbols: not demangled, or demangled whole, as the
  // local report names them. A capture of the fixture's threads, whose
  // chains all pass through run(int) (_Z3runi).
  const std::string named = test::temp("chains-named.data");
  const RunResult recorded = run_shell(fmt::format("perf record -q -N -g -e cpu-clock:u -o {} -- {} 200 named", named,
                                                   std::getenv("TAGOP_CALLCHAIN_FIXTURE")));
  INFO(recorded.err);
  REQUIRE(recorded.exit_code == 0);
  output_of(fmt::format("ingest '{}' {} --host chains-n", url, named));
  const std::string store_n = fmt::format("report --source '{}' --host chains-n", url);
  const auto graphs = [](const std::string& text) { return text.substr(text.find('\n') + 1); };
  for (const auto& [naming, mark] : {std::pair{"--no-demangle", "_Z3runi"}, std::pair{"--signatures", "run(int)"}}) {
    INFO(naming);
    for (const char* rows : {"--by function", "--by callchain", "--by function --children"}) {
      INFO(rows);
      const auto expected = chain_rows(output_of(fmt::format("report {} {} {} --top 0 --json", named, rows, naming)));
      bool marked = false;
      for (const auto& [name, values] : expected) marked |= name.find(mark) != std::string::npos;
      if (std::string_view(rows) != "--by function") CHECK(marked);  // (run(int) may have no samples of its own)
      CHECK(chain_rows(output_of(fmt::format("{} {} {} --top 0 --json", store_n, rows, naming))) == expected);
    }
    const std::string drawn = graphs(output_of(fmt::format("report {} --call-graph caller,0 {}", named, naming)));
    CHECK(drawn.find(mark) != std::string::npos);
    CHECK(graphs(output_of(fmt::format("{} --call-graph caller,0 {}", store_n, naming))) == drawn);
  }
  fs::remove(named);

  // --no-demangle of data objects, which ingest names demangled: an error
  // that says so.
  const RunResult data = run_tagop(fmt::format("report --source '{}' --by data --no-demangle", url));
  CHECK(data.exit_code == 1);
  CHECK(data.err.find("data objects are named at ingest") != std::string::npos);
  // Captures of a tagop that kept no symbols: an error naming one, not
  // the demangled names as if they were symbols. (A mutation, waited for:
  // this server's ALTER knows no mutations_sync.)
  const profiles::ClickHouseServer server(url);
  server.query(fmt::format("ALTER TABLE {} UPDATE tagop_version = '0.10.0' WHERE host = 'chains-b'",
                           profiles::store_captures_table_name()));
  for (int i = 0; i < 200 && server.query("SELECT count() FROM system.mutations WHERE NOT is_done FORMAT TabSeparated") != "0\n"; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const RunResult old = run_tagop(fmt::format("report --source '{}' --signatures", url));
  CHECK(old.exit_code == 1);
  CHECK(old.err.find("chains-b.data of chains-b, by tagop 0.10.0") != std::string::npos);
  CHECK(run_tagop(fmt::format("report --source '{}' --host chains-a --signatures", url)).exit_code == 0);

  // Options the store's chains do not take: usage errors naming them.
  const RunResult children = run_tagop(fmt::format("report --source '{}' --by process --children", url));
  CHECK(children.exit_code == 2);
  CHECK(children.err.find("--children") != std::string::npos);
  const RunResult several = run_tagop(fmt::format("report --source '{}' --by host,callchain", url));
  CHECK(several.exit_code == 2);
  CHECK(several.err.find("callchain") != std::string::npos);
  for (const std::string& f : {a, b}) fs::remove(f);
}

TEST_CASE("a cluster's database (ingest --cluster): every shard's chains and rows, as one server's and each "
          "capture's local report's",
          "[store][cluster][chains]") {
  test::LocalClickHouse* single = test::shared_clickhouse();
  if (!single) return;
  const std::string a = test::user_chain_capture("cluster-a.data", 200), b = test::user_chain_capture("cluster-b.data", 300);
  if (a.empty() || b.empty()) return;
  // Two servers, each with the cluster "fleet" of both in its config; one
  // capture ingested to each (its own tables), and both to one server.
  const int tcp_a = test::free_port(), tcp_b = test::free_port();
  test::LocalClickHouse shard_a(test::clickhouse_binary(), "fleet", {tcp_a, tcp_b}, tcp_a);
  test::LocalClickHouse shard_b(test::clickhouse_binary(), "fleet", {tcp_a, tcp_b}, tcp_b);
  const std::string one = database(*single, "cluster_one");
  for (const auto& [shard, file, host] : {std::tuple{&shard_a, a, "web-1"}, std::tuple{&shard_b, b, "web-2"}}) {
    const RunResult ingest = run_tagop(fmt::format("ingest {} --cluster fleet {} --host {}", shard->url(), file, host));
    INFO(ingest.err);
    REQUIRE(ingest.exit_code == 0);
    CHECK(ingest.out.find("?database=fleet") != std::string::npos);  // how to read it
    REQUIRE(run_tagop(fmt::format("ingest '{}' {} --host {}", one, file, host)).exit_code == 0);
  }
  const std::string cluster_a = shard_a.url() + "/?database=fleet", cluster_b = shard_b.url() + "/?database=fleet";
  // Each shard's own database holds its capture alone.
  CHECK(json::parse(output_of(fmt::format("report --source {} --by host --json", shard_a.url()))).at("rows").size() == 1);

  // Through either shard's cluster database: what one server holding both
  // says, by host and function, by call chain, with --children, folded.
  for (const std::string& args :
       {std::string("--by host --top 0 --json"), std::string("--by host,function --top 0 --json"),
        std::string("--by callchain --top 0 --json"), std::string("--by function --children --top 0 --json"),
        // Functions by their symbols: each shard's samples joined to every shard's frames.
        std::string("--by host,function --no-demangle --top 0 --json"),
        std::string("--by function --signatures --top 0 --json")}) {
    INFO(args);
    const auto expected = chain_rows(output_of(fmt::format("report --source '{}' {}", one, args)));
    CHECK(expected.size() >= 2);
    CHECK(chain_rows(output_of(fmt::format("report --source '{}' {}", cluster_a, args))) == expected);
    CHECK(chain_rows(output_of(fmt::format("report --source '{}' {}", cluster_b, args))) == expected);
  }
  CHECK(sorted_lines(output_of(fmt::format("report --source '{}' --format folded", cluster_b))) ==
        sorted_lines(output_of(fmt::format("report --source '{}' --format folded", one))));
  // And each host's chains, whichever shard holds them, as the local
  // report of its capture.
  for (const auto& [file, host] : {std::pair{a, "web-1"}, std::pair{b, "web-2"}}) {
    INFO(host);
    CHECK(chain_rows(output_of(fmt::format("report --source '{}' --host {} --by callchain --top 0 --json", cluster_a,
                                           host))) ==
          chain_rows(output_of(fmt::format("report {} --by callchain --top 0 --json", file))));
  }
  // A diff of the two hosts through the cluster: one server's.
  CHECK(output_of(fmt::format("diff --source '{}' --host web-1 --host-b web-2 --by function --json", cluster_a)) ==
        output_of(fmt::format("diff --source '{}' --host web-1 --host-b web-2 --by function --json", one)));

  // Names that cannot be a database, or that name the shard's own: refused.
  const RunResult bad = run_tagop(fmt::format("ingest {} --cluster 'fleet; DROP TABLE x'", shard_a.url()));
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("letters, digits and _") != std::string::npos);
  const RunResult own = run_tagop(fmt::format("ingest '{}' --cluster fleet", cluster_a));
  CHECK(own.exit_code == 1);
  CHECK(own.err.find("this server's own") != std::string::npos);
  const RunResult nothing = run_tagop(fmt::format("ingest {}", shard_a.url()));
  CHECK(nothing.exit_code == 2);
  CHECK(nothing.err.find("--cluster") != std::string::npos);
  for (const std::string& f : {a, b}) fs::remove(f);
}

TEST_CASE("a capture ingested without the frames' names: a clear error, not empty names", "[store][chains]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const std::string a = test::user_chain_capture("chains-frameless.data", 100);
  if (a.empty()) return;
  const profiles::ClickHouseServer server(database(*local, "chains_frameless"));
  const report::IngestOptions ingest{.table = "s", .captures_table = "c", .frames_table = "f"};
  report::create_store_tables(server, ingest);
  report::ingest_capture(a, server, ingest);
  report::StoreReportOptions options{.by = report::GroupBy::callchain};
  options.tables = ingest;
  CHECK(!report::store_report(server, options).rows.empty());
  // No frames' table at all: a store of an older tagop.
  options.tables.frames_table = "no_such_frames";
  CHECK_THROWS_WITH(report::store_report(server, options), Catch::Contains("no frames' table (no_such_frames)"));
  // The table, without this capture's frames.
  options.tables.frames_table = "empty_frames";
  report::create_store_tables(server, {.table = "s", .captures_table = "c", .frames_table = "empty_frames"});
  CHECK_THROWS_WITH(report::store_report(server, options),
                    Catch::Contains("has no frames in empty_frames") && Catch::Contains(a));
  options.by = report::GroupBy::function;
  options.children = true;
  CHECK_THROWS_WITH(report::store_report(server, options), Catch::Contains("has no frames in empty_frames"));
  fs::remove(a);
}

TEST_CASE("a perf record --call-graph dwarf capture: its user stacks unwound at ingest, as the local report unwinds "
          "them",
          "[store][chains][dwarf]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  // The DWARF fixture is built without frame pointers: only its stack
  // copies give its callers.
  const std::string file = test::temp("chains-dwarf.data");
  const RunResult record = run_shell(fmt::format("taskset -c 0 perf record -q -o {} -e cpu-clock:u --call-graph dwarf -- {} 300",
                                                 file, std::getenv("TAGOP_DWARF_FIXTURE")));
  if (record.exit_code != 0) {
    WARN("SKIP: perf record cannot record here: " << record.err);
    return;
  }
  const std::string url = database(*local, "source_dwarf");
  const RunResult ingest = run_tagop(fmt::format("ingest '{}' {} --host dwarf", url, file));
  INFO(ingest.err);
  REQUIRE(ingest.exit_code == 0);
  const std::string store = fmt::format("report --source '{}' --host dwarf", url);
  const auto expected = chain_rows(output_of(fmt::format("report {} --by callchain --top 0 --json", file)));
  // Unwound: chains of several frames, main's callers among them.
  std::size_t deep = 0;
  for (const auto& [name, values] : expected) deep += std::count(name.begin(), name.end(), ';') >= 2;
  CHECK(deep >= 1);
  CHECK(chain_rows(output_of(store + " --by callchain --top 0 --json")) == expected);
  CHECK(chain_rows(output_of(store + " --by function --children --top 0 --json")) ==
        chain_rows(output_of(fmt::format("report {} --by function --children --top 0 --json", file))));
  CHECK(sorted_lines(output_of(store + " --format folded")) ==
        sorted_lines(output_of(fmt::format("report {} --format folded", file))));
  fs::remove(file);
}
