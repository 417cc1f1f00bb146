// The store: its columns come from the row's declaration, its rows go into
// a real clickhouse-server (started by the test, clickhouse_fixture.hpp),
// and every event's predicate asked there as SQL (query_sql) gives the
// count, total and undecided that the engine (Aggregator) gives for the
// same samples on this side: random samples over the whole vocabulary,
// with conditions observed and not, measures reported and not.

#include <catch2/catch.hpp>

#include <algorithm>  // std::count_if
#include <random>   // std::mt19937_64
#include <sstream>  // std::istringstream

#include <fmt/format.h>  // fmt::format
#include <fmt/ranges.h>  // fmt::join

#include <tagop/engine.hpp>    // Aggregator
#include <tagop/error.hpp>     // tagop::Error
#include <tagop/registry.hpp>  // Registry
#include <tagop/samples_range.hpp>  // where
#include <tagop/profiles/clickhouse.hpp>  // ClickHouseServer
#include <tagop/profiles/store.hpp>       // query_sql

#include "clickhouse_fixture.hpp"

using namespace tagop;
using namespace tagop::profiles;

namespace {

// Samples whose bits take every combination the predicates test: each
// condition true with 1/3, observed with 7/8 (the kind always), each
// measure reported with 3/4.
std::vector<Sample> random_samples(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<Sample> out(n);
  for (Sample& s : out) {
    for (std::size_t c = 2; c < condition_count; ++c) {
      const Condition condition{static_cast<std::uint8_t>(c)};
      s.conditions.set(condition, random() % 3 == 0);
      s.observed.set(condition, random() % 8 != 0);
    }
    // A bit no sample reports, as a processor lacks one.
    s.conditions.erase(condition("mem.split_page"));
    s.observed.erase(condition("mem.split_page"));
    const Condition kind = random() % 4 == 0 ? condition("fetch") : condition("op");
    s.conditions.insert(kind);
    s.observed.insert(condition("fetch"));
    s.observed.insert(condition("op"));
    for (std::size_t m = 0; m < measure_count; ++m)
      if (random() % 4 != 0) s.set_measure(Measure{static_cast<std::uint8_t>(m)}, random() % 1000);
    s.ip = 0x400000 + random() % 64;
    s.pid = 100 + random() % 3;
    s.time = random();
  }
  return out;
}

std::vector<std::uint64_t> numbers(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::uint64_t> out;
  for (std::uint64_t v; in >> v;) out.push_back(v);
  return out;
}

void insert_rows(const ClickHouseServer& server, const std::string& table, const std::vector<Sample>& samples,
                 const StoreCapture& capture) {
  const StoreRowWriter writer(capture);
  std::size_t next = 0;
  server.insert(fmt::format("INSERT INTO {} FORMAT TabSeparated", table), [&](std::string& batch) {
    for (std::size_t end = std::min(samples.size(), next + 1000); next < end; ++next)
      writer.append(samples[next], {"work", "/usr/bin/prog"}, batch);
    return next < samples.size();
  });
}

}  // namespace

