// tagop report --source and tagop diff --source against the local report
// and diff of the same captures: captures without IBS (perf record -g of
// two events, a perf mem capture with data sources and weights), rows by
// the fleet's keys (host, processor, host and function), and the diff of
// two hosts. Every expected number is the local command's on the capture
// files (its own path: the raw records), never the store's.

#include <catch2/catch.hpp>

#include <algorithm>   // std::max
#include <chrono>      // std::chrono::milliseconds
#include <cstdlib>     // std::llabs
#include <filesystem>  // std::filesystem
#include <map>         // std::map
#include <set>         // std::set
#include <sstream>     // std::istringstream
#include <string>      // std::string
#include <thread>      // std::this_thread
#include <vector>      // std::vector

#include <fmt/format.h>       // fmt::format
#include <nlohmann/json.hpp>  // the commands' --json

#include <linux/perf_event.h>  // perf_event_attr

#include <tagop/cpu.hpp>               // CpuId
#include <tagop/perf_data_reader.hpp>  // PerfDataReader
#include <tagop/perf_data_writer.hpp>  // PerfDataWriter
#include <tagop/profiles/clickhouse.hpp>  // ClickHouseServer
#include <tagop/profiles/store.hpp>       // store_captures_table_name

#include "profiles/clickhouse_fixture.hpp"
#include "report/store_captures.hpp"
#include "report/store_commands.hpp"
#include "run_command.hpp"
#include "software_event_attr.hpp"

using namespace tagop;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using test::database;
using test::run_json;
using test::tagop_command;

void ingest(const std::string& url, const std::string& file, const std::string& host) {
  const RunResult r = run_shell(fmt::format("{} ingest {} {} --host {}", tagop_command(), url, file, host));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
}

// An events report's entries without the events that have no samples (a
// local report lists every event of its capture; the store knows those
// with samples).
json sampled(const json& events) {
  json out = json::object();
  for (const auto& [name, entry] : events.items())
    if (entry.at("samples").get<std::uint64_t>() != 0) out[name] = entry;
  return out;
}

// A row of a user module or of no mapping: its function, or its address
// (module+0xoffset, [unknown]+0x...), which the store names as the local
// report does; not a kernel function (module [kernel.kallsyms]: ingest
// names them as the local report does, which store_names_test checks; this
// test keeps to the user's).
bool named(const json& row) {
  const auto bracketed = [&](const char* key) {
    return row.contains(key) && row.at(key).get<std::string>().rfind('[', 0) == 0;
  };
  return !row.at("name").get<std::string>().empty() && row.at("name").get<std::string>().rfind("[kernel", 0) != 0 &&
         !bracketed("module");
}

// The names of a local report's rows that named() leaves out.
std::set<std::string> unnamed(const json& document) {
  std::set<std::string> out{""};
  for (const json& row : document.at("rows"))
    if (!named(row)) out.insert(row.at("name").get<std::string>());
  return out;
}

// A --json events report's rows: key -> its events with samples; by name,
// those named() and not in `skip` (the local report's unnamed()). Rows by
// function are keyed by name and module: functions of one name in two
// modules (ld.so's _start and the program's) are two rows in both.
std::map<std::string, json> event_rows(const json& document, const char* key, const std::set<std::string>& skip = {},
                                       bool function = false) {
  std::map<std::string, json> out;
  for (const json& row : document.at("rows")) {
    if (std::string(key) == "name" && (!named(row) || skip.count(row.at("name")))) continue;
    const json& k = row.at(key);
    std::string name = k.is_string() ? k.get<std::string>() : k.dump();
    if (function) name += "\n" + row.at("module").get<std::string>();
    out[name] = sampled(row.at("events"));
  }
  return out;
}

