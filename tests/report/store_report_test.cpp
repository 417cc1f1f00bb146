// tagop ingest against a local clickhouse-server (started once for this
// executable, tests/profiles/clickhouse_fixture.hpp): the rows of a capture
// asked every IBS derived event as SQL (profiles::query_sql) give the local
// report's totals (report::Report, which tallies raw payloads on its own
// path) and its per-process counts; a `perf mem` capture's rows answer
// --where predicates with the samples written for each data source; a
// capture is ingested once, all or none; wrong URLs, a server that is down
// and a table of another schema are clear errors.

#include <catch2/catch.hpp>

#include <algorithm>   // std::find
#include <chrono>      // std::chrono::milliseconds
#include <cmath>       // std::sqrt
#include <filesystem>  // std::filesystem
#include <map>         // std::map
#include <regex>       // the fixture's segments, from readelf
#include <set>         // std::set
#include <sstream>     // std::istringstream
#include <thread>      // std::this_thread::sleep_for

#include <fmt/format.h>  // fmt::format
#include <fmt/ranges.h>  // fmt::join
#include <nlohmann/json.hpp>  // the reports' --json

#include <linux/perf_event.h>  // perf_event_attr

#include <tagop/amd_ibs/derived_events.hpp>  // derived_event_queries
#include <tagop/amd_ibs/perf_capture.hpp>  // IbsCaptureWriter
#include <tagop/error.hpp>                 // tagop::Error
#include <tagop/perf_data_writer.hpp>      // PerfDataWriter
#include <tagop/profiles/store.hpp>        // query_sql
#include <tagop/registry.hpp>              // Registry
#include <tagop/report/columns.hpp>        // resolve_column
#include <tagop/report/ingest.hpp>         // ingest_capture
#include <tagop/report/report.hpp>         // Report
#include <tagop/report/store_report.hpp>   // store_report

#include "profiles/clickhouse_fixture.hpp"
#include "report/store_captures.hpp"
#include "report/store_commands.hpp"
#include "run_command.hpp"
#include "splitmix.hpp"

using namespace tagop;
namespace fs = std::filesystem;
using test::temp;
using test::zen_capture;

namespace {

std::vector<std::vector<std::uint64_t>> rows_of(const std::string& answer) {
  std::vector<std::vector<std::uint64_t>> out;
  std::istringstream lines(answer);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream in(line);
    std::vector<std::uint64_t> row;
    for (std::uint64_t v; in >> v;) row.push_back(v);
    out.push_back(row);
  }
  return out;
}

std::uint64_t number(const profiles::ClickHouseServer& server, const std::string& sql) {
  const auto rows = rows_of(server.query(sql));
  REQUIRE(rows.size() == 1);
  REQUIRE(rows[0].size() == 1);
  return rows[0][0];
}

// Every derived event of the report, as the report asks it (its unit's
// condition and its predicate, amd_ibs::derived_event_queries()).
struct Asked {
  std::size_t column;  // in the report's query_names()
  Query query;
  std::string label;
};
std::vector<Asked> derived_events(const report::Report& r) {
  std::vector<Asked> out;
  const auto queries = amd_ibs::derived_event_queries();
  REQUIRE(queries.size() == r.query_names().size());
  for (std::size_t q = 0; q < queries.size(); ++q)
    out.push_back({q, queries[q], fmt::format("{} {}", r.query_names()[q], queries[q].predicate.to_string())});
  return out;
}

void compare_with_report(const profiles::ClickHouseServer& server, const std::string& table,
                         const std::string& captures, std::uint64_t capture, const std::string& file) {
  perf_data::PerfDataReader reader(file);
  const report::Report r(reader, {.by = report::GroupBy::process});
  const std::vector<Asked> asked = derived_events(r);
  REQUIRE(asked.size() >= 50);
  std::size_t available = 0;
  for (const Asked& a : asked) {
    INFO(a.label);
    const profiles::QuerySql sql = profiles::query_sql(a.query);
    const auto total = rows_of(server.query(fmt::format("SELECT {}, {}, {} FROM {} WHERE capture = {}", sql.count,
                                                        sql.total, sql.undecided_count, table, capture)));
    REQUIRE(total.size() == 1);
    const QueryResult& expected = r.totals()[a.column];
    CHECK(total[0] == std::vector<std::uint64_t>{expected.count, expected.total, expected.undecided});
    if (expected.available()) ++available;

    // Per process: the report's rows by process against GROUP BY pid.
    std::map<std::uint64_t, std::vector<std::uint64_t>> by_report, by_store;
    for (std::uint32_t id : r.select(report::resolve_column("0xF100"), 0)) {
      const report::Row row = r.row(id);
      const QueryResult& res = row.results[a.column];
      if (res.count) by_report[row.pid] = {res.count, res.total};
    }
    for (const auto& row : rows_of(server.query(fmt::format(
             "SELECT pid, {}, {} FROM {} WHERE capture = {} GROUP BY pid HAVING {} > 0 ORDER BY pid", sql.count,
             sql.total, table, capture, sql.count))))
      by_store[row.at(0)] = {row.at(1), row.at(2)};
    CHECK(by_store == by_report);
  }
  CHECK(available >= 40);

  // The store's tallies by process, answered by the engine: every derived
  // event's count, total and undecided per process as the report's rows.
  const report::StoreTallies tallies = report::tally_store(
      server, "pid", fmt::format("capture = {}", capture), {.table = table, .captures_table = captures});
  std::vector<Query> queries;
  for (const Asked& a : asked) queries.push_back(a.query);
  const auto by_row = tallies.tallies.evaluate_by_row(queries);
  std::map<std::uint32_t, std::vector<std::uint64_t>> engine_rows, report_rows;
  for (std::size_t row = 0; row < tallies.rows.size(); ++row)
    for (const QueryResult& q : by_row[row])
      engine_rows[static_cast<std::uint32_t>(std::stoul(tallies.rows[row]))].insert(
          engine_rows[static_cast<std::uint32_t>(std::stoul(tallies.rows[row]))].end(), {q.count, q.total, q.undecided});
  for (std::uint32_t id : r.select(report::resolve_column("0xF100"), 0)) {
    const report::Row row = r.row(id);
    auto& values = report_rows[row.pid];
    for (const Asked& a : asked) {
      const QueryResult& q = row.results[a.column];
      values.insert(values.end(), {q.count, q.total, q.undecided});
    }
  }
  CHECK(engine_rows == report_rows);
}

}  // namespace

TEST_CASE("an IBS capture ingested: every derived event asked of the store is the local report's", "[store][ibs]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const profiles::ClickHouseServer server(local->url());
  report::IngestOptions options{.host = "zen-1", .table = "ibs_samples", .captures_table = "ibs_captures"};
  report::create_store_tables(server, options);

  const std::string zen = zen_capture("zen.data", 41);
  const report::IngestResult first = report::ingest_capture(zen, server, options);
  CHECK(!first.skipped);
  perf_data::PerfDataReader reader(zen);
  const report::Report r(reader, {.by = report::GroupBy::process});
  CHECK(first.rows == r.counts().read_op + r.counts().read_fetch);
  CHECK(number(server, fmt::format("SELECT count() FROM ibs_samples WHERE capture = {}", first.capture)) == first.rows);
  CHECK(number(server, fmt::format("SELECT count() FROM ibs_samples WHERE host = 'zen-1' AND vendor = "
                                   "'AuthenticAMD' AND family = 25 AND model = 17 AND backend = 'amd-ibs'")) ==
        first.rows);

  // Twice: skipped, nothing doubled.
  const report::IngestResult again = report::ingest_capture(zen, server, options);
  CHECK(again.skipped);
  CHECK(again.capture == first.capture);
  CHECK(number(server, "SELECT count() FROM ibs_samples") == first.rows);
  CHECK(number(server, "SELECT count() FROM ibs_captures") == 1);

  compare_with_report(server, "ibs_samples", "ibs_captures", first.capture, zen);

  // The bundled Family 10h capture, a second host in the same table.
  const std::string example = std::string(std::getenv("TAGOP_SOURCE_ROOT")) + "/examples/ibs-example.perf.data";
  options.host = "k10-1";
  const report::IngestResult k10 = report::ingest_capture(example, server, options);
  CHECK(!k10.skipped);
  compare_with_report(server, "ibs_samples", "ibs_captures", k10.capture, example);
  CHECK(rows_of(server.query("SELECT uniqExact(host) FROM ibs_samples")) == std::vector<std::vector<std::uint64_t>>{{2}});

  // --where: the rows predicate_sql selects are the samples the report keeps.
  // (The store holds two captures here: an OR predicate after `capture =
  // ... AND` must keep to its capture.)
  for (const char* text : {"load & dc.miss & !dtlb.l1_miss", "(load | store) & !dc.miss", "branch.mispredicted"}) {
    INFO(text);
    const Predicate p = Predicate::parse(text);
    perf_data::PerfDataReader where_reader(zen);
    const report::Report kept(where_reader, {.by = report::GroupBy::process, .filters = {.where = p}});
    CHECK(number(server, fmt::format("SELECT count() FROM ibs_samples WHERE capture = {} AND {}", first.capture,
                                     profiles::predicate_sql(p))) ==
          kept.counts().kept_op + kept.counts().kept_fetch);
  }
  fs::remove(zen);
}