TEST_CASE("the store's columns come from the row's declaration", "[profiles][store]") {
  const std::vector<StoreColumn> columns = store_columns();
  // 31 declared fields; the two condition sets are two columns each, the
  // measures one column per measure of the table. After the chain: comm
  // (0.8.2), offset and thread_comm (0.9.0), data_access and wall_time
  // (0.10.0), added last, which ingest adds to an older table.
  CHECK(columns.size() == 31 - 3 + 4 + measure_count);
  CHECK(columns[0].name == "capture");
  REQUIRE(columns.size() >= 6);
  const auto last = [&](std::size_t k) { return columns[columns.size() - 1 - k]; };
  CHECK(last(5).name == "chain");
  CHECK(last(5).type == "Array(UInt64)");
  CHECK(last(4).name == "comm");
  CHECK(last(4).type == "String");
  CHECK(last(3).name == "offset");
  CHECK(last(3).type == "UInt64");
  CHECK(last(2).name == "thread_comm");
  CHECK(last(2).type == "String");
  CHECK(last(1).name == "data_access");
  CHECK(last(1).type == "UInt32");
  CHECK(last(0).name == "wall_time");
  CHECK(last(0).type == "UInt64");
  // A row's comm, offset, thread name, data access and time of day are
  // its last fields, escaped as TabSeparated says; "", 0, "", 0 and 0 by
  // default (after the chain's empty array).
  const StoreRowWriter writer({7, "h", "AuthenticAMD", 0x19, 1, "amd-ibs"});
  std::string named, unnamed;
  writer.append(Sample{}, {"work", "/usr/bin/prog"}, named, {},
                {.comm = "prog\tx", .thread_comm = "worker\\1", .offset = 0x1234, .data_access = 9,
                 .wall_time = 1795974018108448000});
  CHECK(named.ends_with("\t[]\tprog\\tx\t4660\tworker\\\\1\t9\t1795974018108448000\n"));
  writer.append(Sample{}, {"work", "/usr/bin/prog"}, unnamed);
  CHECK(unnamed.ends_with("\t[]\t\t0\t\t0\t0\n"));
  CHECK(measure_column(measure("dc.miss_latency")) == "m_dc_miss_latency");
  const std::string ddl = store_create_table(store_table_name());
  CHECK(ddl.find("CREATE TABLE IF NOT EXISTS tagop_samples_v2 (") == 0);
  for (const StoreColumn& c : columns) {
    CHECK(!c.description.empty());
    CHECK(ddl.find(fmt::format("  {} {} COMMENT", c.name, c.type)) != std::string::npos);
  }
}

TEST_CASE("the frames' table's columns and rows come from its declaration", "[profiles][store]") {
  const std::vector<StoreColumn> columns = store_frame_columns();
  std::vector<std::string> names, types;
  for (const StoreColumn& c : columns) {
    names.push_back(c.name);
    types.push_back(c.type);
    CHECK(!c.description.empty());
  }
  CHECK(names == std::vector<std::string>{"capture", "pid", "address", "module", "function", "symbol"});
  CHECK(types == std::vector<std::string>{"UInt64", "UInt32", "UInt64", "String", "String", "String"});
  CHECK(store_frames_table_name() == "tagop_frames_v2");
  const std::string ddl = store_create_frames_table("f");
  CHECK(ddl.find("CREATE TABLE IF NOT EXISTS f (") == 0);
  CHECK(ddl.find("  function String COMMENT") != std::string::npos);
  CHECK(ddl.find("ORDER BY (capture, pid, address)") != std::string::npos);
  // 0x401000 = 4198400; a tab in a name escaped as TabSeparated says.
  std::string row;
  append_frame_row({7, 42, 0x401000, "/usr/bin/prog", "odd\tname", "_Z3oddv"}, row);
  CHECK(row == "7\t42\t4198400\t/usr/bin/prog\todd\\tname\t_Z3oddv\n");
}

TEST_CASE("a predicate as SQL, written out by hand", "[profiles][store]") {
  // load is condition 29 and dc.miss 40 of the vocabulary, counted in
  // conditions.hpp from fetch = 0: bits 29 and 40 of the low word;
  // !dtlb.l1_miss (34) forbids bit 34.
  REQUIRE(condition("load").index == 29);
  REQUIRE(condition("dc.miss").index == 40);
  REQUIRE(condition("dtlb.l1_miss").index == 34);
  const std::uint64_t load_miss = (1ull << 29) | (1ull << 40), tlb = 1ull << 34;
  CHECK(predicate_sql(Predicate::parse("load & dc.miss & !dtlb.l1_miss")) ==
        fmt::format("(bitAnd(observed_lo, {0}) = {0}) AND (bitAnd(conditions_lo, {1}) = {1}) AND "
                    "(bitAnd(conditions_lo, {2}) = 0)",
                    load_miss | tlb, load_miss, tlb));
  CHECK(predicate_sql(Predicate()) == "1");
  CHECK(predicate_sql(Predicate::never()) == "0");
  // op.not_retired is condition 78: bit 14 of the high word.
  REQUIRE(condition("op.not_retired").index == 78);
  CHECK(predicate_sql(Predicate::parse("op.not_retired")) ==
        "(bitAnd(observed_hi, 16384) = 16384) AND (bitAnd(conditions_hi, 16384) = 16384)");
}

