// tagop ingest names each sample as a local `tagop report` of the same
// capture names it: kernel functions (this machine's /proc/kallsyms for a
// capture of its own kernel, a --kallsyms file for another's), samples of
// a group that read its counters (PERF_SAMPLE_READ: a sample per counter
// that moved), and samples written before their process's MMAP record.
// Every expected row is the local report's of the capture file (its own
// path: the raw records, in time order), or counted by hand; never the
// store's.

#include <catch2/catch.hpp>

#include <filesystem>  // std::filesystem
#include <fstream>     // std::ofstream
#include <map>         // std::map
#include <sstream>     // std::istringstream
#include <string>      // std::string

#include <fmt/format.h>       // fmt::format
#include <nlohmann/json.hpp>  // the reports' --json

#include <tagop/perf_data_format.hpp>     // misc_kernel
#include <tagop/perf_data_writer.hpp>     // PerfDataWriter
#include <tagop/profiles/clickhouse.hpp>  // ClickHouseServer

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

RunResult ingest(const std::string& url, const std::string& file, const std::string& host,
                 const std::string& options = "") {
  const RunResult r =
      run_shell(fmt::format("{} ingest {} {} --host {} {}", tagop_command(), url, file, host, options));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r;
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

// A --by function --json report's rows: "name\nmodule" -> its events with
// samples. A local report's rows of addresses that no symbol covers
// (module+0x..., [unknown]+0x...) are the store's rows of those names.
std::map<std::string, json> function_rows(const json& document) {
  std::map<std::string, json> out;
  for (const json& row : document.at("rows")) {
    const std::string module = row.contains("module") ? row.at("module").get<std::string>() : "";
    out[row.at("name").get<std::string>() + "\n" + module] = sampled(row.at("events"));
  }
  return out;
}

// The rows of `rows` (function_rows()) named by a function, not an address.
std::size_t named_functions(const std::map<std::string, json>& rows) {
  std::size_t n = 0;
  for (const auto& [key, events] : rows) n += key.find("+0x") == std::string::npos;
  return n;
}

// The functions of the kernel's map among `rows` (function_rows()).
std::size_t kernel_functions(const std::map<std::string, json>& rows) {
  std::size_t n = 0;
  for (const auto& [key, events] : rows) n += key.ends_with("\n[kernel.kallsyms]");
  return n;
}

// The local report's rows and the store's of one capture's host agree, by
// function, by module and by process: the same samples and periods of
// each event.
void check_as_local(const std::string& url, const std::string& file, const std::string& host,
                    const std::string& options = "") {
  const json local = run_json(fmt::format("report {} --by function --top 0 --json {}", file, options));
  const json store = run_json(fmt::format("report --source {} --host {} --by function --top 0 --json", url, host));
  const auto expected = function_rows(local);
  CHECK(function_rows(store) == expected);
  CHECK(store.at("event_totals") == sampled(local.at("event_totals")));
  CHECK(store.at("samples") == local.at("kept"));
  for (const char* by : {"module", "process"}) {
    INFO("--by " << by);
    const json l = run_json(fmt::format("report {} --by {} --top 0 --json {}", file, by, options));
    const json s = run_json(fmt::format("report --source {} --host {} --by {} --top 0 --json", url, host, by));
    std::map<std::string, json> lr, sr;
    for (const json& row : l.at("rows"))
      lr[row.at("name").get<std::string>()] = sampled(row.at("events"));
    for (const json& row : s.at("rows")) sr[row.at("name").get<std::string>()] = sampled(row.at("events"));
    CHECK(sr == lr);
  }
}

bool perf_records() { return run_shell("perf record -q -o /dev/null -e cpu-clock -- true").exit_code == 0; }

// Whether this machine's /proc/kallsyms shows addresses (kptr_restrict).
bool kallsyms_readable() {
  std::ifstream in("/proc/kallsyms");
  std::string address;
  return in >> address && address.find_first_not_of('0') != std::string::npos;
}

}  // namespace