TEST_CASE("two shards and a Distributed table give the answers of one server", "[store][cluster]") {
  test::LocalClickHouse* single = test::shared_clickhouse();
  if (!single) return;
  // Two servers, each with the cluster "fleet" of both in its config.
  const int tcp_a = test::free_port(), tcp_b = test::free_port();
  test::LocalClickHouse a(test::clickhouse_binary(), "fleet", {tcp_a, tcp_b}, tcp_a);
  test::LocalClickHouse b(test::clickhouse_binary(), "fleet", {tcp_a, tcp_b}, tcp_b);
  const profiles::ClickHouseServer server_a(a.url()), server_b(b.url()), one(single->url());
  const report::IngestOptions options;  // the default tables on each shard
  const report::IngestOptions on_one{.table = "cluster_samples", .captures_table = "cluster_captures"};
  for (const auto* s : {&server_a, &server_b}) {
    report::create_store_tables(*s, options);
    s->query(profiles::store_create_distributed_table("tagop_samples_all", "fleet", "default",
                                                      profiles::store_table_name()));
    s->query(fmt::format("CREATE TABLE IF NOT EXISTS tagop_captures_all AS {} ENGINE = Distributed(fleet, default, "
                         "{}, capture)",
                         profiles::store_captures_table_name(), profiles::store_captures_table_name()));
  }
  report::create_store_tables(one, on_one);
  // Three captures: two to shard a, one to shard b; all three to one server.
  const std::string zen1 = zen_capture("shard1.data", 7), zen2 = zen_capture("shard2.data", 8);
  const std::string example = std::string(std::getenv("TAGOP_SOURCE_ROOT")) + "/examples/ibs-example.perf.data";
  report::ingest_capture(zen1, server_a, options);
  report::ingest_capture(example, server_a, options);
  report::ingest_capture(zen2, server_b, options);
  for (const std::string& f : {zen1, example, zen2}) report::ingest_capture(f, one, on_one);
  CHECK(number(server_a, "SELECT count() FROM tagop_samples_all") ==
        number(one, "SELECT count() FROM cluster_samples"));
  CHECK(number(server_a, "SELECT count() FROM tagop_samples_v2") <
        number(server_a, "SELECT count() FROM tagop_samples_all"));

  // Every derived event, by host and processor, through either shard's
  // Distributed table and on the one server: the same numbers.
  perf_data::PerfDataReader reader(zen1);
  const report::Report r(reader, {.by = report::GroupBy::process});
  std::vector<std::string> columns;
  for (const Asked& asked : derived_events(r)) {
    const profiles::QuerySql sql = profiles::query_sql(asked.query);
    columns.push_back(fmt::format("{}, {}", sql.count, sql.total));
  }
  const std::string select = fmt::format("SELECT family, model, {} FROM {{}} WHERE capture IN (SELECT capture FROM "
                                         "{{}}) GROUP BY family, model ORDER BY family, model",
                                         fmt::join(columns, ", "));
  const auto answer = rows_of(one.query(fmt::format(fmt::runtime(select), "cluster_samples", "cluster_captures")));
  REQUIRE(answer.size() == 2);  // Family 10h and 19h
  CHECK(rows_of(server_a.query(fmt::format(fmt::runtime(select), "tagop_samples_all", profiles::store_captures_table_name()))) ==
        answer);
  CHECK(rows_of(server_b.query(fmt::format(fmt::runtime(select), "tagop_samples_all", profiles::store_captures_table_name()))) ==
        answer);
  fs::remove(zen1);
  fs::remove(zen2);
}

TEST_CASE("a perf mem capture's rows answer predicates with the samples written for each data source",
          "[store][mem]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const profiles::ClickHouseServer server(local->url());
  const report::IngestOptions options{.table = "mem_samples", .captures_table = "mem_captures"};
  report::create_store_tables(server, options);
  // union perf_mem_data_src (include/uapi/linux/perf_event.h): mem_op LOAD
  // (2) at bit 0, mem_lvl at bit 5: HIT (2) with L1 (8), L3 (0x40) or
  // local RAM (0x80). 30 L1 hits, 20 L3 hits, 10 DRAM loads.
  const std::uint64_t load = 2, l1 = (0x2 | 0x8) << 5, l3 = (0x2 | 0x40) << 5, dram = (0x2 | 0x80) << 5;
  const std::string file = temp("mem.data");
  {
    perf_data::PerfDataWriter w = test::perf_mem_writer(file);
    w.comm(100, 100, "memhog");
    std::uint64_t time = 1000;
    for (const auto& [source, n] : std::vector<std::pair<std::uint64_t, int>>{{l1, 30}, {l3, 20}, {dram, 10}})
      for (int i = 0; i < n; ++i)
        w.sample(0, {.ip = 0x401000, .pid = 100, .tid = 100, .time = time++, .addr = 0x7f0000001000, .cpu = 1,
                     .period = 2000, .weight = 100, .data_src = load | source});
    w.finish();
  }
  const report::IngestResult r = report::ingest_capture(file, server, options);
  CHECK(r.rows == 60);
  auto count = [&](const char* text) {
    return number(server, fmt::format("SELECT count() FROM mem_samples WHERE {}",
                                      profiles::predicate_sql(Predicate::parse(text))));
  };
  CHECK(count("load") == 60);
  CHECK(count("load & !dc.miss") == 30);
  CHECK(count("load & dc.miss") == 30);
  CHECK(count("src.l3") == 20);
  CHECK(count("src.dram") == 10);
  CHECK(number(server, "SELECT sum(period) FROM mem_samples WHERE event = 'cpu/mem-loads,ldlat=30/P'") == 60 * 2000);
  CHECK(number(server, "SELECT sum(m_mem_load_latency) FROM mem_samples") == 60 * 100);
  CHECK(number(server, "SELECT count() FROM mem_samples WHERE vendor = 'GenuineIntel' AND family = 6 AND model = 85") ==
        60);
  fs::remove(file);
}

TEST_CASE("the store's errors: wrong URL, server down, another schema, a half-written capture", "[store]") {
  CHECK_THROWS_WITH(profiles::ClickHouseServer("ftp://x"), Catch::Contains("http://HOST"));
  const int port = test::free_port();
  const profiles::ClickHouseServer nowhere(fmt::format("http://127.0.0.1:{}", port));
  CHECK_THROWS_WITH(report::create_store_tables(nowhere), Catch::Contains("cannot connect to a ClickHouse server"));

  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const profiles::ClickHouseServer server(local->url());
  // A table of the same name with another version's columns.
  server.query("CREATE DATABASE IF NOT EXISTS older");
  server.query("CREATE TABLE IF NOT EXISTS older.tagop_samples_v2 (capture UInt64, host String) ENGINE = "
               "MergeTree() ORDER BY capture");
  const profiles::ClickHouseServer older(local->url() + "/?database=older");
  CHECK_THROWS_WITH(report::create_store_tables(older), Catch::Contains("made by another version of tagop"));
  // A statement the server refuses: its own message.
  CHECK_THROWS_WITH(server.query("SELECT no_such_column FROM system.one"), Catch::Contains("no_such_column"));

  // Rows of a capture without its listing (an ingest that broke half-way).
  const report::IngestOptions options{.table = "half_samples", .captures_table = "half_captures"};
  report::create_store_tables(server, options);
  const std::string example = std::string(std::getenv("TAGOP_SOURCE_ROOT")) + "/examples/ibs-example.perf.data";
  const std::uint64_t id = profiles::capture_identity(example);
  const profiles::StoreRowWriter writer({id, "h", "AuthenticAMD", 16, 4, "amd-ibs"});
  Sample s;
  s.conditions.insert(condition("op"));
  std::string row;
  writer.append(s, {}, row);
  profiles::ClickHouseInsert insert(server, "INSERT INTO half_samples FORMAT TabSeparated");
  insert.write(row);
  insert.finish();
  CHECK_THROWS_WITH(report::ingest_capture(example, server, options), Catch::Contains("did not finish"));
  // A malformed row: the server says so, and names the column.
  profiles::ClickHouseInsert bad(server, "INSERT INTO half_samples FORMAT TabSeparated");
  CHECK_THROWS_WITH([&] { bad.write("not\ta\trow\n"); bad.finish(); }(), Catch::Contains("HTTP"));
}

TEST_CASE("tagop ingest, and the SQL events show and compare print, asked of the store", "[store][cli]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const std::string tagop = std::getenv("TAGOP_EXE");
  const std::string example = std::string(std::getenv("TAGOP_SOURCE_ROOT")) + "/examples/ibs-example.perf.data";
  const profiles::ClickHouseServer server(local->url() + "/?database=cli");
  profiles::ClickHouseServer(local->url()).query("CREATE DATABASE IF NOT EXISTS cli");
  const std::string url = "'" + server.url() + "'";

  const RunResult first = run_shell(fmt::format("{} ingest {} {} --host k10-cli", tagop, url, example));
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  const std::uint64_t rows = number(server, "SELECT count() FROM tagop_samples_v2 WHERE host = 'k10-cli'");
  CHECK(rows > 1000);
  CHECK(first.out.find(fmt::format("{} samples", rows)) != std::string::npos);
  const RunResult again = run_shell(fmt::format("{} ingest {} {}", tagop, url, example));
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("skipped") != std::string::npos);
  CHECK(number(server, "SELECT count() FROM tagop_samples_v2") == rows);

  // The printed SELECT of 0xF219 (DC miss latency) answers the report's numbers.
  perf_data::PerfDataReader reader(example);
  const report::Report r(reader, {.by = report::GroupBy::function});
  const auto& names = r.query_names();
  const std::size_t f219 = static_cast<std::size_t>(std::find(names.begin(), names.end(), "0xF219") - names.begin());
  REQUIRE(f219 < names.size());
  const RunResult sql = run_shell(fmt::format("{} events show F219 --format sql", tagop));
  REQUIRE(sql.exit_code == 0);
  const QueryResult& expected = r.totals()[f219];
  CHECK(expected.count > 0);
  CHECK(rows_of(server.query(sql.out)) ==
        std::vector<std::vector<std::uint64_t>>{{expected.count, expected.total, expected.undecided}});
  // compare --format sql: one row per processor (vendor, family, model, backend, then the numbers).
  const RunResult by_cpu = run_shell(fmt::format("{} compare 'load & dc.miss' --format sql", tagop));
  REQUIRE(by_cpu.exit_code == 0);
  CHECK(server.query(by_cpu.out).find("AuthenticAMD\t16\t4\tamd-ibs\t") == 0);

  // A server that is not there: a clear error, exit non-zero.
  const RunResult down =
      run_shell(fmt::format("{} ingest http://127.0.0.1:{} {}", tagop, test::free_port(), example));
  CHECK(down.exit_code != 0);
  CHECK(down.err.find("cannot connect to a ClickHouse server") != std::string::npos);
}