// perf mem record on a Skylake server (GenuineIntel 6/85): loads that hit
// the L1, the L3 and DRAM, with weights, stores without, over two pids and
// CPUs; union perf_mem_data_src (include/uapi/linux/perf_event.h).
std::string mem_capture(const std::string& name) {
  const std::uint64_t load = 2, store = 4 /* PERF_MEM_OP_STORE */;
  const std::uint64_t l1 = (0x2 | 0x8) << 5, l3 = (0x2 | 0x40) << 5, dram = (0x2 | 0x80) << 5;
  const std::string file = test::temp(name);
  perf_data::PerfDataWriter w = test::perf_mem_writer(file);
  w.comm(100, 100, "memhog");
  w.comm(101, 101, "memhog");
  std::uint64_t time = 1000;
  struct Kind {
    std::uint64_t source;
    int n;
    std::uint64_t weight;
  };
  for (const Kind& k : {Kind{load | l1, 30, 7}, Kind{load | l3, 20, 60}, Kind{load | dram, 10, 300},
                        Kind{store | l1, 15, 0}})
    for (int i = 0; i < k.n; ++i) {
      const std::uint32_t pid = 100 + static_cast<std::uint32_t>(i % 2);
      w.sample(0, {.ip = 0x401000, .pid = pid, .tid = pid, .time = time++, .addr = 0x7f0000001000, .cpu = pid % 3,
                   .period = 2000 + static_cast<std::uint64_t>(i), .weight = k.weight + static_cast<std::uint64_t>(i),
                   .data_src = k.source});
    }
  w.finish();
  return file;
}

// perf mem samples over three cache lines of every access perf c2c tells
// apart (union perf_mem_data_src): loads that hit the L1, the fill buffer
// (an L1 miss to c2c) and of no level (LVL_NA, no miss), loads whose snoop
// found the line Modified in this node's L3 and in another node's cache,
// stores that hit and missed the L1. Twenty code addresses, more than the
// sixteen a line lists, each its own [unknown] function.
std::string c2c_capture(const std::string& name) {
  const std::uint64_t load = PERF_MEM_S(OP, LOAD), store = PERF_MEM_S(OP, STORE), hit = PERF_MEM_S(LVL, HIT);
  const std::uint64_t hitm = PERF_MEM_S(SNOOP, HITM);
  const std::uint64_t sources[] = {load | PERF_MEM_S(LVL, L1) | hit,
                                   load | PERF_MEM_S(LVL, LFB) | hit,
                                   load | PERF_MEM_S(LVL, NA),
                                   load | PERF_MEM_S(LVL, L3) | hit | hitm,
                                   load | PERF_MEM_S(LVL, L3) | hit | hitm,  // twice: more local HITMs than remote
                                   load | PERF_MEM_S(LVL, REM_CCE1) | hit | hitm,
                                   store | PERF_MEM_S(LVL, L1) | hit,
                                   store | PERF_MEM_S(LVL, L1) | PERF_MEM_S(LVL, MISS)};
  const std::string file = test::temp(name);
  perf_data::PerfDataWriter w = test::perf_mem_writer(file);
  w.comm(100, 100, "sharer");
  w.comm(101, 101, "sharer");
  for (std::uint64_t i = 0; i < 400; ++i) {
    const auto pid = static_cast<std::uint32_t>(100 + i % 2);
    w.sample(0, {.ip = 0x401000 + 4 * (i * 7 % 20), .pid = pid, .tid = pid, .time = 1000 + i,
                 .addr = 0x7f0000001000 + 64 * (i % 3) + 8 * (i % 3) + i * 16 % 64, .cpu = static_cast<std::uint32_t>(i % 4),
                 .period = 2000, .weight = 30 + i % 50, .data_src = sources[i * 5 % 8]});
  }
  w.finish();
  return file;
}

// Two processes' samples of two software events (perf_event_attr type
// and config), named as given: what a diff matches by type and config.
std::string named_events_capture(const std::string& name, const std::string& clock_name, std::uint64_t other_config,
                                 const std::string& other_name, std::uint64_t seed) {
  const std::string file = test::temp(name);
  perf_data::PerfDataWriter w(file, {{.attr = software_event_attr(PERF_COUNT_SW_CPU_CLOCK, 1000), .ids = {1},
                                      .name = clock_name},
                                     {.attr = software_event_attr(other_config, 1), .ids = {2}, .name = other_name}});
  w.comm(100, 100, "server");
  w.comm(200, 200, "worker");
  for (std::uint64_t i = 0; i < 200 + 10 * seed; ++i) {
    const std::uint32_t pid = (i * seed) % 3 == 0 ? 200 : 100;
    w.sample(i % 4 == 0 ? 1 : 0, {.ip = 0x401000 + i % 16, .pid = pid, .tid = pid, .time = 1000 + i,
                                  .period = i % 4 == 0 ? std::uint64_t{1} : std::uint64_t{1000}});
  }
  w.finish();
  return file;
}