TEST_CASE("ingest names kernel functions as the local report does", "[store][names][kernel]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  if (!perf_records() || !kallsyms_readable()) {
    WARN("perf cannot record here, or /proc/kallsyms hides its addresses: kernel names are not compared");
    return;
  }
  // dd's system calls: most of its time is in the kernel, which the local
  // report names by this machine's /proc/kallsyms (the recorded kernel).
  const std::string file = test::temp("kernel-names.data");
  const RunResult rec = run_shell(fmt::format(
      "perf record -q -o {} -e cpu-clock -c 200000 -- dd if=/dev/zero of=/dev/null bs=512 count=300000", file));
  INFO(rec.err);
  REQUIRE(rec.exit_code == 0);
  const std::string url = database(*local, "kernel_names");
  const RunResult ingested = ingest(url, file, "kernel-a");
  CHECK(ingested.err.find("kernel") == std::string::npos);  // the running kernel's symbols: no warning

  const json by_function = run_json(fmt::format("report {} --by function --top 0 --json", file));
  CHECK(kernel_functions(function_rows(by_function)) >= 3);  // so that the comparison below can fail
  check_as_local(url, file, "kernel-a");
  fs::remove(file);
}

TEST_CASE("ingest --kallsyms names another kernel's samples; without it, they are unnamed with a warning",
          "[store][names][kernel]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  // A cpu-clock capture of kernel samples at hand-placed addresses of a
  // kernel whose build-id (20 bytes of 0xaa) is no real kernel's.
  constexpr std::uint64_t text = 0xffffffff81000000;
  const std::string kernel_id(40, 'a');
  const std::string file = test::temp("other-kernel.data");
  {
    perf_data::PerfDataWriter w(
        file, {{.attr = software_event_attr(PERF_COUNT_SW_CPU_CLOCK, 1000), .ids = {7}, .name = "cpu-clock"}},
        {.build_ids = {{.pid = -1, .cpumode = perf_data::misc_kernel, .build_id = kernel_id,
                        .filename = "[kernel.kallsyms]"}},
         .hostname = "elsewhere"});
    w.mmap(static_cast<std::uint32_t>(-1), 0, text, 0x2000, text, "[kernel.kallsyms]_text");
    w.comm(10, 10, "worker");
    // alpha: 0x100..0x200; beta: 0x200..0x400; gamma: 0x400.._etext (0x1000).
    const std::pair<std::uint64_t, int> samples[] = {{0x150, 3}, {0x200, 2}, {0x3ff, 1}, {0x400, 1}, {0xfff, 3}};
    std::uint64_t time = 1;
    for (const auto& [offset, n] : samples)
      for (int i = 0; i < n; ++i)
        w.sample(0, {.ip = text + offset, .pid = 10, .tid = 10, .time = time++, .period = 1000,
                     .misc = perf_data::misc_kernel});
    w.finish();
  }
  const std::string kallsyms = test::temp("other.kallsyms");
  std::ofstream(kallsyms) << "ffffffff81000000 T _text\n"
                             "ffffffff81000100 T alpha\n"
                             "ffffffff81000200 t beta\n"
                             "ffffffff81000400 T gamma\n"
                             "ffffffff81001000 T _etext\n";
  const std::string empty_cache = test::temp("empty-cache");
  fs::create_directories(empty_cache);
  const std::string url = database(*local, "other_kernel");

  // By hand: the samples each symbol's range holds, 1000 each, of 10.
  const auto named = [](std::uint64_t n) {
    return json{{"cpu-clock", {{"samples", n}, {"period", 1000 * n}, {"percent", 10.0 * static_cast<double>(n)}}}};
  };
  const std::map<std::string, json> by_hand = {{"alpha\n[kernel.kallsyms]", named(3)},
                                               {"beta\n[kernel.kallsyms]", named(3)},
                                               {"gamma\n[kernel.kallsyms]", named(4)}};
  const RunResult with = ingest(url, file, "with-kallsyms", "--kallsyms " + kallsyms);
  CHECK(with.err.empty());
  const json local_rows = run_json(fmt::format("report {} --kallsyms {} --by function --top 0 --json", file, kallsyms));
  CHECK(function_rows(local_rows) == by_hand);
  check_as_local(url, file, "with-kallsyms", "--kallsyms " + kallsyms);

  // Without: this machine's kernel is another, the build-id cache empty;
  // no function named, and the ingest says why, as the local report does.
  const std::string bare = database(*local, "other_kernel_bare");  // ingest skips a capture it holds
  const RunResult without = run_shell(fmt::format("PERF_BUILDID_DIR={} {} ingest {} {} --host without-kallsyms",
                                                  empty_cache, tagop_command(), bare, file));
  INFO(without.err);
  REQUIRE(without.exit_code == 0);
  CHECK(without.err.find("[kernel.kallsyms]") != std::string::npos);
  CHECK(without.err.find("--kallsyms") != std::string::npos);
  const json unnamed =
      run_json(fmt::format("report --source {} --host without-kallsyms --by function --top 0 --json", bare));
  // Each sample's row is its address's, as the local report's without them.
  CHECK(!function_rows(unnamed).empty());
  CHECK(named_functions(function_rows(unnamed)) == 0);
  CHECK(function_rows(unnamed) ==
        function_rows(run_json(fmt::format("report {} --by function --top 0 --json", file), "PERF_BUILDID_DIR=" + empty_cache)));
  CHECK(unnamed.at("samples") == 10);
  fs::remove(file);
  fs::remove(kallsyms);
  fs::remove_all(empty_cache);
}