TEST_CASE("a perf record -g capture: each row's call chain without the context markers, its period", "[store][chain]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const profiles::ClickHouseServer server(local->url());
  const report::IngestOptions options{.table = "chain_samples", .captures_table = "chain_captures"};
  report::create_store_tables(server, options);
  // cpu-clock with PERF_SAMPLE_CALLCHAIN, as perf record -g writes it: the
  // kernel's chain starts with PERF_CONTEXT_USER (-512), then the
  // interrupted ip and the return addresses.
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_period = 250000;
  a.sample_id_all = 1;
  a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                  PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
  const std::string file = temp("chain.data");
  {
    perf_data::PerfDataWriter w(file, {{.attr = a, .ids = {5}, .name = "cpu-clock"}}, {.cpuid = "GenuineIntel,6,85,4"});
    w.comm(300, 300, "deep");
    const std::uint64_t user = static_cast<std::uint64_t>(-512);
    for (std::uint64_t i = 0; i < 10; ++i) {
      const std::vector<std::uint64_t> chain{user, 0x401000 + i, 0x402000, 0x403000};
      w.sample(0, {.ip = 0x401000 + i, .pid = 300, .tid = 300, .time = 1000 + i, .cpu = 2, .period = 250000,
                   .callchain = chain});
    }
    w.finish();
  }
  const report::IngestResult r = report::ingest_capture(file, server, options);
  CHECK(r.rows == 10);
  // 0x401003 = 4198403; the chain as its three addresses.
  CHECK(server.query("SELECT chain FROM chain_samples WHERE ip = 4198403") == "[4198403,4202496,4206592]\n");
  CHECK(number(server, "SELECT sum(period) FROM chain_samples WHERE event = 'cpu-clock' AND cpu = 2") == 2500000);
  CHECK(number(server, "SELECT count() FROM chain_samples WHERE length(chain) = 3") == 10);
  fs::remove(file);
}

namespace {

// A --json report's rows: each row's key (its pid, or its name) -> its values
// by column id.
std::map<std::string, nlohmann::json> json_rows(const std::string& text, const char* key) {
  std::map<std::string, nlohmann::json> out;
  const nlohmann::json document = nlohmann::json::parse(text);  // kept: the loop reads into it
  for (const nlohmann::json& row : document.at("rows")) {
    const nlohmann::json& k = row.at(key);
    const std::string name = k.is_string() ? k.get<std::string>() : k.dump();
    INFO(name);
    CHECK(out.count(name) == 0);
    out[name] = row.at("values");
  }
  return out;
}

// A --json report's rows' perf c2c counts (--by cacheline), by row name.
std::map<std::string, nlohmann::json> cache_lines(const std::string& text) {
  std::map<std::string, nlohmann::json> out;
  const nlohmann::json document = nlohmann::json::parse(text);  // kept: the loop reads into it
  for (const nlohmann::json& row : document.at("rows"))
    if (row.contains("cache_line")) out[row.at("name").get<std::string>()] = row.at("cache_line");
  return out;
}

// The data-objects fixture (tests/report/data_objects_fixture.cpp): a
// program with DWARF lines and named objects in .data, .bss and .rodata;
// its symbols by nm and its loaded segments by readelf, never by tagop.
std::string objects_fixture() {
  const char* path = std::getenv("TAGOP_DATA_OBJECTS_FIXTURE");
  REQUIRE(path);
  return path;
}
std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> fixture_symbols() {
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> out;  // name -> (address, size)
  const RunResult nm = run_shell("nm -S --defined-only " + objects_fixture());
  REQUIRE(nm.exit_code == 0);
  std::istringstream in(nm.out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string address, size, type, name;
    if (words >> address >> size >> type >> name) out[name] = {std::stoull(address, nullptr, 16), std::stoull(size, nullptr, 16)};
  }
  return out;
}
struct Segment {
  std::uint64_t start, len, pgoff;
};
std::vector<Segment> fixture_segments() {
  const RunResult r = run_shell("readelf -lW " + objects_fixture());
  REQUIRE(r.exit_code == 0);
  std::vector<Segment> out;
  const std::regex load(R"(LOAD\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+0x[0-9a-f]+\s+0x[0-9a-f]+\s+0x([0-9a-f]+))");
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), load), end; it != end; ++it) {
    const std::uint64_t offset = std::stoull((*it)[1], nullptr, 16), vaddr = std::stoull((*it)[2], nullptr, 16);
    const std::uint64_t start = vaddr & ~std::uint64_t{0xFFF};
    out.push_back({start, (vaddr + std::stoull((*it)[3], nullptr, 16) - start + 0xFFF) & ~std::uint64_t{0xFFF},
                   offset & ~std::uint64_t{0xFFF}});
  }
  REQUIRE(out.size() >= 2);
  return out;
}

// The fixture's process in a capture: its name, its file's segments, a
// heap at 0x2000000 and a stack at 0x7ffc00000000.
constexpr std::uint64_t fixture_heap = 0x2000000, fixture_stack = 0x7ffc00000000;
void map_fixture(amd_ibs::IbsCaptureWriter& w, std::uint32_t pid) {
  w.perf().comm(pid, pid, "fixture", true, {.pid = pid, .tid = pid, .time = 1});
  for (const Segment& s : fixture_segments())
    w.perf().mmap2(pid, pid, s.start, s.len, s.pgoff, objects_fixture(), {}, {.pid = pid, .tid = pid, .time = 2});
  w.perf().mmap2(pid, pid, fixture_heap, 0x21000, 0, "[heap]", {}, {.pid = pid, .tid = pid, .time = 3});
  w.perf().mmap2(pid, pid, fixture_stack, 0x21000, 0, "[stack]", {}, {.pid = pid, .tid = pid, .time = 3});
}

// A fetch sample in main's code, random IbsFetchCtl.
void fetch_in_main(amd_ibs::IbsCaptureWriter& w, std::uint32_t pid, std::uint64_t& state, std::uint64_t& t,
                   std::uint64_t main_at, std::uint64_t main_size) {
  amd_ibs::IbsRegisters fetch;
  fetch.unit = amd_ibs::IbsUnit::fetch;
  fetch.set(amd_ibs::IbsRegister::IbsFetchCtl, splitmix(state) & ~0xFFFFull);
  fetch.set(amd_ibs::IbsRegister::IbsFetchLinAd, main_at + splitmix(state) % main_size);
  w.sample(fetch, pid, pid, 0, t++);
}

// A Zen 3 IBS capture of the fixture: ops across main's code (each of its
// source lines), their random IbsOpData3 words with the linear address
// valid or not, at the fixture's objects, a heap, a stack and addresses
// outside every mapping; fetches beside them (no data address).
std::string objects_capture(const std::string& name, std::uint64_t seed, std::uint64_t period = 0x10000) {
  const std::string file = temp(name);
  const auto symbols = fixture_symbols();
  const auto [main_at, main_size] = symbols.at("main");
  REQUIRE(main_size > 0);
  std::vector<std::uint64_t> data;
  for (const char* object : {"cold_table", "hot_counters", "_ZL14private_buffer", "greeting"})
    for (std::uint64_t k = 0; k < 5; ++k) data.push_back(symbols.at(object).first + k * symbols.at(object).second / 5);
  for (std::uint64_t a : {fixture_heap + 0x40, fixture_stack + 0x18, std::uint64_t{0x5000}, std::uint64_t{0xffffffff81000000}})
    data.push_back(a);
  amd_ibs::IbsCaptureWriter w(file, {.family = 0x19, .model = 0x21, .stepping = 0, .fetch_period = period,
                                     .op_period = period});
  constexpr std::uint32_t pid = 5151;
  map_fixture(w, pid);
  std::uint64_t state = seed, t = 10;
  for (std::uint32_t i = 0; i < 600; ++i) {
    amd_ibs::IbsRegisters op;
    op.unit = amd_ibs::IbsUnit::op;
    op.set(amd_ibs::IbsRegister::IbsOpRip, main_at + splitmix(state) % main_size);
    op.set(amd_ibs::IbsRegister::IbsOpData, splitmix(state));
    op.set(amd_ibs::IbsRegister::IbsOpData2, splitmix(state));
    op.set(amd_ibs::IbsRegister::IbsOpData3, splitmix(state));  // bit 17: the linear address valid, or not
    op.set(amd_ibs::IbsRegister::IbsDcLinAd, data[splitmix(state) % data.size()]);
    op.set(amd_ibs::IbsRegister::IbsDcPhysAd, 0);
    w.sample(op, pid, pid, i % 2, t++);
    if (i % 4 == 0) fetch_in_main(w, pid, state, t, main_at, main_size);
  }
  w.finish();
  return file;
}