TEST_CASE("URLs the client refuses, and a server that is not there", "[profiles][store]") {
  CHECK_THROWS_WITH(ClickHouseServer("https://example.com"), Catch::Contains("https is not supported"));
  CHECK_THROWS_WITH(ClickHouseServer("http://127.0.0.1:99999"), Catch::Contains("not a number from 1 to 65535"));
  CHECK_THROWS_WITH(ClickHouseServer("http://127.0.0.1:8123/db"), Catch::Contains("has no path"));
  const int port = test::free_port();  // no one listens there
  CHECK_THROWS_WITH(ClickHouseServer(fmt::format("http://127.0.0.1:{}", port)).query("SELECT 1"),
                    Catch::Contains("cannot connect to a ClickHouse server"));
}

TEST_CASE("every event's predicate asked of the store counts as the engine counts", "[profiles][store]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const ClickHouseServer server(local->url());
  const std::string table = "events_test_samples";
  server.query(fmt::format("DROP TABLE IF EXISTS {}", table));
  server.query(store_create_table(table));
  const std::vector<Sample> samples = random_samples(20000, 41);
  insert_rows(server, table, samples, {1, "host-a", "AuthenticAMD", 0x19, 1, "amd-ibs"});
  REQUIRE(numbers(server.query(fmt::format("SELECT count() FROM {}", table))) ==
          std::vector<std::uint64_t>{samples.size()});

  std::vector<Query> queries;
  for (const EventEntry* e : Registry::builtin().events()) {
    if (e->predicate.empty()) continue;
    queries.push_back({Predicate::parse(e->predicate), find_measure(e->sums)});
  }
  // A query of a condition no sample observes: undecided for all its kind.
  queries.push_back({Predicate::parse("op & mem.split_page"), std::nullopt});
  REQUIRE(queries.size() > 100);
  Aggregator engine;
  for (const Sample& s : samples) engine.add(s);
  const std::vector<QueryResult> expected = engine.evaluate(queries);

  for (std::size_t first = 0; first < queries.size(); first += 40) {
    const std::size_t end = std::min(queries.size(), first + 40);
    std::vector<std::string> columns;
    for (std::size_t q = first; q < end; ++q) {
      const QuerySql sql = query_sql(queries[q]);
      columns.push_back(fmt::format("{}, {}, {}", sql.count, sql.total, sql.undecided_count));
    }
    const std::vector<std::uint64_t> got =
        numbers(server.query(fmt::format("SELECT {} FROM {}", fmt::join(columns, ", "), table)));
    REQUIRE(got.size() == 3 * (end - first));
    for (std::size_t q = first; q < end; ++q) {
      INFO(queries[q].predicate.to_string() << (queries[q].sums ? " sums " + std::string(queries[q].sums->name()) : ""));
      CHECK(got[3 * (q - first)] == expected[q].count);
      CHECK(got[3 * (q - first) + 1] == expected[q].total);
      CHECK(got[3 * (q - first) + 2] == expected[q].undecided);
    }
  }

  // --where: the rows predicate_sql selects are the samples where() keeps.
  for (const char* text : {"load & dc.miss & !dtlb.l1_miss", "(load | store) & !dc.miss", "op.not_retired | branch",
                           "!load", "fetch & ic.miss & !itlb.l1_miss", "op & mem.split_page", "true"}) {
    INFO(text);
    const Predicate p = Predicate::parse(text);
    const auto keep = where(p);
    const auto kept = static_cast<std::uint64_t>(std::count_if(samples.begin(), samples.end(), keep));
    CHECK(numbers(server.query(fmt::format("SELECT count() FROM {} WHERE {}", table, predicate_sql(p)))) ==
          std::vector<std::uint64_t>{kept});
  }
  // After another condition, an OR of terms keeps to it (no capture 2 here).
  CHECK(numbers(server.query(fmt::format("SELECT count() FROM {} WHERE capture = 2 AND {}", table,
                                         predicate_sql(Predicate::parse("load | store"))))) ==
        std::vector<std::uint64_t>{0});
  server.query(fmt::format("DROP TABLE {}", table));
}