TEST_CASE("a group that read its counters: a row per counter that moved, as the local report counts them",
          "[store][names][group]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  if (!perf_records()) {
    WARN("perf cannot record here: group reads are not compared");
    return;
  }
  // The leader samples, and each sample carries both counters
  // (PERF_SAMPLE_READ); the local report counts a sample of each counter
  // that moved, its period how far it moved (perf's own counting,
  // perf_peer_test.cpp). `ls` faults pages in, so that page-faults moves.
  const std::string file = test::temp("group.data");
  const RunResult rec = run_shell(fmt::format(
      "perf record -q -o {} -e '{{cpu-clock,page-faults}}:S' -c 100000 -- sh -c 'i=0; while [ $i -lt 100000 ]; do "
      "i=$((i+1)); done; ls -R /usr/share/doc > /dev/null'",
      file));
  INFO(rec.err);
  REQUIRE(rec.exit_code == 0);
  const std::string url = database(*local, "group_reads");
  ingest(url, file, "group-a");
  const json by_process = run_json(fmt::format("report {} --by process --top 0 --json", file));
  // Both events counted locally: the leader's samples alone, each once,
  // would be cpu-clock's only.
  CHECK(by_process.at("event_totals").at("page-faults").at("samples").get<std::uint64_t>() > 0);
  CHECK(by_process.at("event_totals").at("cpu-clock").at("samples").get<std::uint64_t>() > 0);
  check_as_local(url, file, "group-a");
  fs::remove(file);
}

TEST_CASE("a sample written before its process's MMAP record is named, as the local report names it",
          "[store][names][order]") {
  test::LocalClickHouse* local = test::shared_clickhouse();
  if (!local) return;
  // perf record writes each CPU's buffer in turn: an exec's MMAP (time 20)
  // can follow in the file a sample of that process from another CPU
  // (time 30). The local report, in time order, names it.
  const std::string fixture = std::getenv("TAGOP_SYMBOLS_NOPIE_FIXTURE");
  std::istringstream printed(run_shell(fixture).out);
  unsigned long offset = 0;
  REQUIRE(printed >> std::hex >> offset);  // tagop_nopie_probe's, in the file mapped at 0x10000000
  const std::string file = test::temp("mmap-after-sample.data");
  {
    perf_data::PerfDataWriter w(
        file, {{.attr = software_event_attr(PERF_COUNT_SW_CPU_CLOCK, 1000), .ids = {7}, .name = "cpu-clock"}});
    w.comm(7, 7, "user", true, {.pid = 7, .tid = 7, .cpu = 0, .time = 10});
    w.sample(0, {.ip = 0x10000000 + offset, .pid = 7, .tid = 7, .time = 30, .cpu = 1, .period = 1000});
    w.mmap2(7, 7, 0x10000000, 0x100000, 0, fixture, "", {.pid = 7, .tid = 7, .cpu = 0, .time = 20});
    w.sample(0, {.ip = 0x10000000 + offset, .pid = 7, .tid = 7, .time = 40, .cpu = 0, .period = 1000});
    w.finish();
  }
  const std::string url = database(*local, "mmap_order");
  ingest(url, file, "order-a");
  // By hand: both samples in the probe.
  const auto rows = function_rows(run_json(fmt::format("report {} --by function --top 0 --json", file)));
  REQUIRE(rows.size() == 1);
  CHECK(rows.begin()->first.starts_with("tagop_nopie_probe\n"));
  CHECK(rows.begin()->second.at("cpu-clock").at("samples") == 2);
  CHECK(rows.begin()->second.at("cpu-clock").at("period") == 2000);
  check_as_local(url, file, "order-a");
  fs::remove(file);
}