// perf record -e ibs_op// -g of the fixture: ops across main's code, each
// with a call chain (PERF_CONTEXT_USER, the ip, then two of a few return
// addresses: main's, one outside every mapping, one of the heap), so that
// chains repeat and differ; fetches without chains (their event's
// sample_type has none).
std::string chained_capture(const std::string& name, std::uint64_t seed) {
  const std::string file = temp(name);
  const auto symbols = fixture_symbols();
  const auto [main_at, main_size] = symbols.at("main");
  REQUIRE(main_size > 0);
  constexpr std::uint64_t common = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                   PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
  amd_ibs::IbsCaptureWriter w(file, {.family = 0x19, .model = 0x21, .stepping = 0,
                                     .op_sample_type = common | PERF_SAMPLE_CALLCHAIN});
  constexpr std::uint32_t pid = 6161;
  map_fixture(w, pid);
  const std::uint64_t returns[] = {main_at + main_size / 3, main_at + main_size / 2, 0x5000, fixture_heap + 0x40};
  std::uint64_t state = seed, t = 10;
  for (std::uint32_t i = 0; i < 500; ++i) {
    amd_ibs::IbsRegisters op;
    op.unit = amd_ibs::IbsUnit::op;
    const std::uint64_t ip = main_at + splitmix(state) % main_size;
    op.set(amd_ibs::IbsRegister::IbsOpRip, ip);
    op.set(amd_ibs::IbsRegister::IbsOpData, splitmix(state) & ~(std::uint64_t{1} << 38));  // the ip valid
    op.set(amd_ibs::IbsRegister::IbsOpData2, splitmix(state));
    op.set(amd_ibs::IbsRegister::IbsOpData3, splitmix(state));
    const std::uint64_t chain[] = {static_cast<std::uint64_t>(PERF_CONTEXT_USER), ip, returns[splitmix(state) % 4],
                                   returns[splitmix(state) % 4]};
    w.sample(op, pid, pid, i % 2, t++, 0, chain);
    if (i % 5 == 0) fetch_in_main(w, pid, state, t, main_at, main_size);
  }
  w.finish();
  return file;
}
}  // namespace

TEST_CASE("tagop report --source prints the local report's rows of the same capture", "[store][cli][source]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const std::string tagop = std::getenv("TAGOP_EXE");
  const std::string example = std::string(std::getenv("TAGOP_SOURCE_ROOT")) + "/examples/ibs-example.perf.data";
  profiles::ClickHouseServer(local->url()).query("CREATE DATABASE IF NOT EXISTS source_report");
  const std::string url = "'" + local->url() + "/?database=source_report'";
  const std::string zen = zen_capture("zen-source.data", 4141);
  for (const auto& [file, host] : {std::pair{zen, "zen-a"}, std::pair{example, "k10-a"}}) {
    const RunResult ingest = run_shell(fmt::format("{} ingest {} {} --host {}", tagop, url, file, host));
    INFO(ingest.err);
    REQUIRE(ingest.exit_code == 0);
  }

  // Every derived event and ratio (--view all), every row, by process and by
  // function, with and without --where: the local report of the capture
  // (its own path: the raw payloads) and the store's rows of its host.
  struct Case {
    std::string file, host, by, key, where;
  };
  // (By function: the bundled capture's binaries are not on this machine, so
  // its local rows are addresses, module+offset, which ingest names so too.
  // By process: "comm [pid]", the name of the process at the sample's time;
  // by thread "tid:name" in its process; by cache line "0x<line>  <data
  // object>".)
  for (const Case& c : {Case{zen, "zen-a", "process", "name", ""}, Case{example, "k10-a", "process", "name", ""},
                        Case{zen, "zen-a", "address", "name", ""}, Case{example, "k10-a", "thread", "name", ""},
                        Case{zen, "zen-a", "cacheline", "name", "load"},
                        Case{example, "k10-a", "address", "name", "(load | store) & !dc.miss"},
                        Case{zen, "zen-a", "thread,cacheline", "name", ""},
                        Case{example, "k10-a", "module", "name", ""}, Case{example, "k10-a", "function", "name", ""},
                        Case{zen, "zen-a", "process", "name", "load & dc.miss & !dtlb.l1_miss"},
                        Case{example, "k10-a", "module", "name", "(load | store) & !dc.miss"}}) {
    INFO(c.file << " --by " << c.by << " --where " << c.where);
    const std::string where = c.where.empty() ? "" : fmt::format(" --where '{}'", c.where);
    const RunResult file = run_shell(fmt::format("{} report {} --by {} --view all --top 0 --json{}", tagop, c.file, c.by, where));
    INFO(file.err);
    REQUIRE(file.exit_code == 0);
    const RunResult store = run_shell(fmt::format("{} report --source {} --host {} --by {} --view all --top 0 --json{}",
                                                  tagop, url, c.host, c.by, where));
    INFO(store.err);
    REQUIRE(store.exit_code == 0);
    const auto expected = json_rows(file.out, c.key.c_str());
    CHECK(!expected.empty());
    CHECK(json_rows(store.out, "name") == expected);
    // By cache line, each line's perf c2c counts from the IBS ops' decode.
    if (c.by.find("cacheline") != std::string::npos) {
      CHECK(cache_lines(file.out).size() == expected.size());
      CHECK(cache_lines(store.out) == cache_lines(file.out));
    }
  }

  // The local report's filters of samples (--cpu, --pid, --tid, --comm):
  // the same rows, every derived event. (The capture's processes run on
  // CPU pid % 4, all named worker.)
  // --percent-limit: the rows of at least that share of the IBS samples,
  // halfway between two of the local rows' shares, so that some are left
  // out and none is at the limit.
  std::vector<double> shares;
  const nlohmann::json unlimited =  // kept: the loop reads into it
      nlohmann::json::parse(run_shell(fmt::format("{} report {} --by process --top 0 --json", tagop, zen)).out);
  for (const auto& row : unlimited.at("rows")) shares.push_back(row.at("overhead").get<double>());
  std::sort(shares.begin(), shares.end());
  std::size_t above = shares.size() / 2;
  while (above < shares.size() && shares[above] == shares[above - 1]) ++above;
  REQUIRE(above < shares.size());
  const std::string percent_limit = fmt::format(" --percent-limit {}", (shares[above - 1] + shares[above]) / 2);
  for (const std::string& filter : {std::string(" --cpu 1"), std::string(" --pid 203,210"),
                                    std::string(" --tid 204 --where load"), std::string(" --comm worker --cpu 0,3"),
                                    percent_limit, percent_limit + " --where load"}) {
    INFO(filter);
    const RunResult file =
        run_shell(fmt::format("{} report {} --by process --view all --top 0 --json{}", tagop, zen, filter));
    const RunResult store = run_shell(fmt::format(
        "{} report --source {} --host zen-a --by process --view all --top 0 --json{}", tagop, url, filter));
    INFO(file.err << store.err);
    REQUIRE(file.exit_code == 0);
    REQUIRE(store.exit_code == 0);
    const auto expected = json_rows(file.out, "name");
    CHECK(!expected.empty());
    if (filter.find("--percent-limit") != std::string::npos)  // some rows are below it
      CHECK(expected.size() < nlohmann::json::parse(file.out).at("row_count").get<std::size_t>());
    CHECK(json_rows(store.out, "name") == expected);
  }
  // Functions by their symbols (the IBS tallies joined to the frames';
  // this capture's addresses have none, so the names the rows fall back
  // to): the local rows. (The first 200 of some 4,000, of two events: the
  // rows' JSON is slow to read under the sanitizers.)
  for (const std::string naming : {" --by function --no-demangle", " --by function --signatures",
                                   " --by cpu,function --no-demangle"}) {
    INFO(naming);
    const std::string rows = " --events 0xF100,0xF206 --top 200 --json" + naming;
    const RunResult file = run_shell(fmt::format("{} report {}{}", tagop, zen, rows));
    const RunResult store = run_shell(fmt::format("{} report --source {} --host zen-a{}", tagop, url, rows));
    INFO(file.err << store.err);
    REQUIRE(file.exit_code == 0);
    REQUIRE(store.exit_code == 0);
    const auto expected = json_rows(file.out, "name");
    CHECK(expected.size() >= 2);
    CHECK(json_rows(store.out, "name") == expected);
  }
  // Filters that keep nothing: a report of nothing, as the local one.
  for (const std::string filter : {" --pid 99999", " --comm nobody --where load"}) {
    INFO(filter);
    const RunResult file = run_shell(fmt::format("{} report {} --by process --top 0 --json{}", tagop, zen, filter));
    const RunResult store =
        run_shell(fmt::format("{} report --source {} --host zen-a --by process --top 0 --json{}", tagop, url, filter));
    INFO(file.err << store.err);
    REQUIRE(file.exit_code == 0);
    REQUIRE(store.exit_code == 0);
    CHECK(nlohmann::json::parse(file.out).at("rows").empty());
    CHECK(nlohmann::json::parse(store.out).at("rows").empty());
    CHECK(nlohmann::json::parse(store.out).at("totals").at("0xF100") == 0);
  }

  // Both hosts at once: the totals are the two captures' sums.
  const RunResult both = run_shell(fmt::format("{} report --source {} --by process --events 0xF100,0xF000 --json", tagop, url));
  REQUIRE(both.exit_code == 0);
  std::uint64_t ops = 0;
  for (const std::string& file : {zen, example}) {
    perf_data::PerfDataReader reader(file);
    ops += report::Report(reader, {}).counts().kept_op;
  }
  CHECK(nlohmann::json::parse(both.out).at("totals").at("0xF100") == ops);

  // --since: captures by their ingest time (just now), the text table.
  const RunResult since = run_shell(fmt::format("{} report --source {} --since 2000-01-01 --events 0xF100 --by module", tagop, url));
  INFO(since.err);
  REQUIRE(since.exit_code == 0);
  CHECK(since.out.find("ibs-example") != std::string::npos);
  CHECK(since.out.find("6900") != std::string::npos);  // the local report's ops in ibs-example (above)
  const RunResult future = run_shell(fmt::format("{} report --source {} --since 2100-01-01", tagop, url));
  CHECK(future.exit_code == 1);
  CHECK(future.err.find("no samples") != std::string::npos);

  // Options that need the capture: a usage error naming them.
  const RunResult children = run_shell(fmt::format("{} report --source {} --family 0x19 -i x.data", tagop, url));
  CHECK(children.exit_code == 2);
  CHECK(children.err.find("-i") != std::string::npos);
  CHECK(children.err.find("--family") != std::string::npos);
  const RunResult jsonl = run_shell(fmt::format("{} report --source {} --format jsonl", tagop, url));
  CHECK(jsonl.exit_code == 2);
  CHECK(jsonl.err.find("FORMAT JSONEachRow") != std::string::npos);
  const RunResult limit = run_shell(fmt::format("{} report --source {} --percent-limit 101", tagop, url));
  CHECK(limit.exit_code == 2);
  CHECK(limit.err.find("--percent-limit") != std::string::npos);
  const RunResult chain = run_shell(fmt::format("{} report --source {} --by address,callchain", tagop, url));
  CHECK(chain.exit_code == 2);
  CHECK(chain.err.find("callchain is a key alone") != std::string::npos);
  fs::remove(zen);
}