// The rows' perf c2c counts of a --json report, by row name.
std::map<std::string, json> cache_lines(const json& document) {
  std::map<std::string, json> out;
  for (const json& row : document.at("rows"))
    if (row.contains("cache_line")) out[row.at("name").get<std::string>()] = row.at("cache_line");
  return out;
}

// The processor a capture was taken on, as --by processor names it:
// CpuId::to_string() less the stepping.
std::string processor_of(const std::string& file) {
  perf_data::PerfDataReader reader(file);
  REQUIRE(reader.info().cpuid);
  const std::string text = CpuId::parse(*reader.info().cpuid).to_string();
  return text.substr(0, text.find(" stepping"));
}

}  // namespace

TEST_CASE("report --source of captures without IBS: each event's samples and periods as the local report's",
          "[store][source][events]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const std::string a = test::perf_capture("perf-a.data"), b = test::perf_capture("perf-b.data", 300);
  if (a.empty() || b.empty()) return;
  const std::string mem = mem_capture("mem-source.data");
  const std::string url = database(*local, "source_events");
  ingest(url, a, "perf-a");
  ingest(url, b, "perf-b");
  ingest(url, mem, "mem-1");

  struct Case {
    std::string file, host, by, key, where;
  };
  for (const Case& c : {Case{a, "perf-a", "function", "name", ""}, Case{a, "perf-a", "process", "name", ""},
                        Case{b, "perf-b", "module", "name", ""}, Case{b, "perf-b", "thread", "name", ""},
                        Case{a, "perf-a", "address", "name", ""}, Case{mem, "mem-1", "cacheline", "name", ""},
                        Case{mem, "mem-1", "cacheline", "name", "load & dc.miss"},
                        Case{mem, "mem-1", "thread", "name", ""},
                        Case{mem, "mem-1", "process", "name", ""}, Case{mem, "mem-1", "cpu", "cpu", ""},
                        Case{mem, "mem-1", "process", "name", "load & dc.miss"},
                        Case{mem, "mem-1", "cpu", "cpu", "load & l2.miss"}}) {
    INFO(c.file << " --by " << c.by << " --where " << c.where);
    const std::string where = c.where.empty() ? "" : fmt::format(" --where '{}'", c.where);
    const json file = run_json(fmt::format("report {} --by {} --top 0 --json{}", c.file, c.by, where));
    const json store = run_json(fmt::format("report --source {} --host {} --by {} --top 0 --json{}", url, c.host, c.by, where));
    CHECK(store.at("ibs") == false);
    const bool function = c.by == "function" || c.by == "address";
    const auto expected = event_rows(file, c.key.c_str(), {}, function);
    CHECK(expected.size() >= (c.file == mem && c.by != "cacheline" ? 2u : 1u));  // (its loads are of one line)
    CHECK(event_rows(store, "name", unnamed(file), function) == expected);
    CHECK(store.at("event_totals") == sampled(file.at("event_totals")));
    CHECK(store.at("samples") == file.at("kept"));
    if (!c.where.empty()) CHECK(store.at("where_undecided") == file.at("where_undecided"));
  }
  // The local report's filters of samples: its processes (100 and 101,
  // both memhog) on CPUs pid % 3 (1 and 2), at times 1000 ns on (--time in
  // seconds, its ends included).
  for (const std::string filter : {" --pid 101", " --cpu 0,2", " --time 0.000001030,0.000001060",
                                   " --comm memhog --tid 100"}) {
    INFO(filter);
    const json file = run_json(fmt::format("report {} --by process --top 0 --json{}", mem, filter));
    const json store = run_json(fmt::format("report --source {} --host mem-1 --by process --top 0 --json{}", url, filter));
    const auto expected = event_rows(file, "name");
    CHECK(expected.size() == (filter.find("--time") != std::string::npos ? 2u : 1u));
    CHECK(event_rows(store, "name") == expected);
    CHECK(store.at("samples") == file.at("kept"));
  }
  // Filters that keep nothing: a report of nothing, its columns the
  // capture's events, as the local one.
  for (const std::string filter : {" --pid 99999", " --comm nobody --cpu 1", " --time 5,6"}) {
    INFO(filter);
    const json file = run_json(fmt::format("report {} --by process --top 0 --json{}", mem, filter));
    const json store = run_json(fmt::format("report --source {} --host mem-1 --by process --top 0 --json{}", url, filter));
    CHECK(file.at("rows").empty());
    CHECK(store.at("rows").empty());
    CHECK(store.at("samples") == 0);
    // (The store's events are in their names' order.)
    std::vector<std::string> events = file.at("events").get<std::vector<std::string>>();
    std::sort(events.begin(), events.end());
    CHECK(store.at("events").get<std::vector<std::string>>() == events);
  }
  // A host the store does not hold: an error, not an empty report.
  const RunResult nowhere = run_shell(fmt::format("{} report --source {} --host no-such-host --pid 1", tagop_command(), url));
  CHECK(nowhere.exit_code == 1);
  CHECK(nowhere.err.find("no samples in the store") != std::string::npos);

  // The text table: the events' columns and perf mem's latency.
  const RunResult text = run_shell(fmt::format("{} report --source {} --host mem-1 --by process", tagop_command(), url));
  INFO(text.err);
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("avg load latency") != std::string::npos);
  // --events chooses IBS derived events: refused for these.
  const RunResult events = run_shell(fmt::format("{} report --source {} --host perf-a --events 0xF100", tagop_command(), url));
  CHECK(events.exit_code == 2);
  CHECK(events.err.find("without IBS") != std::string::npos);
  for (const std::string& f : {a, b, mem}) fs::remove(f);
}