TEST_CASE("report --source by line and by data object gives the local report's rows", "[store][cli][source]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const std::string tagop = std::getenv("TAGOP_EXE");
  profiles::ClickHouseServer(local->url()).query("CREATE DATABASE IF NOT EXISTS line_report");
  const std::string url = "'" + local->url() + "/?database=line_report'";
  const std::string capture = objects_capture("objects.data", 4343);
  const RunResult ingest = run_shell(fmt::format("{} ingest {} {} --host objects-a", tagop, url, capture));
  INFO(ingest.err);
  REQUIRE(ingest.exit_code == 0);
  for (const std::string by : {"line", "data", "cacheline", "address"}) {
    for (const std::string where : {"", " --where 'load & dc.miss'"}) {
      INFO("--by " << by << where);
      const RunResult file =
          run_shell(fmt::format("{} report {} --by {} --view all --top 0 --json{}", tagop, capture, by, where));
      INFO(file.err);
      REQUIRE(file.exit_code == 0);
      const RunResult store = run_shell(fmt::format(
          "{} report --source {} --host objects-a --by {} --view all --top 0 --json{}", tagop, url, by, where));
      INFO(store.err);
      REQUIRE(store.exit_code == 0);
      const auto expected = json_rows(file.out, "name");
      CHECK(json_rows(store.out, "name") == expected);
      CHECK(cache_lines(store.out) == cache_lines(file.out));
      if (by == "cacheline") CHECK(cache_lines(file.out).size() == expected.size());
      // The capture's names, not addresses only: lines of the fixture's
      // source, its objects and the mappings without a file.
      // (A cache line by the object of its lowest address; an address in
      // the fixture's file.)
      std::size_t named = 0;
      for (const auto& [name, values] : expected) {
        const std::size_t two = name.find("  ");
        const std::string object = by == "cacheline" && two != std::string::npos ? name.substr(two + 2) : name;
        if (name.find("data_objects_fixture.cpp:") != std::string::npos || object == "cold_table" ||
            object == "hot_counters" || object == "[heap]" || object == "[no data address]" ||
            name.starts_with("tagop_data_objects_fixture+0x"))
          ++named;
      }
      CHECK(named >= (by == "line" ? 3u : 4u));
    }
  }
  fs::remove(capture);
}

TEST_CASE("the rows sent as Native and as TabSeparated are the same rows in the store", "[store]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const profiles::ClickHouseServer server(local->url());
  const std::string capture = objects_capture("formats.data", 4545);
  // The server's own reading of each format, row by row (sorted: the
  // parts' order is the server's).
  auto rows_in = [&](report::RowFormat format, const std::string& table) {
    const report::IngestOptions options{.format = format, .table = table + "_samples",
                                        .captures_table = table + "_captures"};
    report::create_store_tables(server, options);
    const report::IngestResult r = report::ingest_capture(capture, server, options);
    CHECK(r.rows == 750);  // 600 ops and 150 fetches, all decoded
    std::vector<std::string> lines;
    std::istringstream in(server.query(fmt::format("SELECT * FROM {} FORMAT TabSeparated", options.table)));
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::sort(lines.begin(), lines.end());
    return lines;
  };
  const std::vector<std::string> native = rows_in(report::RowFormat::native, "native");
  CHECK(native.size() == 750);
  CHECK(native == rows_in(report::RowFormat::tab_separated, "tsv"));
  // And the same as write_capture_rows() gives without a server.
  std::string written;
  CHECK(report::write_capture_rows(capture, [&](std::string_view rows) { written += rows; },
                                   {.format = report::RowFormat::tab_separated}) == 750);
  std::vector<std::string> lines;
  std::istringstream in(written);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  CHECK(lines == native);
  fs::remove(capture);
}

namespace {

// A --json report's rows: each row's key (its pid, or its name) -> the
// local report's columns of an IBS row: its overhead, values and estimates.
std::map<std::string, nlohmann::json> ibs_rows(const std::string& text, const char* key) {
  std::map<std::string, nlohmann::json> out;
  const nlohmann::json document = nlohmann::json::parse(text);
  for (const nlohmann::json& row : document.at("rows")) {
    const nlohmann::json& k = row.at(key);
    const std::string name = k.is_string() ? k.get<std::string>() : k.dump();
    INFO(name);
    CHECK(out.count(name) == 0);
    out[name] = {{"overhead", row.at("overhead")}, {"values", row.at("values")}, {"estimates", row.at("estimates")}};
    if (row.contains("children")) out[name]["children"] = row.at("children");
  }
  return out;
}

RunResult checked_run(const std::string& command) {
  INFO(command);
  RunResult r = run_shell(command);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r;
}

// The lines of a text report from its table's header (the line that
// starts with `title`) to the first line that starts with `last`.
std::vector<std::string> text_lines(const std::string& text, const std::string& title, const std::string& last) {
  std::vector<std::string> out;
  std::istringstream in(text);
  bool in_table = false;
  for (std::string line; std::getline(in, line);) {
    in_table = in_table || line.starts_with(title);
    if (!in_table) continue;
    out.push_back(line);
    if (line.starts_with(last)) break;
  }
  return out;
}

// A Zen 4 capture sampled by frequency (attr.sample_period 0): the local
// report reads each unit's period as the mean of its samples' MaxCnt x 16,
// which vary here from 0x1000 to 0x4000 (as the kernel moves them).
std::string varying_capture(const std::string& name, std::uint64_t seed) {
  const std::string file = temp(name);
  amd_ibs::IbsCaptureWriter w(file, {.family = 0x19, .model = 0x11, .stepping = 1, .fetch_period = 0, .op_period = 0});
  std::uint64_t state = seed, t = 1000;
  for (std::uint32_t pid = 300; pid < 310; ++pid) {
    w.perf().comm(pid, pid, "varying", false, {.pid = pid, .tid = pid, .cpu = 0, .time = t++});
    for (std::uint32_t i = 0; i < 60; ++i) {
      const std::uint64_t max_count = 0x100 << (splitmix(state) % 3);  // MaxCnt: periods 0x1000, 0x2000, 0x4000
      amd_ibs::IbsRegisters op;
      op.unit = amd_ibs::IbsUnit::op;
      op.set(amd_ibs::IbsRegister::IbsOpCtl, max_count | std::uint64_t{3} << 17 | std::uint64_t{1} << 19);  // En, Val, CntCtl
      op.set(amd_ibs::IbsRegister::IbsOpRip, 0x401000 + (splitmix(state) & 0xFFF));
      op.set(amd_ibs::IbsRegister::IbsOpData, splitmix(state));
      op.set(amd_ibs::IbsRegister::IbsOpData2, splitmix(state));
      op.set(amd_ibs::IbsRegister::IbsOpData3, splitmix(state));
      w.sample(op, pid, pid, pid % 4, t++);
      if (i % 3 == 0) {
        amd_ibs::IbsRegisters fetch;
        fetch.unit = amd_ibs::IbsUnit::fetch;
        fetch.set(amd_ibs::IbsRegister::IbsFetchCtl, (splitmix(state) & ~0xFFFFull) | max_count | std::uint64_t{3} << 48);
        fetch.set(amd_ibs::IbsRegister::IbsFetchLinAd, 0x401000 + (splitmix(state) & 0xFFF));
        w.sample(fetch, pid, pid, pid % 4, t++);
      }
    }
  }
  w.finish();
  return file;
}

// The moment-matched score interval of parts sampled at different periods
// (tagop/estimate.hpp's estimate_from_parts, written again here from its
// definition): mean sum(p k), variance sum(p^2 k), an effective period
// variance / mean and count mean / period, Poisson score interval.
std::pair<double, double> mixed_interval(const std::vector<std::pair<double, double>>& parts) {  // (k, p)
  const double z = 1.959963984540054;
  double mean = 0, variance = 0;
  for (const auto& [k, p] : parts) {
    mean += k * p;
    variance += k * p * p;
  }
  const double p = variance / mean, k = mean / p;
  return {(k + z * z / 2 - z * std::sqrt(k + z * z / 4)) * p, (k + z * z / 2 + z * std::sqrt(k + z * z / 4)) * p};
}

}  // namespace

TEST_CASE("report --source of IBS captures: the local report's overhead, values and estimates", "[store][cli][source]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const std::string tagop = std::getenv("TAGOP_EXE");
  const std::string example = std::string(std::getenv("TAGOP_SOURCE_ROOT")) + "/examples/ibs-example.perf.data";
  const profiles::ClickHouseServer server(local->url());
  for (const char* db : {"ibs_estimates", "ibs_pair", "ibs_units"}) server.query(fmt::format("CREATE DATABASE IF NOT EXISTS {}", db));
  const auto url = [&](const char* db) { return fmt::format("'{}/?database={}'", local->url(), db); };
  // Two captures of the same processes and functions at different periods,
  // and one that counted cycles.
  const std::string zen_a = zen_capture("zen-est-a.data", 5151, 0x10000);
  const std::string zen_b = zen_capture("zen-est-b.data", 5252, 0x4000);
  const std::string zen_cycles = zen_capture("zen-est-c.data", 5353, 0x10000, false);
  const std::string objects_a = objects_capture("objects-est-a.data", 5454, 0x10000);
  const std::string objects_b = objects_capture("objects-est-b.data", 5555, 0x2000);
  const std::string varying = varying_capture("varying-est.data", 5656);
  const std::string filtered = zen_capture("zen-est-l3.data", 5757, 0x10000, true, true);
  for (const auto& [file, host] : {std::pair{zen_a, "zen-a"}, std::pair{zen_b, "zen-b"}, std::pair{objects_a, "obj-a"},
                                   std::pair{objects_b, "obj-b"}, std::pair{example, "k10"}, std::pair{varying, "vary"},
                                   std::pair{filtered, "l3"}})
    checked_run(fmt::format("{} ingest {} {} --host {}", tagop, url("ibs_estimates"), file, host));

  // One capture: every row's overhead, values (every derived event and
  // ratio) and estimates of the store's report of its host are the local
  // report's of the capture, by process and function (line and data of the
  // objects capture), with and without --where. The bundled capture's
  // periods are its own (Family 10h, read as the local report reads them).
  struct Case {
    std::string file, host, by, key;
  };
  std::size_t undecided_cases = 0;
  for (const Case& c : {Case{zen_a, "zen-a", "process", "name"}, Case{zen_b, "zen-b", "process", "name"},
                        Case{objects_a, "obj-a", "function", "name"}, Case{objects_b, "obj-b", "function", "name"},
                        Case{objects_b, "obj-b", "line", "name"}, Case{objects_a, "obj-a", "data", "name"},
                        Case{example, "k10", "process", "name"}, Case{example, "k10", "module", "name"},
                        Case{varying, "vary", "process", "name"}, Case{varying, "vary", "cpu", "cpu"},
                        Case{filtered, "l3", "process", "name"}})
    for (const std::string where : {"", " --where 'load & dc.miss'"}) {
      INFO(c.host << " --by " << c.by << where);
      const RunResult file = checked_run(fmt::format("{} report {} --by {} --view all --top 0 --json{}", tagop, c.file, c.by, where));
      const RunResult store = checked_run(fmt::format("{} report --source {} --host {} --by {} --view all --top 0 --json{}",
                                                      tagop, url("ibs_estimates"), c.host, c.by, where));
      const auto expected = ibs_rows(file.out, c.key.c_str());
      CHECK(!expected.empty());
      const auto rows = ibs_rows(store.out, "name");
      // The samples of no function (IbsRipInvalid's at address 0 here) are
      // a row named by the address, in the store as locally.
      if (c.by == "function") CHECK(expected.count("[unknown]+0x0") == 1);
      CHECK(rows == expected);
      // The totals' estimates and the periods too.
      const nlohmann::json f = nlohmann::json::parse(file.out), s = nlohmann::json::parse(store.out);
      CHECK(s.at("estimates") == f.at("estimates"));
      CHECK(s.at("period") == f.at("period"));
      // The events some samples left undecided, with the reasons.
      CHECK(s.at("undecided") == f.at("undecided"));
      undecided_cases += !f.at("undecided").empty();
      if (c.host == "vary") CHECK(f.at("period").at("op").at("source").get<std::string>().find("the mean") != std::string::npos);
      // L3MissOnly: the counts of ops it did not sample all of have no
      // estimate, the ratios with them no value, as locally.
      std::vector<std::string> biased_file, biased_store;
      for (const auto& [id, why] : f.at("estimates_biased").items()) biased_file.push_back(id);
      for (const auto& [id, why] : s.at("estimates_biased").items()) biased_store.push_back(id);
      CHECK(biased_store == biased_file);
      CHECK(biased_file.empty() == (c.host != "l3"));
      std::size_t estimated = 0;
      for (const auto& [name, row] : expected)
        for (const auto& [id, e] : row.at("estimates").items()) estimated += !e.is_null() && e.at("samples") != 0;
      CHECK(estimated > 0);
    }

  CHECK(undecided_cases > 0);

  // The text: the table and the estimates (with each row's) as the local
  // report prints them, by source line; the undecided samples and their
  // reasons.
  const RunResult file_text = checked_run(fmt::format("{} report {} --by line --estimates", tagop, objects_b));
  const RunResult store_text =
      checked_run(fmt::format("{} report --source {} --host obj-b --by line --estimates", tagop, url("ibs_estimates")));
  const auto table = text_lines(file_text.out, "source line", "Estimates are");
  CHECK(table.size() > 10);
  CHECK(text_lines(store_text.out, "source line", "Estimates are") == table);
  const auto undecided = [](const std::string& text) { return text_lines(text, "Undecided samples", "\x01"); };
  CHECK(undecided(file_text.out).size() > 2);
  CHECK(undecided(store_text.out) == undecided(file_text.out));

  // Two captures of different periods in one store: each capture's samples
  // scaled by its own period. The expected values come from the local
  // reports of each: counts add, the estimate is the sum of theirs, and its
  // interval the moment-matched one (mixed_interval) of their samples and
  // periods; the overhead is the share of both's fetch and op samples.
  for (const std::string& file : {zen_a, zen_b})
    checked_run(fmt::format("{} ingest {} {}", tagop, url("ibs_pair"), file));
  for (const std::string where : {"", " --where 'load & dc.miss'"}) {
    INFO("both" << where);
    const auto local_of = [&](const std::string& file) {
      return nlohmann::json::parse(
          checked_run(fmt::format("{} report {} --by process --view all --top 0 --json{}", tagop, file, where)).out);
    };
    const nlohmann::json a = local_of(zen_a), b = local_of(zen_b);
    const nlohmann::json both = nlohmann::json::parse(
        checked_run(fmt::format("{} report --source {} --by process --view all --top 0 --json{}", tagop, url("ibs_pair"), where)).out);
    const auto rows_a = ibs_rows(a.dump(), "name"), rows_b = ibs_rows(b.dump(), "name"), rows = ibs_rows(both.dump(), "name");
    CHECK(rows.size() == 23);
    const auto samples = [](const nlohmann::json& values) {
      return values.at("0xF000").get<double>() + values.at("0xF100").get<double>();
    };
    double all_a = 0, all_b = 0;
    for (const auto& [pid, row] : rows_a) all_a += samples(row.at("values"));
    for (const auto& [pid, row] : rows_b) all_b += samples(row.at("values"));
    std::size_t mixed = 0;
    for (const auto& [pid, row] : rows) {
      INFO("pid " << pid);
      REQUIRE(rows_a.count(pid));
      REQUIRE(rows_b.count(pid));
      const nlohmann::json &ra = rows_a.at(pid), &rb = rows_b.at(pid);
      const double part = samples(ra.at("values")) + samples(rb.at("values"));
      CHECK(row.at("overhead").get<double>() == Approx(100 * part / (all_a + all_b)).epsilon(1e-12));
      for (const auto& [id, e] : row.at("estimates").items()) {
        INFO(id);
        // A capture's estimate is null where its count is not available
        // (nothing counted, some samples undecided): no samples of it then.
        const nlohmann::json &ea = ra.at("estimates").at(id), &eb = rb.at("estimates").at(id);
        const double ka = ea.is_null() ? 0 : ea.at("samples").get<double>();
        const double kb = eb.is_null() ? 0 : eb.at("samples").get<double>();
        // Nothing counted of both and some samples undecided: not available
        // over both either (QueryResult::available()).
        if ((ea.is_null() && eb.is_null()) || row.at("values").at(id).is_null()) {
          CHECK(e.is_null());
          CHECK(row.at("values").at(id).is_null());
          continue;
        }
        REQUIRE(!e.is_null());
        CHECK(e.at("samples").get<double>() == ka + kb);
        CHECK(e.at("unit") == (ea.is_null() ? eb : ea).at("unit"));
        const double sum = (ea.is_null() ? 0.0 : ea.at("estimate").get<double>()) +
                           (eb.is_null() ? 0.0 : eb.at("estimate").get<double>());
        CHECK(e.at("estimate").get<double>() == Approx(sum).epsilon(1e-12));
        if (ka == 0 && kb == 0) {
          // No sample of either: from 0.
          CHECK(e.at("low") == 0.0);
          continue;
        }
        if (ka == 0 || kb == 0) {
          // One capture's samples alone: its own interval.
          const nlohmann::json& only = ka ? ea : eb;
          CHECK(e.at("low").get<double>() == Approx(only.at("low").get<double>()).epsilon(1e-12));
          CHECK(e.at("high").get<double>() == Approx(only.at("high").get<double>()).epsilon(1e-12));
          continue;
        }
        // Both: each capture's period (one for both units in these captures).
        const double pa = a.at("period").at("op").at("value"), pb = b.at("period").at("op").at("value");
        REQUIRE(pa == a.at("period").at("fetch").at("value").get<double>());
        REQUIRE(pb == b.at("period").at("fetch").at("value").get<double>());
        REQUIRE(pa != pb);
        const auto [low, high] = mixed_interval({{ka, pa}, {kb, pb}});
        CHECK(e.at("low").get<double>() == Approx(low).epsilon(1e-12));
        CHECK(e.at("high").get<double>() == Approx(high).epsilon(1e-12));
        ++mixed;
      }
      for (const auto& [id, value] : row.at("values").items()) {
        INFO(id);
        if (!row.at("estimates").contains(id)) continue;  // ratios and sums
        const auto count = [](const nlohmann::json& v) { return v.is_null() ? 0 : v.get<std::uint64_t>(); };
        CHECK(count(value) == count(ra.at("values").at(id)) + count(rb.at("values").at(id)));
      }
    }
    CHECK(mixed > 20);
    CHECK(both.at("period").at("op").is_null());  // two periods: per capture
    CHECK(both.at("captures").size() == 2);
  }

  // Dispatched ops and cycles are not one unit: no estimate of op counts
  // over both, the fetch counts' as ever.
  for (const std::string& file : {zen_a, zen_cycles})
    checked_run(fmt::format("{} ingest {} {}", tagop, url("ibs_units"), file));
  const nlohmann::json units = nlohmann::json::parse(
      checked_run(fmt::format("{} report --source {} --by process --events 0xF100,0xF000 --json", tagop, url("ibs_units"))).out);
  CHECK(units.at("estimates").at("0xF100").is_null());
  CHECK(units.at("estimates").at("0xF000").at("unit") == "fetches");
  for (const nlohmann::json& row : units.at("rows")) {
    CHECK(row.at("estimates").at("0xF100").is_null());
    CHECK(!row.at("estimates").at("0xF000").is_null());
  }
  for (const std::string& file : {zen_a, zen_b, zen_cycles, objects_a, objects_b, varying, filtered}) fs::remove(file);
}