TEST_CASE("report --source --by cacheline: each line's perf c2c counts as the local report's", "[store][source][c2c]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const std::string c2c = c2c_capture("c2c-source.data");
  const std::string url = database(*local, "source_c2c");
  ingest(url, c2c, "c2c-1");
  for (const std::string by : {"cacheline", "thread,cacheline"})
    for (const std::string where : {"", " --where 'load & dc.miss'", " --where store"}) {
      INFO("--by " << by << where);
      const json file = run_json(fmt::format("report {} --by {} --top 0 --json{}", c2c, by, where));
      const json store = run_json(fmt::format("report --source {} --by {} --top 0 --json{}", url, by, where));
      const std::map<std::string, json> expected = cache_lines(file);
      CHECK(expected.size() == file.at("rows").size());
      CHECK(cache_lines(store) == expected);
      // What the lines hold, so that each count is compared where it is not 0.
      std::uint64_t local_hitm = 0, remote_hitm = 0, stores = 0, listed = 0;
      for (const auto& [name, line] : expected) {
        local_hitm += line.at("local_hitm").get<std::uint64_t>();
        remote_hitm += line.at("remote_hitm").get<std::uint64_t>();
        stores += line.at("stores").get<std::uint64_t>();
        listed = std::max<std::uint64_t>(listed, line.at("code_addresses").size());
      }
      if (where.empty()) {
        CHECK(listed == (by == "cacheline" ? 16u : 10u));  // (each process's samples have ten)
        CHECK(local_hitm > 0);
        CHECK(remote_hitm > 0);
        CHECK(stores > 0);
      }
    }
  // The text: the same table of the lines after the rows'.
  const auto lines_text = [](const std::string& out) {
    const std::size_t at = out.find("The lines' samples");
    return at == std::string::npos ? std::string() : out.substr(at);
  };
  const RunResult file = run_shell(fmt::format("{} report {} --by cacheline", tagop_command(), c2c));
  const RunResult store = run_shell(fmt::format("{} report --source {} --by cacheline", tagop_command(), url));
  REQUIRE(file.exit_code == 0);
  REQUIRE(store.exit_code == 0);
  CHECK(!lines_text(file.out).empty());
  CHECK(lines_text(store.out) == lines_text(file.out));

  // A capture ingested by tagop 0.9 has no data access in its rows: the
  // lines are reported without their counts, and the report says why.
  // (A mutation, waited for: this server's ALTER knows no mutations_sync.)
  const profiles::ClickHouseServer server(local->url() + "/?database=source_c2c");
  server.query(fmt::format("ALTER TABLE {} UPDATE tagop_version = '0.9.1' WHERE 1", profiles::store_captures_table_name()));
  for (int i = 0; i < 200 && server.query("SELECT count() FROM system.mutations WHERE NOT is_done FORMAT TabSeparated") != "0\n"; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  const json old = run_json(fmt::format("report --source {} --by cacheline --top 0 --json", url));
  CHECK(cache_lines(old).empty());
  CHECK(old.at("rows").size() == run_json(fmt::format("report {} --by cacheline --top 0 --json", c2c)).at("rows").size());
  CHECK(old.at("cache_lines_unknown").get<std::string>().find("c2c-source.data of c2c-1, by tagop 0.9.1") !=
        std::string::npos);
  fs::remove(c2c);
}

TEST_CASE("ingest places samples in time: by perf's clock data, else by the file's time", "[store][since]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const std::string url = database(*local, "wall_times");
  const profiles::ClickHouseServer server(local->url() + "/?database=wall_times");
  const auto answer = [&](const std::string& sql) {
    std::string out = server.query(sql + " FORMAT TabSeparated");
    out.erase(out.find_last_not_of('\n') + 1);
    return out;
  };
  // perf record -k CLOCK_REALTIME: the samples' perf times are times of
  // day, and the clock data says so (to the microsecond: its reference is
  // read twice).
  const std::string realtime = test::temp("realtime.data");
  const RunResult rec = run_shell(fmt::format("perf record -q -k CLOCK_REALTIME -e cpu-clock -o {} -- {} 100", realtime,
                                              std::getenv("TAGOP_CALLCHAIN_FIXTURE")));
  if (rec.exit_code != 0) {
    WARN("perf record -k cannot record here: " << rec.err);
  } else {
    perf_data::PerfDataReader reader(realtime);
    REQUIRE(reader.info().clock_data);
    REQUIRE(reader.info().sample_time);
    ingest(url, realtime, "realtime");
    const auto [first, last] = *reader.info().sample_time;
    const std::string range = answer(fmt::format(
        "SELECT min(wall_time), max(wall_time), any(time) FROM {} WHERE host = 'realtime' AND time != 0",
        profiles::store_table_name()));
    std::istringstream in(range);
    std::uint64_t min = 0, max = 0, any = 0;
    in >> min >> max >> any;
    CHECK(std::llabs(static_cast<long long>(min - first)) < 1'000'000);
    CHECK(std::llabs(static_cast<long long>(max - last)) < 1'000'000);
    CHECK(any >= first);
    CHECK(answer(fmt::format("SELECT wall_clock FROM {} WHERE host = 'realtime'", profiles::store_captures_table_name())) ==
          "perf clock data");
  }
  // Without clock data: the file's time is its last sample's.
  const std::string plain = test::perf_capture("plain.data");
  if (plain.empty()) return;
  const std::uint64_t modified = 1767261600;  // 2026-01-01 10:00:00 UTC
  REQUIRE(run_shell(fmt::format("touch -d @{} {}", modified, plain)).exit_code == 0);
  perf_data::PerfDataReader reader(plain);
  REQUIRE(reader.info().sample_time);
  CHECK(!reader.info().clock_data);
  const auto [first, last] = *reader.info().sample_time;
  ingest(url, plain, "plain");
  CHECK(answer(fmt::format("SELECT max(wall_time) FROM {} WHERE host = 'plain'", profiles::store_table_name())) ==
        fmt::format("{}", modified * 1'000'000'000));
  CHECK(answer(fmt::format("SELECT min(wall_time) FROM {} WHERE host = 'plain' AND time != 0",
                           profiles::store_table_name())) == fmt::format("{}", modified * 1'000'000'000 - (last - first)));
  CHECK(answer(fmt::format("SELECT wall_clock FROM {} WHERE host = 'plain'", profiles::store_captures_table_name())) ==
        "file time");
  // --since and --until by those times: the samples of the last second
  // before the file's time and none after, whatever the ingest's time.
  const auto at = [&](std::uint64_t seconds) {
    return answer(fmt::format("SELECT toString(toDateTime({}))", seconds));
  };
  const json before = run_json(fmt::format("report --source {} --host plain --until '{}' --json", url, at(modified + 1)));
  CHECK(before.at("samples") == run_json(fmt::format("report {} --json", plain)).at("kept"));
  const RunResult after = run_shell(fmt::format("{} report --source {} --host plain --since '{}'", tagop_command(), url,
                                                at(modified + 1)));
  CHECK(after.exit_code == 1);
  CHECK(after.err.find("no samples") != std::string::npos);
  for (const std::string& f : {realtime, plain}) fs::remove(f);
}

TEST_CASE("report --source by host, processor, and host and function: each capture's local numbers",
          "[store][source][fleet]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const std::string a = test::perf_capture("fleet-a.data"), b = test::perf_capture("fleet-b.data", 300);
  if (a.empty() || b.empty()) return;
  const std::string mem = mem_capture("mem-fleet.data");
  const std::string url = database(*local, "source_fleet");
  ingest(url, a, "web-1");
  ingest(url, b, "web-2");
  ingest(url, mem, "db-1");
  std::map<std::string, json> local_totals;  // host -> its capture's event totals
  for (const auto& [file, host] : {std::pair{a, "web-1"}, std::pair{b, "web-2"}, std::pair{mem, "db-1"}})
    local_totals[host] = sampled(run_json(fmt::format("report {} --json", file)).at("event_totals"));

  // By host: each row is its capture's totals; the percent column is the
  // row's share of the store's, so samples and periods are compared.
  const auto counts = [](const json& events) {
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> out;
    for (const auto& [name, e] : events.items())
      if (e.at("samples").get<std::uint64_t>() != 0) out[name] = {e.at("samples"), e.at("period")};
    return out;
  };
  const json by_host = run_json(fmt::format("report --source {} --by host --json", url));
  REQUIRE(by_host.at("rows").size() == 3);
  for (const json& row : by_host.at("rows")) {
    INFO(row.at("name"));
    CHECK(counts(row.at("events")) == counts(local_totals.at(row.at("name"))));
  }

  // By processor: this machine's (the two perf record captures summed)
  // and the perf mem capture's Skylake server.
  const std::string here = processor_of(a), skylake = processor_of(mem);
  REQUIRE(skylake == "GenuineIntel family 0x6 model 0x55");
  if (here != skylake) {
    const json by_processor = run_json(fmt::format("report --source {} --by processor --json", url));
    std::map<std::string, std::map<std::string, std::pair<std::uint64_t, std::uint64_t>>> rows;
    for (const json& row : by_processor.at("rows")) rows[row.at("name")] = counts(row.at("events"));
    auto both = counts(local_totals.at("web-1"));
    for (const auto& [name, n] : counts(local_totals.at("web-2"))) {
      both[name].first += n.first;
      both[name].second += n.second;
    }
    CHECK(rows == std::map<std::string, std::map<std::string, std::pair<std::uint64_t, std::uint64_t>>>{
                      {here, both}, {skylake, counts(local_totals.at("db-1"))}});
  }

  // By host and function: each host's rows are its capture's by function.
  const json host_function = run_json(fmt::format("report --source {} --by host,function --top 0 --json", url));
  for (const auto& [file, host] : {std::pair{a, "web-1"}, std::pair{b, "web-2"}}) {
    INFO(host);
    const json by_function = run_json(fmt::format("report {} --by function --top 0 --json", file));
    const std::set<std::string> skip = unnamed(by_function);
    std::map<std::string, json> store;
    for (const json& row : host_function.at("rows")) {
      REQUIRE(row.at("parts").size() == 2);
      const std::string function = row.at("parts")[1];
      if (row.at("parts")[0] != host || skip.count(function)) continue;
      CHECK(row.at("name") == fmt::format("{}  {}", host, function));
      json events = sampled(row.at("events"));
      for (auto& [name, e] : events.items()) e.erase("percent");  // of the store's total, not the capture's
      store[function + "\n" + row.at("module").get<std::string>()] = events;
    }
    auto expected = event_rows(by_function, "name", {}, true);
    for (auto& [name, events] : expected)
      for (auto& [event, e] : events.items()) e.erase("percent");
    CHECK(!expected.empty());
    CHECK(store == expected);
  }

  // IBS captures of two processors: --by processor and --by host, each row
  // the local report's totals of its capture, every derived event.
  const std::string zen = test::zen_capture("zen-fleet.data", 99);
  const std::string example = std::string(std::getenv("TAGOP_SOURCE_ROOT")) + "/examples/ibs-example.perf.data";
  ingest(url, zen, "zen-1");
  ingest(url, example, "k10-1");
  const json processors = run_json(fmt::format("report --source {} --backend amd-ibs --by processor --view all --json", url));
  const json hosts = run_json(fmt::format("report --source {} --backend amd-ibs --by host --view all --json", url));
  std::map<std::string, json> by_processor, by_host_ibs, expected_processor, expected_host;
  for (const json& row : processors.at("rows")) by_processor[row.at("name")] = row.at("values");
  for (const json& row : hosts.at("rows")) by_host_ibs[row.at("name")] = row.at("values");
  for (const auto& [file, host] : {std::pair{zen, "zen-1"}, std::pair{example, "k10-1"}}) {
    // The local totals: each derived event's count (or sum), each ratio.
    const json document = run_json(fmt::format("report {} --view all --json", file));
    json totals = json::object();
    for (const auto& [id, value] : by_processor.begin()->second.items())
      totals[id] = document.at("events").contains(id) ? document.at("events").at(id) : document.at("ratios").at(id);
    expected_processor[processor_of(file)] = totals;
    expected_host[host] = totals;
  }
  REQUIRE(!by_processor.empty());
  CHECK(by_processor.begin()->second.size() >= 40);
  CHECK(by_processor == expected_processor);
  CHECK(by_host_ibs == expected_host);
  // Both kinds at once: the columns differ, so the store says to choose.
  const RunResult mixed = run_shell(fmt::format("{} report --source {} --by host", tagop_command(), url));
  CHECK(mixed.exit_code == 1);
  CHECK(mixed.err.find("--backend") != std::string::npos);
  for (const std::string& f : {a, b, mem, zen}) fs::remove(f);
}

TEST_CASE("diff --source of two hosts and of two ingest times: the local diff of their captures", "[store][diff]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  const std::string a = test::perf_capture("diff-a.data"), b = test::perf_capture("diff-b.data", 300);
  if (a.empty() || b.empty()) return;
  const std::string zen_a = test::zen_capture("diff-zen-a.data", 5), zen_b = test::zen_capture("diff-zen-b.data", 6);
  const std::string url = database(*local, "store_diff");
  // The perf captures a day apart by their files' times (perf's "captured
  // on", which places their samples in time), and T between them as the
  // server writes times; the IBS captures (without perf's sample times) a
  // second apart by their ingest, whose times (whole seconds) tell them apart.
  const std::uint64_t day_a = 1767261600;  // 2026-01-01 10:00:00 UTC
  REQUIRE(run_shell(fmt::format("touch -d @{} {} && touch -d @{} {}", day_a, a, day_a + 86400, b)).exit_code == 0);
  std::string between = profiles::ClickHouseServer(local->url())
                            .query(fmt::format("SELECT toString(toDateTime({})) FORMAT TabSeparated", day_a + 43200));
  between.erase(between.find_last_not_of('\n') + 1);
  const std::string by_day = fmt::format("--until '{0}' --since-b '{0}'", between);
  ingest(url, a, "old");
  ingest(url, zen_a, "zen-old");
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ingest(url, b, "new");
  ingest(url, zen_b, "zen-new");
  std::string new_since = profiles::ClickHouseServer(local->url() + "/?database=store_diff")
                              .query(fmt::format("SELECT toString(min(ingested)) FROM {} WHERE host = 'new'",
                                                  profiles::store_captures_table_name()));
  new_since.erase(new_since.find_last_not_of('\n') + 1);
  const std::string by_time = fmt::format("--until '{0}' --since-b '{0}'", new_since);

  // Each column's rows by name and module: the numbers either diff gives
  // (functions of one name in two modules are two rows; processes are
  // matched by name). (Rows of the kernel's modules (unnamed(): its diff's
  // rows alike) are left out on both sides.)
  const auto columns = [](const json& diff, const std::set<std::string>& skip) {
    std::map<std::string, std::map<std::string, json>> out;
    for (const json& c : diff.at("columns")) {
      auto& rows = out[c.at("id")];
      for (const json& row : c.at("rows")) {
        const std::string name = row.at("name");
        if (!named(row) || skip.count(name)) continue;
        rows[name + "\n" + (row.contains("module") ? row.at("module").get<std::string>() : "")] = row;
      }
    }
    return out;
  };
  struct Case {
    std::string a, b, parts, by, options;
  };
  for (const Case& c : {Case{a, b, "--host old --host-b new", "function", ""},
                        Case{a, b, "--host old --host-b new", "module", ""},
                        Case{a, b, "--host old --host-b new", "process", ""},
                        Case{zen_a, zen_b, "--host zen-old --host-b zen-new", "process", " --view dc"},
                        Case{zen_a, zen_b, "--host zen-old --host-b zen-new", "cpu", " --view all"},
                        Case{a, b, by_day + " --backend perf", "function", ""},
                        Case{zen_a, zen_b, by_time + " --backend amd-ibs", "cpu", " --view dc"}}) {
    INFO(c.parts << " --by " << c.by);
    const json file = run_json(fmt::format("diff {} {} --by {} --top 0 --json{}", c.a, c.b, c.by, c.options));
    const json store =
        run_json(fmt::format("diff --source {} {} --by {} --top 0 --json{}", url, c.parts, c.by, c.options));
    std::set<std::string> skip{""};
    for (const json& column : file.at("columns")) skip.merge(unnamed(column));
    const auto expected = columns(file, skip);
    CHECK(!expected.empty());
    CHECK(columns(store, skip) == expected);
  }
  // Events paired by type and config, as the local diff (and perf diff)
  // pairs them: A's cpu-clock:ppp with B's cpu-clock; the page-faults of
  // each are different events (B's is context-switches by its config).
  const std::string named_a = named_events_capture("names-a.data", "cpu-clock:ppp", PERF_COUNT_SW_PAGE_FAULTS,
                                                   "page-faults", 2),
                    named_b = named_events_capture("names-b.data", "cpu-clock", PERF_COUNT_SW_CONTEXT_SWITCHES,
                                                   "page-faults", 5);
  ingest(url, named_a, "names-a");
  ingest(url, named_b, "names-b");
  for (const char* format : {"--json", ""}) {
    INFO(format);
    const RunResult file = run_shell(fmt::format("{} diff {} {} --by process --top 0 {}", tagop_command(), named_a,
                                                 named_b, format));
    const RunResult store = run_shell(fmt::format("{} diff --source {} --host names-a --host-b names-b --by process "
                                                  "--top 0 {}", tagop_command(), url, format));
    INFO(file.err << store.err);
    REQUIRE(file.exit_code == 0);
    REQUIRE(store.exit_code == 0);
    if (*format) {
      const json j_file = json::parse(file.out), j_store = json::parse(store.out);
      CHECK(j_file.at("events").at("matched") == json::parse(R"([{"a": "cpu-clock:ppp", "b": "cpu-clock"}])"));
      CHECK(j_store.at("events") == j_file.at("events"));
      CHECK(columns(j_store, {""}) == columns(j_file, {""}));
      CHECK(!columns(j_file, {""}).at("cpu-clock:ppp").empty());
    } else {
      // The lines that say what was compared with what.
      const auto said = [](const std::string& out) {
        std::string lines;
        std::istringstream in(out);
        for (std::string line; std::getline(in, line);)
          if (line.starts_with("events compared") || line.starts_with("not compared")) lines += line + "\n";
        return lines;
      };
      CHECK(said(file.out).find("A cpu-clock:ppp with B cpu-clock") != std::string::npos);
      CHECK(said(store.out) == said(file.out));
    }
  }

  // B the same samples as A: a usage error.
  const RunResult same = run_shell(fmt::format("{} diff --source {} --host old", tagop_command(), url));
  CHECK(same.exit_code == 2);
  CHECK(same.err.find("--host-b") != std::string::npos);
  for (const std::string& f : {a, b, zen_a, zen_b, named_a, named_b}) fs::remove(f);
}