TEST_CASE("a captures' table made before the periods gains them; its captures have no estimates", "[store][ibs]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  profiles::ClickHouseServer(local->url()).query("CREATE DATABASE IF NOT EXISTS old_captures");
  const profiles::ClickHouseServer server(local->url() + "/?database=old_captures");
  const report::IngestOptions options{.host = "old", .table = "old_samples", .captures_table = "old_list"};
  // The table as the store's first schema made it: five columns.
  server.query("CREATE TABLE old_list (capture UInt64, host String, file String, rows UInt64, ingested DateTime) "
               "ENGINE = MergeTree() ORDER BY (host, capture)");
  const std::string zen = zen_capture("zen-old.data", 6161);
  // A capture listed by an ingest of then: its rows, and its line of five columns.
  server.query(profiles::store_create_table("old_samples"));
  profiles::ClickHouseInsert insert(server, "INSERT INTO old_samples FORMAT Native");
  const std::uint64_t rows = report::write_capture_rows(zen, [&](std::string_view b) { insert.write(b); }, options);
  insert.finish();
  server.query(fmt::format("INSERT INTO old_list (capture, host, file, rows, ingested) VALUES ({}, 'old', 'zen', {}, now())",
                           profiles::capture_identity(zen), rows));
  // Before ingest adds the columns, and after: the counts, no estimates.
  for (int pass = 0; pass < 2; ++pass) {
    INFO("pass " << pass);
    if (pass == 1) report::create_store_tables(server, options);
    const report::StoreReport r = report::store_report(server, {.by = report::GroupBy::process, .tables = options});
    CHECK(r.rows.size() == 23);
    REQUIRE(r.captures.size() == 1);
    CHECK(r.captures[0].units[1].value == 0);
    CHECK(r.totals[*report::resolve_column("0xF100").event].count > 0);
    for (const auto& e : r.estimates) CHECK(!e);
  }
  const auto columns = server.query("SELECT name FROM system.columns WHERE database = 'old_captures' AND table = "
                                    "'old_list' FORMAT TabSeparated");
  for (const profiles::StoreColumn& c : profiles::store_captures_columns()) CHECK(columns.find(c.name + "\n") != std::string::npos);
  // A capture ingested now has its periods: the local report's estimates.
  const std::string zen_new = zen_capture("zen-new.data", 6262);
  report::ingest_capture(zen_new, server, options);
  const report::StoreReport r = report::store_report(server, {.by = report::GroupBy::process, .host = "old", .tables = options});
  REQUIRE(r.captures.size() == 2);
  perf_data::PerfDataReader reader(zen_new);
  const report::Report local_report(reader, {.by = report::GroupBy::process});
  const auto with_period = std::find_if(r.captures.begin(), r.captures.end(), [](const auto& c) { return c.units[1].value != 0; });
  REQUIRE(with_period != r.captures.end());
  CHECK(with_period->units[1].value == local_report.period(amd_ibs::IbsUnit::op).value);
  CHECK(with_period->units[1].unit == local_report.period(amd_ibs::IbsUnit::op).unit);
  // Over both, the old capture's period unknown: no estimate.
  for (const auto& e : r.estimates) CHECK(!e);
  fs::remove(zen);
  fs::remove(zen_new);
}

TEST_CASE("a samples' table of tagop 0.8.1 gains the processes' names; its rows' processes are named :pid",
          "[store][process]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  profiles::ClickHouseServer(local->url()).query("CREATE DATABASE IF NOT EXISTS old_comm");
  const profiles::ClickHouseServer server(local->url() + "/?database=old_comm");
  const report::IngestOptions options{.host = "old", .table = "comm_samples", .captures_table = "comm_list"};
  // 0.8.1's table: the columns of now less comm, its rows those of a
  // capture ingested then (written now, and copied without their comm).
  // (Its captures' table, 0.8's: without tagop_version.)
  const std::string zen = zen_capture("zen-comm-old.data", 7171);
  report::create_store_tables(server, {.host = "old", .table = "comm_now", .captures_table = "comm_list_now"});
  report::ingest_capture(zen, server, {.host = "old", .table = "comm_now", .captures_table = "comm_list_now"});
  std::vector<std::string> columns, capture_columns;
  const std::set<std::string> added{"comm", "offset", "thread_comm", "data_access", "wall_time"};
  for (const profiles::StoreColumn& c : profiles::store_columns())
    if (!added.count(c.name)) columns.push_back(c.name);
  CHECK(columns.size() + 5 == profiles::store_columns().size());
  for (const profiles::StoreColumn& c : profiles::store_captures_columns())
    if (c.name != "tagop_version") capture_columns.push_back(c.name);
  server.query("CREATE TABLE comm_samples AS comm_now");
  for (const std::string& c : added) server.query("ALTER TABLE comm_samples DROP COLUMN " + c);
  server.query(fmt::format("INSERT INTO comm_samples SELECT {0} FROM comm_now", fmt::join(columns, ", ")));
  // Its frames' table, 0.10's: without the symbols.
  server.query("CREATE TABLE comm_samples_frames AS comm_now_frames");
  server.query("ALTER TABLE comm_samples_frames DROP COLUMN symbol");
  server.query("CREATE TABLE comm_list AS comm_list_now");
  server.query("ALTER TABLE comm_list DROP COLUMN tagop_version");
  server.query(fmt::format("INSERT INTO comm_list SELECT {0} FROM comm_list_now", fmt::join(capture_columns, ", ")));
  // Rows by address and thread: of columns its rows lack, a clear error
  // naming a capture, before and after an ingest adds them.
  for (const report::GroupBy by : {report::GroupBy::address, report::GroupBy::thread})
    CHECK_THROWS_WITH(report::store_report(server, {.by = by, .tables = options}),
                      Catch::Contains("ingested by tagop 0.8") && Catch::Contains(zen));
  // Until an ingest adds the column: a clear error for rows by process.
  CHECK_THROWS_WITH(report::store_report(server, {.by = report::GroupBy::process, .tables = options}),
                    Catch::Contains("made by tagop 0.8.1"));
  CHECK(report::store_report(server, {.by = report::GroupBy::cpu, .tables = options}).rows.size() == 4);
  report::create_store_tables(server, options);
  const std::string now = server.query("SELECT name FROM system.columns WHERE database = 'old_comm' AND table = "
                                       "'comm_samples' FORMAT TabSeparated");
  CHECK(now.ends_with("chain\ncomm\noffset\nthread_comm\ndata_access\nwall_time\n"));
  CHECK(server.query("SELECT name FROM system.columns WHERE database = 'old_comm' AND table = 'comm_samples_frames' "
                     "FORMAT TabSeparated")
            .ends_with("module\nfunction\nsymbol\n"));
  CHECK_THROWS_WITH(report::store_report(server, {.by = report::GroupBy::address, .tables = options}),
                    Catch::Contains("ingested by tagop 0.8") && Catch::Contains(zen));
  // The old rows: 23 processes named as perf names one it saw no name of;
  // those of a capture ingested now, as the local report names them.
  const report::StoreReport old_rows = report::store_report(server, {.by = report::GroupBy::process, .tables = options});
  REQUIRE(old_rows.rows.size() == 23);
  CHECK(old_rows.rows[0].name == ":200");
  CHECK(old_rows.rows[0].pid == 200u);
  const std::string zen_new = zen_capture("zen-comm-new.data", 7272);
  report::ingest_capture(zen_new, server, {.host = "new", .table = "comm_samples", .captures_table = "comm_list"});
  const report::StoreReport new_rows =
      report::store_report(server, {.by = report::GroupBy::process, .host = "new", .tables = options});
  REQUIRE(new_rows.rows.size() == 23);
  perf_data::PerfDataReader reader(zen_new);
  const report::Report local_report(reader, {.by = report::GroupBy::process});
  std::set<std::string> local_names, store_names;
  for (std::uint32_t id : local_report.select(report::resolve_column("samples"), 0)) local_names.insert(local_report.row(id).name);
  for (const report::StoreRow& row : new_rows.rows) store_names.insert(row.name);
  CHECK(local_names.count("worker [200]") == 1);
  CHECK(store_names == local_names);
  // The new capture's rows by address, as the local report's.
  const report::StoreReport addresses =
      report::store_report(server, {.by = report::GroupBy::address, .host = "new", .tables = options});
  const report::Report local_addresses(reader, {.by = report::GroupBy::address});
  std::map<std::string, std::uint64_t> local_ops, store_ops;
  const auto ops = report::resolve_column("0xF100");
  for (std::uint32_t id : local_addresses.select(ops, 0))
    local_ops[local_addresses.row(id).name] = local_addresses.row(id).results[*ops.event].count;
  for (const report::StoreRow& row : addresses.rows) store_ops[row.name] = row.results[*ops.event].count;
  CHECK(local_ops.size() > 10);
  CHECK(store_ops == local_ops);
  fs::remove(zen);
  fs::remove(zen_new);
}

TEST_CASE("report --source --by callchain of an IBS capture with call chains: the local report's rows",
          "[store][ibs][chains]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const std::string tagop = std::getenv("TAGOP_EXE");
  profiles::ClickHouseServer(local->url()).query("CREATE DATABASE IF NOT EXISTS ibs_chains");
  const std::string url = "'" + local->url() + "/?database=ibs_chains'";
  const std::string file = chained_capture("ibs-chains.data", 8181);
  checked_run(fmt::format("{} ingest {} {} --host chained", tagop, url, file));
  for (const std::string options : {" --view all", " --view all --max-stack 2", " --view all --where 'load & dc.miss'",
                                     " --view dc"}) {
    INFO(options);
    const auto expected = ibs_rows(
        checked_run(fmt::format("{} report {} --by callchain --top 0 --json{}", tagop, file, options)).out, "name");
    // Chains of the four return addresses, main's, [unknown] and [heap]'s.
    std::size_t deep = 0, unknown = 0;
    for (const auto& [name, row] : expected) {
      deep += std::count(name.begin(), name.end(), ';') >= 2;
      unknown += name.find("[unknown]+0x5000") != std::string::npos;
    }
    CHECK(expected.size() >= 4);
    if (options.find("max-stack") == std::string::npos) CHECK(deep >= 3);
    CHECK(unknown >= 1);
    CHECK(ibs_rows(checked_run(fmt::format("{} report --source {} --host chained --by callchain --top 0 --json{}",
                                           tagop, url, options))
                       .out,
                   "name") == expected);
  }
  // Their stacks: the page's table and flame graph, the folded stacks, as
  // the local ones (of the chains).
  const std::string local_page = temp("chains-local.html"), store_page = temp("chains-store.html");
  checked_run(fmt::format("{} report {} --html {}", tagop, file, local_page));
  checked_run(fmt::format("{} report --source {} --host chained --html {}", tagop, url, store_page));
  const nlohmann::json local_data = test::page_data(local_page), store_data = test::page_data(store_page);
  CHECK(store_data.at("table") == local_data.at("table"));
  CHECK(store_data.at("flame") == local_data.at("flame"));
  const auto folded = test::folded_lines(fmt::format("report {} --format folded --sort 0xF206", file));
  CHECK(folded.size() >= 4);
  CHECK(test::folded_lines(fmt::format("report --source {} --host chained --format folded --sort 0xF206", url)) == folded);
  fs::remove(local_page);
  fs::remove(store_page);
  // Each row with its callees' (--children), by function and by module,
  // with --where and --max-stack: the local rows, their values, their
  // own and their callees' shares and estimates; and the text table.
  for (const std::string options : {" --by function", " --by module", " --by function --where load --max-stack 2"}) {
    INFO(options);
    const auto expected = ibs_rows(
        checked_run(fmt::format("{} report {} --children --view all --top 0 --json{}", tagop, file, options)).out,
        "name");
    std::size_t callers = 0;  // rows whose callees add to them: main's callers' frames
    for (const auto& [name, row] : expected) callers += row.at("children") != row.at("overhead");
    CHECK(expected.size() >= 3);
    CHECK(callers >= 2);
    CHECK(ibs_rows(checked_run(fmt::format("{} report --source {} --host chained --children --view all --top 0 "
                                           "--json{}",
                                           tagop, url, options))
                       .out,
                   "name") == expected);
  }
  const auto table = [](const std::string& text) { return text_lines(text, "function", "[total]"); };
  const auto local_text = table(checked_run(fmt::format("{} report {} --children --view dc", tagop, file)).out);
  CHECK(local_text.size() >= 4);
  CHECK(local_text.front().find("Children") != std::string::npos);
  CHECK(table(checked_run(fmt::format("{} report --source {} --host chained --children --view dc", tagop, url)).out) ==
        local_text);
  fs::remove(file);
}

TEST_CASE("report --source --strict: the damage ingest met, as the local --strict says it", "[store][strict]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const std::string tagop = std::getenv("TAGOP_EXE");
  profiles::ClickHouseServer(local->url()).query("CREATE DATABASE IF NOT EXISTS strict_source");
  const profiles::ClickHouseServer server(local->url() + "/?database=strict_source");
  const std::string url = "'" + local->url() + "/?database=strict_source'";
  // A capture cut in its data section (its feature sections lost too, its
  // processor with them: given to both), and the whole one.
  const std::string whole = zen_capture("zen-strict.data", 8181), cut = test::temp("zen-strict-cut.data");
  fs::copy_file(whole, cut, fs::copy_options::overwrite_existing);
  fs::resize_file(cut, fs::file_size(cut) * 3 / 5);
  // Without the processor, ingest says how to give it.
  const RunResult unknown = run_shell(fmt::format("{} ingest {} {} --host cut", tagop, url, cut));
  CHECK(unknown.exit_code == 1);
  CHECK(unknown.err.find("--cpu AuthenticAMD,FAMILY,MODEL,STEPPING") != std::string::npos);
  const RunResult ingest_cut =
      run_shell(fmt::format("{} ingest {} {} --host cut --cpu AuthenticAMD,25,17,1", tagop, url, cut));
  INFO(ingest_cut.err);
  REQUIRE(ingest_cut.exit_code == 0);
  REQUIRE(run_shell(fmt::format("{} ingest {} {} --host whole", tagop, url, whole)).exit_code == 0);

  // What the local --strict says of the cut capture, the store says of it.
  const RunResult file = run_shell(fmt::format("{} report {} --strict --family 0x19 --model 0x11", tagop, cut));
  CHECK(file.exit_code == 1);
  const std::string said = "--strict: the capture is damaged (";
  const std::size_t at = file.err.find(said);
  REQUIRE(at != std::string::npos);
  const std::string damage = file.err.substr(at + said.size(), file.err.find(")\n", at) - at - said.size());
  CHECK(damage.find("the file truncated") != std::string::npos);
  CHECK(ingest_cut.err.find("the capture is damaged (" + damage + ")") != std::string::npos);
  const RunResult store = run_shell(fmt::format("{} report --source {} --host cut --strict --json", tagop, url));
  CHECK(store.exit_code == 1);
  CHECK(store.err.find("zen-strict-cut.data of cut is damaged (" + damage + ")") != std::string::npos);
  CHECK(nlohmann::json::parse(store.out).at("rows").size() >= 2);  // the report, then the error, as the local one
  // The whole capture passes; both at once fail, naming the damaged one.
  CHECK(run_shell(fmt::format("{} report --source {} --host whole --strict", tagop, url)).exit_code == 0);
  CHECK(run_shell(fmt::format("{} report --source {} --strict", tagop, url)).err.find("of cut is damaged") !=
        std::string::npos);
  // A capture of a tagop that did not keep its damage: not vouched for.
  // (A mutation, waited for: this server's ALTER knows no mutations_sync.)
  server.query(fmt::format("ALTER TABLE {} UPDATE tagop_version = '0.10.0' WHERE host = 'whole'",
                           profiles::store_captures_table_name()));
  for (int i = 0; i < 200 && server.query("SELECT count() FROM system.mutations WHERE NOT is_done FORMAT TabSeparated") != "0\n"; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const RunResult old = run_shell(fmt::format("{} report --source {} --host whole --strict", tagop, url));
  CHECK(old.exit_code == 1);
  CHECK(old.err.find("was ingested by tagop 0.10.0, which did not keep what its reading met") != std::string::npos);
  fs::remove(whole);
  fs::remove(cut);
}
