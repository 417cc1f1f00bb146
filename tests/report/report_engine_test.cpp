// The report engine on IBS captures written here, whose every count is
// known: processes that fork, exec and exit (and a pid used twice),
// mappings replaced at the same addresses, one file under many spellings,
// samples with IbsRipInvalid, and perf's filters and conventions.

#include <catch2/catch.hpp>

#include <sched.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <tagop/amd_ibs/perf_capture.hpp>
#include <tagop/amd_ibs/programmer.hpp>
#include <tagop/perf_data_reader.hpp>
#include <tagop/perf_data_writer.hpp>
#include <tagop/report/call_graph.hpp>
#include <tagop/report/report.hpp>

#include "../../lib/report/cpu_budget.hpp"
#include "../run_command.hpp"

using json = nlohmann::json;
namespace fs = std::filesystem;
using namespace tagop::amd_ibs;

namespace {

std::string temp(const std::string& name) {
  return (fs::temp_directory_path() / ("tagop-engine-" + std::to_string(::getpid()) + "-" + name)).string();
}

json report_json(const std::string& args) {
  const RunResult r = run_tagop("report " + args + " --json --top 0");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

IbsRegisters op_at(std::uint64_t ip) {
  IbsRegisters op;
  op.unit = IbsUnit::op;
  op.set(IbsRegister::IbsOpRip, ip);
  return op;
}

IbsRegisters fetch_at(std::uint64_t ip) {
  IbsRegisters fetch;
  fetch.unit = IbsUnit::fetch;
  fetch.set(IbsRegister::IbsFetchLinAd, ip);
  return fetch;
}

// Row name -> (fetch samples, op samples), from --events 0xF000,0xF100.
std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> unit_counts(const json& j) {
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> out;
  for (const json& row : j["rows"]) out[row["name"]] = {row["values"]["0xF000"], row["values"]["0xF100"]};
  return out;
}

}  // namespace

TEST_CASE("by process: processes that fork, exec and exit, and a pid used again", "[report][ibs]") {
  // pid 100 ("shell") forks 101, which samples as "shell", execs "worker",
  // samples, and exits; pid 101 comes back forked again (as "shell"). Each
  // phase has its own number of fetch and op samples.
  const std::string file = temp("processes.data");
  std::uint64_t t = 1000;
  {
    IbsCaptureWriter w(file, {});
    auto& p = w.perf();
    p.comm(100, 100, "shell", true, {.pid = 100, .tid = 100, .cpu = 0, .time = t++});
    auto samples = [&](std::uint32_t pid, int fetches, int ops) {
      for (int i = 0; i < fetches; ++i) w.sample(fetch_at(0x401000 + i), pid, pid, 0, t++);
      for (int i = 0; i < ops; ++i) w.sample(op_at(0x402000 + i), pid, pid, 1, t++);
    };
    samples(100, 3, 5);
    p.fork(101, 100, 101, 100, t++);
    samples(101, 2, 7);
    p.comm(101, 101, "worker", true, {.pid = 101, .tid = 101, .cpu = 1, .time = t++});
    samples(101, 11, 13);
    p.exit(101, 100, 101, 100, t++);
    samples(100, 1, 1);
    p.fork(101, 100, 101, 100, t++);
    samples(101, 17, 19);
    w.finish();
  }
  const json j = report_json(file + " --by process --events 0xF000,0xF100");
  const auto rows = unit_counts(j);
  const std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> expected{
      {"shell [100]", {3 + 1, 5 + 1}}, {"shell [101]", {2 + 17, 7 + 19}}, {"worker [101]", {11, 13}}};
  CHECK(rows == expected);
  for (const json& row : j["rows"]) CHECK(row["pid"] == (row["name"] == "shell [100]" ? 100 : 101));
  CHECK(j["row_count"] == 3);
  // The overhead column: each row's share of the fetch and op samples.
  for (const json& row : j["rows"]) {
    const auto& [fetches, ops] = rows.at(row["name"]);
    CHECK(row["overhead"].get<double>() == Approx(100.0 * double(fetches + ops) / (3 + 5 + 2 + 7 + 11 + 13 + 1 + 1 + 17 + 19)));
  }

  // perf report on the same file, per process and event.
  if (run_shell("command -v perf").exit_code == 0) {
    const RunResult perf = run_shell("perf report -i " + file + " --stdio -n --sort comm,pid");
    REQUIRE(perf.exit_code == 0);
    std::map<std::string, std::map<std::string, std::uint64_t>> by_event;
    std::string event;
    std::istringstream lines(perf.out);
    std::smatch m;
    for (std::string line; std::getline(lines, line);) {
      if (std::regex_match(line, m, std::regex(R"(^# Samples: .* of event '(.*)'$)"))) event = m[1];
      else if (std::regex_match(line, m, std::regex(R"(^ +[\d.]+% +(\d+) +(\S+) +(\d+):.*)")))
        by_event[event][fmt::format("{} [{}]", m[2].str(), m[3].str())] = std::stoull(m[1]);
    }
    std::map<std::string, std::uint64_t> fetch, op;
    for (const auto& [name, counts] : expected) fetch[name] = counts.first, op[name] = counts.second;
    CHECK(by_event["ibs_fetch//"] == fetch);
    CHECK(by_event["ibs_op/cnt_ctl=1/"] == op);
  }
  fs::remove(file);
}

TEST_CASE("IBS events whose samples differ in layout: each read by its own, with any threads", "[report][ibs]") {
  // perf record gives each event its own sample_type, and the op event's
  // samples here have their fields at other offsets than the fetch
  // event's: without CPU and PERIOD (the payload starts 16 bytes sooner),
  // or with ADDR for IP (the payload where the fetch's is, the pid and
  // time elsewhere). The walk reads runs of one layout in place
  // (Walk::sample_run); the other event's samples go the long way. Both
  // must count the same, with one thread or several (the samples then
  // cross threads by address), through forks, execs and exits.
  constexpr std::uint64_t common = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
  const std::uint64_t op_sample_type = GENERATE(common | PERF_SAMPLE_IP,
                                                common | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD);
  INFO("the op event's sample_type: " << op_sample_type);
  const std::string file = temp("two-layouts.data");
  std::uint64_t t = 1000;
  using Counts = std::map<std::string, std::pair<std::uint64_t, std::uint64_t>>;  // fetch, op samples
  Counts by_process, by_address;
  {
    IbsCaptureWriter w(file, {.op_sample_type = op_sample_type});
    auto& p = w.perf();
    p.comm(100, 100, "shell", true, {.pid = 100, .tid = 100, .cpu = 0, .time = t++});
    p.mmap2(100, 100, 0x400000, 0x100000, 0, "/nonexistent/prog", {}, {.pid = 100, .tid = 100, .cpu = 0, .time = t++});
    // At many addresses (so that every thread has some), in runs of one
    // unit or the two interleaved.
    auto fetch = [&](const std::string& process, std::uint32_t pid, int i) {
      const std::uint64_t offset = 0x1000 + 4 * (i % 37);
      w.sample(fetch_at(0x400000 + offset), pid, pid, 0, t++);
      ++by_process[process].first;
      ++by_address[fmt::format("prog+{:#x}", offset)].first;
    };
    auto op = [&](const std::string& process, std::uint32_t pid, int i) {
      const std::uint64_t offset = 0x2000 + 4 * (i % 41);
      w.sample(op_at(0x400000 + offset), pid, pid, 1, t++);
      ++by_process[process].second;
      ++by_address[fmt::format("prog+{:#x}", offset)].second;
    };
    for (int i = 0; i < 300; ++i) fetch("shell [100]", 100, i);
    for (int i = 0; i < 500; ++i) op("shell [100]", 100, i);
    p.fork(101, 100, 101, 100, t++);
    for (int i = 0; i < 700; ++i) {
      if (i < 200) fetch("shell [101]", 101, i);
      op("shell [101]", 101, i);
    }
    p.comm(101, 101, "worker", true, {.pid = 101, .tid = 101, .cpu = 1, .time = t++});
    p.mmap2(101, 101, 0x400000, 0x100000, 0, "/nonexistent/prog", {}, {.pid = 101, .tid = 101, .cpu = 1, .time = t++});
    for (int i = 0; i < 1300; ++i) {
      op("worker [101]", 101, i);
      if (i < 1100) fetch("worker [101]", 101, i);
    }
    p.exit(101, 100, 101, 100, t++);
    for (int i = 0; i < 100; ++i) fetch("shell [100]", 100, i), op("shell [100]", 100, i);
    w.finish();
  }
  auto rows = [&](const std::string& by, const std::string& threads) {
    const json j = report_json(file + " --by " + by + " --events 0xF000,0xF100 --threads " + threads);
    Counts out;
    for (const json& row : j["rows"]) {
      auto& [fetches, ops] = out[row["name"]];
      fetches += row["values"]["0xF000"].get<std::uint64_t>();
      ops += row["values"]["0xF100"].get<std::uint64_t>();
    }
    return out;
  };
  for (const std::string threads : {"1", "2", "3"}) {
    INFO("--threads " << threads);
    CHECK(rows("process", threads) == by_process);
    CHECK(rows("address", threads) == by_address);
  }
  // perf reads the file so too: its samples per process and event.
  if (run_shell("command -v perf").exit_code == 0) {
    const RunResult perf = run_shell("perf report -i " + file + " --stdio -n --sort comm,pid 2>/dev/null");
    REQUIRE(perf.exit_code == 0);
    Counts counted;
    bool op_event = false;
    std::istringstream lines(perf.out);
    std::smatch m;
    for (std::string line; std::getline(lines, line);) {
      if (std::regex_match(line, m, std::regex(R"(^# Samples: .* of event '(.*)'$)"))) op_event = m[1].str().starts_with("ibs_op");
      else if (std::regex_match(line, m, std::regex(R"(^ +[\d.]+% +(\d+) +(\S+) +(\d+):.*)"))) {
        auto& [fetches, ops] = counted[fmt::format("{} [{}]", m[2].str(), m[3].str())];
        (op_event ? ops : fetches) += std::stoull(m[1]);
      }
    }
    CHECK(counted == by_process);
  }
  fs::remove(file);
}

TEST_CASE("an address is read with the mappings of its time", "[report][ibs]") {
  // One range holds liba.so, then libb.so: the same addresses are liba's
  // before the second MMAP and libb's after it.
  const std::string file = temp("remapped.data");
  {
    IbsCaptureWriter w(file, {});
    auto& p = w.perf();
    p.comm(7, 7, "prog", true, {.pid = 7, .tid = 7, .cpu = 0, .time = 1});
    p.mmap2(7, 7, 0x10000000, 0x10000, 0, "/nonexistent/liba.so", {}, {.pid = 7, .tid = 7, .cpu = 0, .time = 2});
    for (int i = 0; i < 6; ++i) w.sample(op_at(0x10000100 + i), 7, 7, 0, 10 + i);
    p.mmap2(7, 7, 0x10000000, 0x10000, 0x2000, "/nonexistent/libb.so", {}, {.pid = 7, .tid = 7, .cpu = 0, .time = 20});
    for (int i = 0; i < 9; ++i) w.sample(op_at(0x10000100 + i % 6), 7, 7, 0, 30 + i);
    w.finish();
  }
  const auto modules = unit_counts(report_json(file + " --by module --events 0xF000,0xF100"));
  CHECK(modules == std::map<std::string, std::pair<std::uint64_t, std::uint64_t>>{{"liba.so", {0, 6}}, {"libb.so", {0, 9}}});
  const json addresses = report_json(file + " --by address --events 0xF100");
  std::map<std::string, std::uint64_t> rows;
  for (const json& row : addresses["rows"]) rows[row["name"]] = row["values"]["0xF100"];
  CHECK(rows.at("liba.so+0x100") == 1);
  CHECK(rows.at("libb.so+0x2100") == 2);  // pgoff 0x2000; offsets 0x100..0x105 twice but 0x102.. once
  CHECK(rows.size() == 12);
  fs::remove(file);
}

TEST_CASE("one file under many spellings is one module, its symbols read once", "[report][ibs][symbols]") {
  // The non-PIE fixture of the symbols tests, mapped by 300 processes under
  // 300 spellings of its path, with a build-id that is not its own: one
  // module row, one warning; and without one: one function row.
  const std::string fixture = std::getenv("TAGOP_SYMBOLS_NOPIE_FIXTURE");
  std::istringstream printed(run_shell(fixture).out);
  unsigned long offset = 0;
  REQUIRE(printed >> std::hex >> offset);
  const std::string dir = fs::path(fixture).parent_path().string(), name = fs::path(fixture).filename().string();
  const std::string file = temp("spellings.data");
  auto write = [&](const std::string& build_id) {
    IbsCaptureWriter w(file, {});
    for (std::uint32_t i = 0; i < 300; ++i) {
      std::string path = dir;
      for (std::uint32_t k = 0; k < i; ++k) path += "/.";
      path += "/" + name;
      const std::uint32_t pid = 1000 + i;
      w.perf().comm(pid, pid, "user", true, {.pid = pid, .tid = pid, .cpu = 0, .time = 1 + 3 * i});
      w.perf().mmap2(pid, pid, 0x10000000, 0x100000, 0, path, build_id, {.pid = pid, .tid = pid, .cpu = 0, .time = 2 + 3 * i});
      w.sample(op_at(0x10000000 + offset), pid, pid, 0, 3 + 3 * i);
    }
    w.finish();
  };
  write("");
  const json functions = report_json(file + " --events 0xF100");
  REQUIRE(functions["rows"].size() == 1);
  CHECK(functions["rows"][0]["name"] == "tagop_nopie_probe");
  CHECK(functions["rows"][0]["values"]["0xF100"] == 300);
  const json modules = report_json(file + " --by module --events 0xF100");
  REQUIRE(modules["rows"].size() == 1);
  CHECK(modules["rows"][0]["values"]["0xF100"] == 300);
  write("00112233445566778899aabbccddeeff00112233");
  const json mismatched = report_json(file + " --events 0xF100");
  CHECK(mismatched["warnings"].size() == 1);
  CHECK(mismatched["rows"].size() == 1);
  fs::remove(file);
}

TEST_CASE("a sample before the MMAP of its time in the file: named in the report and its JSON lines, as perf names it",
          "[report][ibs][symbols]") {
  // perf record writes each CPU's buffer in turn: an exec's MMAP (time 20)
  // can follow in the file a sample of that process from another CPU (time
  // 30). perf sorts by time and names the sample; so must tagop, in the
  // report and in --format jsonl, which writes lines in the file's order.
  const std::string fixture = std::getenv("TAGOP_SYMBOLS_NOPIE_FIXTURE");
  std::istringstream printed(run_shell(fixture).out);
  unsigned long offset = 0;
  REQUIRE(printed >> std::hex >> offset);
  const std::string file = temp("mmap-after-sample.data");
  {
    IbsCaptureWriter w(file, {});
    w.perf().comm(7, 7, "user", true, {.pid = 7, .tid = 7, .cpu = 0, .time = 10});
    w.sample(op_at(0x10000000 + offset), 7, 7, 1, 30);
    w.perf().mmap2(7, 7, 0x10000000, 0x100000, 0, fixture, "", {.pid = 7, .tid = 7, .cpu = 0, .time = 20});
    w.sample(op_at(0x10000000 + offset), 7, 7, 0, 40);
    w.finish();
  }
  const json functions = report_json(file + " --events 0xF100");
  REQUIRE(functions["rows"].size() == 1);
  CHECK(functions["rows"][0]["name"] == "tagop_nopie_probe");
  CHECK(functions["rows"][0]["values"]["0xF100"] == 2);
  const RunResult lines = run_tagop("report " + file + " --format jsonl");
  REQUIRE(lines.exit_code == 0);
  std::istringstream in(lines.out);
  std::vector<std::uint64_t> times;
  for (std::string line; std::getline(in, line);) {
    const json j = json::parse(line);
    INFO(line);
    CHECK(j["symbol"] == "tagop_nopie_probe");
    times.push_back(j["time"]);
  }
  CHECK(times == std::vector<std::uint64_t>{30, 40});  // the file's order
  if (run_shell("command -v perf").exit_code == 0) {
    const RunResult perf = run_shell("perf script -i " + file + " -F time,ip,sym --ns 2>/dev/null");
    REQUIRE(perf.exit_code == 0);
    CHECK(std::count(perf.out.begin(), perf.out.end(), '\n') == 2);
    std::size_t named = 0;
    for (std::size_t at = perf.out.find("tagop_nopie_probe"); at != std::string::npos;
         at = perf.out.find("tagop_nopie_probe", at + 1))
      ++named;
    CHECK(named == 2);
  }
  fs::remove(file);
}

TEST_CASE("an op with IbsRipInvalid is at the record's ip, and counted as inexact", "[report][ibs]") {
  // Family 17h: IbsOpData bit 38 is IbsRipInvalid. The payload's IbsOpRip
  // is garbage; perf recorded the interrupted ip, inside liba.so.
  const std::string file = temp("rip-invalid.data");
  {
    IbsCaptureWriter w(file, {.family = 0x17, .model = 0x31});
    auto& p = w.perf();
    p.comm(7, 7, "prog", true, {.pid = 7, .tid = 7, .cpu = 0, .time = 1});
    p.mmap2(7, 7, 0x10000000, 0x10000, 0, "/nonexistent/liba.so", {}, {.pid = 7, .tid = 7, .cpu = 0, .time = 2});
    IbsRegisters op = op_at(0xDEAD0000);
    op.set(IbsRegister::IbsOpCtl, (0x10000 >> 4) | std::uint64_t{3} << 17 | std::uint64_t{1} << 19);
    op.set(IbsRegister::IbsOpData, std::uint64_t{1} << 38 | 7 << 16);
    std::vector<std::byte> raw(perf_raw_size(IbsUnit::op, w.capabilities()));
    write_perf_raw(op, w.capabilities(), raw);
    for (int i = 0; i < 4; ++i)
      p.sample(1, {.ip = 0x10000400, .pid = 7, .tid = 7, .time = 10 + std::uint64_t(i), .cpu = 0, .period = 0x10000, .raw = raw});
    w.sample(op_at(0x10000500), 7, 7, 0, 20);  // a valid one
    w.finish();
  }
  const RunResult r = run_tagop("report " + file + " --by address --events 0xF100 --json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(j["inexact_ip"] == 4);
  std::map<std::string, std::uint64_t> rows;
  for (const json& row : j["rows"]) rows[row["name"]] = row["values"]["0xF100"];
  CHECK(rows == std::map<std::string, std::uint64_t>{{"liba.so+0x400", 4}, {"liba.so+0x500", 1}});
  CHECK_THAT(r.err, Catch::Contains("IbsRipInvalid"));
  fs::remove(file);
}

TEST_CASE("perf's filters and conventions: --time, --tid, --percent-limit, -i", "[report][ibs]") {
  // 40 op samples, one per 0.1 s from 1 s, at 4 addresses (10 each); tid
  // 8 for every fourth.
  const std::string dir = temp("conventions");
  fs::create_directories(dir);
  const std::string file = dir + "/perf.data";
  {
    IbsCaptureWriter w(file, {});
    w.perf().comm(7, 7, "prog", true, {.pid = 7, .tid = 7, .cpu = 0, .time = 1});
    w.perf().mmap2(7, 7, 0x10000000, 0x10000, 0, "/nonexistent/liba.so", {}, {.pid = 7, .tid = 7, .cpu = 0, .time = 2});
    for (std::uint64_t i = 0; i < 40; ++i)
      w.sample(op_at(0x10000000 + 0x10 * (i % 4)), 7, i % 4 == 3 ? 8 : 7, 0, 1000000000 + i * 100000000);
    w.finish();
  }
  auto ops = [](const json& j) { return j["samples"]["op"].get<std::uint64_t>(); };
  // 1.5 s to 2.5 s, both inclusive: samples 5 to 15.
  CHECK(ops(report_json(file + " --time 1.5,2.5")) == 11);
  CHECK(ops(report_json(file + " --time 4.5,")) == 5);
  CHECK(ops(report_json(file + " --time ,1.05")) == 1);
  const json tid = report_json(file + " --tid 8 --by address --events 0xF100");
  CHECK(ops(tid) == 10);
  REQUIRE(tid["rows"].size() == 1);
  CHECK(tid["rows"][0]["name"] == "liba.so+0x30");
  CHECK(tid["filters"] == json::array({"tid 8"}));
  // Four rows of 25% each; above 30% none, at 25% all four.
  CHECK(report_json(file + " --by address --percent-limit 30")["rows"].empty());
  CHECK(report_json(file + " --by address --percent-limit 25")["rows"].size() == 4);
  // -i, and ./perf.data without it.
  CHECK(ops(report_json("-i " + file)) == 40);
  const RunResult here = run_shell("cd " + dir + " && " + tagop_exe() + " report --json");
  REQUIRE(here.exit_code == 0);
  CHECK(ops(json::parse(here.out)) == 40);
  const RunResult both = run_tagop("report " + file + " -i " + file);
  CHECK(both.exit_code == 2);
  CHECK_THAT(both.err, Catch::Contains("not both") && Catch::Contains("tagop report --help"));
  for (const char* bad : {"--time 2", "--time 3,2", "--time x,2", "--percent-limit 101"}) {
    INFO(bad);
    CHECK(run_tagop("report " + file + " " + bad).exit_code == 2);
  }
  fs::remove_all(dir);
}

TEST_CASE("an IBS capture without IBS samples says so, not that they were damaged", "[report][ibs]") {
  const std::string file = temp("empty.data");
  {
    IbsCaptureWriter w(file, {});
    w.perf().comm(7, 7, "prog", true, {.pid = 7, .tid = 7, .cpu = 0, .time = 1});
    w.finish();
  }
  const RunResult r = run_tagop("report " + file);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("no usable IBS samples (no IBS sample was read)"));
  CHECK_THAT(r.err, !Catch::Contains("damaged"));
  fs::remove(file);
}

TEST_CASE("events that are not IBS: one column each, weighted by period", "[report]") {
  // cpu-clock with periods that vary (as with perf record -F) and
  // page-faults of period 1, in two processes; computed sums below.
  const std::string file = temp("events.data");
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> clock, faults;  // row -> (samples, period)
  {
    std::vector<tagop::perf_data::WriterEvent> events(2);
    for (std::size_t e = 0; e < 2; ++e) {
      perf_event_attr& a = events[e].attr;
      a.type = PERF_TYPE_SOFTWARE;
      a.config = e == 0 ? PERF_COUNT_SW_CPU_CLOCK : PERF_COUNT_SW_PAGE_FAULTS;
      a.sample_period = e == 0 ? 4000 : 1;
      a.freq = e == 0;
      a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
      a.sample_id_all = 1;
      events[e].ids = {10 + e};
      events[e].name = e == 0 ? "cpu-clock" : "page-faults";
    }
    tagop::perf_data::PerfDataWriter w(file, events);
    std::uint64_t t = 1;
    w.comm(5, 5, "alpha", true, {.pid = 5, .tid = 5, .cpu = 0, .time = t++});
    w.comm(6, 6, "beta", true, {.pid = 6, .tid = 6, .cpu = 0, .time = t++});
    for (std::uint64_t i = 0; i < 300; ++i) {
      const std::uint32_t pid = i % 3 == 0 ? 6 : 5;
      const std::string row = pid == 5 ? "alpha [5]" : "beta [6]";
      const std::uint64_t period = 100000 + 1000 * (i % 7);
      w.sample(0, {.ip = 0x400000 + i % 5, .pid = pid, .tid = pid, .time = t++, .period = period});
      clock[row].first += 1;
      clock[row].second += period;
      if (i % 4 == 0) {
        w.sample(1, {.ip = 0x400100, .pid = pid, .tid = pid, .time = t++, .period = 1});
        faults[row].first += 1;
        faults[row].second += 1;
      }
    }
    w.finish();
  }
  const json j = report_json(file + " --by process");
  CHECK(j["ibs"] == false);
  CHECK(j["events"] == json::array({"cpu-clock", "page-faults"}));
  CHECK(j["samples"] == 300 + 75);
  std::uint64_t clock_total = 0;
  for (const auto& [row, c] : clock) clock_total += c.second;
  CHECK(j["event_totals"]["cpu-clock"]["period"] == clock_total);
  REQUIRE(j["rows"].size() == 2);
  for (const json& row : j["rows"]) {
    const std::string name = row["name"];
    INFO(name);
    CHECK(row["events"]["cpu-clock"]["samples"] == clock.at(name).first);
    CHECK(row["events"]["cpu-clock"]["period"] == clock.at(name).second);
    CHECK(row["events"]["cpu-clock"]["percent"].get<double>() ==
          Approx(100.0 * double(clock.at(name).second) / double(clock_total)));
    CHECK(row["events"]["page-faults"]["samples"] == faults.at(name).first);
    CHECK(row["samples"] == clock.at(name).first + faults.at(name).first);
  }
  // Sorted by the first event's periods; 'samples' and an event name work too.
  CHECK(j["rows"][0]["name"] == "alpha [5]");
  CHECK(report_json(file + " --by process --sort samples")["rows"][0]["name"] == "alpha [5]");
  CHECK(report_json(file + " --by process --sort page-faults")["sort"] == "page-faults");
  // IBS questions are refused, with what to do.
  for (const char* ibs_only : {"--view dc", "--events 0xF206", "--where load"}) {
    INFO(ibs_only);
    const RunResult r = run_tagop("report " + file + " " + ibs_only);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("no IBS events"));
  }
  CHECK(run_tagop("report " + file + " --sort cycles").exit_code == 2);
  // Text and CSV name each event's columns.
  const RunResult text = run_tagop("report " + file + " --by process");
  CHECK_THAT(text.out, Catch::Contains("cpu-clock overhead") && Catch::Contains("page-faults overhead"));
  const RunResult csv = run_tagop("report " + file + " --by process --format csv");
  CHECK_THAT(csv.out, Catch::StartsWith("process,cpu-clock percent,cpu-clock samples,cpu-clock period,page-faults percent"));

  // Truncated inside the data: warned, in the JSON, and --strict fails.
  const auto size = fs::file_size(file);
  fs::resize_file(file, size * 2 / 3);
  const RunResult cut = run_tagop("report " + file + " --json");
  INFO(cut.err);
  REQUIRE(cut.exit_code == 0);
  CHECK(json::parse(cut.out)["truncated"] == true);
  CHECK_THAT(cut.err, Catch::Contains("truncated"));
  CHECK(run_tagop("report " + file + " --strict").exit_code == 1);
  fs::remove(file);
}

namespace {

// Loads that missed the DC and the L2, from DRAM (DataSrc 3), local or
// remote by RmtNode, with a DC miss latency of `latency` cycles: what an
// L3MissOnly or ldlat capture holds.
IbsRegisters dram_load(std::uint64_t ip, bool remote, std::uint64_t latency) {
  IbsRegisters op = op_at(ip);
  op.set(IbsRegister::IbsOpData2, 3 | std::uint64_t{remote} << 4);
  op.set(IbsRegister::IbsOpData3, 1 | 1 << 7 | 1 << 20 | latency << 32);
  return op;
}

std::string filtered_capture(const std::string& name, IbsCaptureOptions o) {
  const std::string path = temp(name);
  IbsCaptureWriter w(path, o);
  for (std::uint64_t i = 0; i < 30; ++i) w.sample(dram_load(0x401000 + (i % 3) * 4, i % 3 == 0, 300 + i), 7, 7, 0, i);
  w.finish();
  return path;
}

}  // namespace

TEST_CASE("a capture of L3MissOnly or ldlat says so, and refuses the estimates the filter biases",
          "[report][ibs][zen]") {
  // Zen 4, ibs_op/l3missonly=1/: every op sample missed the L3, so the
  // DRAM loads (which all did) are estimated, the loads and the DC misses
  // (which did not all) are not, nor the DC miss rate.
  const std::string l3 = filtered_capture("l3.data", {.family = 0x19, .model = 0x11, .op_l3_miss_only = true});
  const json j = report_json(l3);
  REQUIRE(j["sampling_filters"]["op"].is_object());
  CHECK(j["sampling_filters"]["op"]["l3_miss_only"] == true);
  CHECK(j["sampling_filters"]["op"]["load_latency"].is_null());
  CHECK(j["sampling_filters"]["op"]["population"] == "op & l3.miss");
  CHECK(j["sampling_filters"]["fetch"].is_null());
  CHECK(j["estimates"]["0xF245"]["samples"] == 20);
  CHECK(j["estimates"]["0xF246"]["samples"] == 10);
  for (const char* biased : {"0xF100", "0xF200", "0xF201", "0xF206", "0xF240"}) {
    INFO(biased);
    CHECK(j["estimates"][biased].is_null());
    CHECK_THAT(j["estimates_biased"][biased].get<std::string>(), Catch::Contains("L3MissOnly"));
  }
  CHECK(j["events"]["0xF206"] == 30);  // the counts of samples stay
  CHECK(j["ratios"]["dc_miss_rate"].is_null());
  CHECK(j["ratios"]["avg_dc_miss_latency"].is_null());
  const RunResult text = run_tagop("report " + l3);
  CHECK_THAT(text.out, Catch::Contains("op filter: only ops that missed the L3 (L3MissOnly, ibs_op/l3missonly=1/)") &&
                           Catch::Contains("0xF206 IBS DC miss: n/a, the op filter sampled only some of its ops") &&
                           !Catch::Contains("DC miss rate 100"));
  // --where knows the population.
  const RunResult none = run_tagop("report " + l3 + " --where '!l3.miss'");
  CHECK_THAT(none.err, Catch::Contains("selects no ibs_op sample") && Catch::Contains("op & l3.miss"));
  CHECK(report_json(l3 + " --where 'l3.miss & src.remote'")["events"]["0xF100"] == 10);
  // perf reads the control register as Linux wrote it.
  if (const std::string perf = find_in_path("perf"); !perf.empty())
    CHECK_THAT(run_shell(perf + " report -D -i " + l3).out, Catch::Contains("L3MissOnly 1"));

  // Zen 5, ibs_op/ldlat=256/: Linux sets L3MissOnly too there (erratum
  // #1606), and no estimate follows from a latency filter.
  const std::string zen5 = filtered_capture("ldlat5.data", {.family = 0x1A, .model = 0x02, .op_load_latency = 256});
  const json k = report_json(zen5);
  CHECK(k["sampling_filters"]["op"]["load_latency"] == 256);
  CHECK(k["sampling_filters"]["op"]["l3_miss_only"] == true);
  CHECK(k["sampling_filters"]["op"]["population"] == "op & load & dc.miss & l3.miss");
  CHECK(k["estimates"]["0xF245"].is_null());
  CHECK_THAT(k["estimates_biased"]["0xF245"].get<std::string>(), Catch::Contains("ldlat=256"));
  // On Zen 6 ldlat stands alone ("Limit ldlat->l3missonly dependency to Zen5").
  const json z6 = report_json(filtered_capture("ldlat6.data", {.family = 0x1A, .model = 0x50, .op_load_latency = 512}));
  CHECK(z6["sampling_filters"]["op"]["l3_miss_only"] == false);
  CHECK(z6["sampling_filters"]["op"]["population"] == "op & load & dc.miss");
  // Zen 3 has no L3MissOnly (IBS capability bit 11): Linux refuses the bit,
  // and a file that has it anyway is read unfiltered.
  const json z3 = report_json(filtered_capture("zen3.data", {.family = 0x19, .model = 0x21, .op_l3_miss_only = true}));
  CHECK(z3["sampling_filters"]["op"].is_null());
  CHECK(z3["estimates"]["0xF200"]["samples"] == 30);
  for (const char* name : {"l3.data", "ldlat5.data", "ldlat6.data", "zen3.data"}) fs::remove(temp(name));
}

TEST_CASE("a report of a model past the table of generations reads it as the nearest known one, and says so",
          "[report][ibs][zen]") {
  const std::string path = temp("1ad0.data");
  {
    IbsCaptureWriter w(path, {.family = 0x1A, .model = 0xD0});
    IbsRegisters f = fetch_at(0x401000);
    f.set(IbsRegister::IbsFetchCtl, std::uint64_t{1} << 51);  // an IC miss without a translation
    w.sample(f, 7, 7, 0, 1);
    w.sample(fetch_at(0x401000), 7, 7, 0, 2);
    w.finish();
  }
  const json j = report_json(path);
  // Zen 6's (model CFh's) rule: no IC outcome without IbsPhyAddrValid.
  CHECK(j["undecided"]["0xF008"]["samples"] == 2);
  bool warned = false;
  for (const json& w : j["warnings"])
    warned = warned || w.get<std::string>().find("model D0h is not in tagop's table") != std::string::npos;
  CHECK(warned);
  const RunResult decode = run_tagop("decode ibs-fetch IbsFetchCtl=0x8000000000000 --family 1ah --model 0xd0");
  CHECK(decode.exit_code == 0);
  CHECK_THAT(decode.err, Catch::Contains("read with the layout of model CFh (Zen 6)"));
  fs::remove(path);
}

TEST_CASE("a column or row id of another report is refused, never read out of bounds", "[report]") {
  // A capture of one software event (the shape of a perf record -g one), and
  // the IBS example: their columns index different query lists.
  const std::string file = temp("foreign.data");
  {
    std::vector<tagop::perf_data::WriterEvent> events(1);
    perf_event_attr& a = events[0].attr;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.sample_period = 4000;
    a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD;
    events[0].ids = {10};
    events[0].name = "cpu-clock";
    tagop::perf_data::PerfDataWriter w(file, events);
    for (std::uint64_t i = 0; i < 20; ++i) w.sample(0, {.ip = 0x400000 + i % 3, .pid = 5, .tid = 5, .period = 4000});
    w.finish();
  }
  tagop::perf_data::PerfDataReader events_reader(file);
  const tagop::report::Report events(events_reader, {});
  tagop::perf_data::PerfDataReader ibs_reader(source_path("examples/ibs-example.perf.data"));
  const tagop::report::Report ibs(ibs_reader, {});
  // An IBS column (0xF206 is query 36 of 59) on a report of one event.
  const tagop::report::Column dc_miss = tagop::report::resolve_column("0xF206");
  CHECK_THROWS_AS(events.select(dc_miss, 10), tagop::report::ColumnError);
  CHECK_THROWS_WITH(events.value(dc_miss, events.totals()),
                    Catch::Contains("is not one of this report's") && Catch::Contains("resolve_event_column()"));
  // An events column on the IBS report, and on an events report of another size.
  const tagop::report::Column clock = tagop::report::resolve_event_column(events.query_names(), "cpu-clock");
  CHECK(events.select(clock, 10).size() == 3);
  CHECK_THROWS_AS(ibs.select(clock, 10), tagop::report::ColumnError);
  const std::vector<std::string> two{"cpu-clock", "page-faults"};
  CHECK_THROWS_AS(events.select(tagop::report::resolve_event_column(two, "page-faults"), 10),
                  tagop::report::ColumnError);
  // Results of one report given to another's value().
  CHECK_THROWS_AS(ibs.value(dc_miss, events.totals()), tagop::Error);
  // Row ids past the report's.
  CHECK_THROWS_WITH(events.row(3), Catch::Contains("row 3: the report has 3 rows"));
  CHECK_THROWS_AS(events.frames(1000), tagop::Error);
  fs::remove(file);
}

namespace {

// A library report's rows by `keys`: each row's name parts (joined by
// " | ") -> its op samples (0xF100's count); `threads` tally.
std::map<std::string, std::uint64_t> op_rows(const std::string& file, std::vector<tagop::report::GroupBy> keys,
                                             std::size_t threads, std::vector<tagop::report::Row>* rows = nullptr) {
  tagop::perf_data::PerfDataReader reader(file);
  const tagop::report::Report r(reader, {.keys = keys, .threads = threads});
  const tagop::report::Column ops = tagop::report::resolve_column("0xF100");
  std::size_t query = 0;
  while (r.query_names().at(query) != "0xF100") ++query;
  std::map<std::string, std::uint64_t> out;
  for (std::uint32_t id : r.select(ops, 0)) {
    const tagop::report::Row row = r.row(id);
    std::string name;
    for (const std::string& part : row.parts) name += (name.empty() ? "" : " | ") + part;
    if (row.parts.empty()) name = row.name;
    CHECK(out.count(name) == 0);
    out[name] = row.results.at(query).count;
    if (rows) rows->push_back(row);
  }
  return out;
}

}  // namespace

TEST_CASE("several keys at once: by process thread cpu and address, counted by hand", "[report][ibs]") {
  // prog (pid 7, threads 7 and 8) and other (pid 9), each with liba.so at
  // 0x10000000; op samples at two of its addresses on CPUs 0 and 1.
  const std::string file = temp("keys.data");
  struct Samples {
    std::uint32_t pid, tid, cpu;
    std::uint64_t offset;
    int n;
  };
  const Samples samples[] = {{7, 7, 0, 0x0, 3}, {7, 8, 1, 0x0, 5}, {7, 8, 0, 0x10, 2}, {9, 9, 1, 0x0, 4}, {7, 7, 1, 0x10, 1}};
  {
    IbsCaptureWriter w(file, {});
    std::uint64_t t = 1;
    for (const auto& [pid, comm] : {std::pair<std::uint32_t, const char*>{7, "prog"}, {9, "other"}}) {
      w.perf().comm(pid, pid, comm, true, {.pid = pid, .tid = pid, .cpu = 0, .time = t++});
      w.perf().mmap2(pid, pid, 0x10000000, 0x10000, 0, "/nonexistent/liba.so", {},
                     {.pid = pid, .tid = pid, .cpu = 0, .time = t++});
    }
    // Interleaved, as threads run at once.
    for (int round = 0; round < 5; ++round)
      for (const Samples& s : samples)
        if (round < s.n) w.sample(op_at(0x10000000 + s.offset), s.pid, s.tid, s.cpu, 1000 + t++);
    w.finish();
  }
  using tagop::report::GroupBy;
  const std::map<std::string, std::uint64_t> by_thread_address{{"7:prog | liba.so+0x0", 3},
                                                               {"7:prog | liba.so+0x10", 1},
                                                               {"8:prog | liba.so+0x0", 5},
                                                               {"8:prog | liba.so+0x10", 2},
                                                               {"9:other | liba.so+0x0", 4}};
  const std::map<std::string, std::uint64_t> by_cpu{{"0", 3 + 2}, {"1", 5 + 4 + 1}};
  const std::map<std::string, std::uint64_t> by_process_module{{"prog [7] | liba.so", 11}, {"other [9] | liba.so", 4}};
  const std::map<std::string, std::uint64_t> by_cpu_process{
      {"0 | prog [7]", 5}, {"1 | prog [7]", 6}, {"1 | other [9]", 4}};
  const std::map<std::string, std::uint64_t> by_thread{{"7:prog", 4}, {"8:prog", 7}, {"9:other", 4}};
  for (std::size_t threads : {1, 3}) {
    INFO(threads << " threads");
    std::vector<tagop::report::Row> rows;
    CHECK(op_rows(file, {GroupBy::thread, GroupBy::address}, threads, &rows) == by_thread_address);
    for (const tagop::report::Row& row : rows) {
      REQUIRE(row.tid);
      CHECK(row.pid == (*row.tid == 9 ? 9u : 7u));
      CHECK(row.comm == (row.pid == 9 ? "other" : "prog"));
      CHECK(!row.cpu);
      CHECK(row.name == row.parts[0] + "  " + row.parts[1]);
    }
    CHECK(op_rows(file, {GroupBy::cpu}, threads) == by_cpu);
    CHECK(op_rows(file, {GroupBy::process, GroupBy::module}, threads) == by_process_module);
    CHECK(op_rows(file, {GroupBy::cpu, GroupBy::process}, threads) == by_cpu_process);
    CHECK(op_rows(file, {GroupBy::thread}, threads) == by_thread);
    rows.clear();
    op_rows(file, {GroupBy::address, GroupBy::cpu, GroupBy::thread}, threads, &rows);
    CHECK(rows.size() == 5);
    for (const tagop::report::Row& row : rows) CHECK((row.cpu && row.tid && row.parts.size() == 3));
  }
  // One key in the list is the key alone: the same rows, and no parts.
  std::vector<tagop::report::Row> one;
  CHECK(op_rows(file, {GroupBy::address}, 0, &one) ==
        std::map<std::string, std::uint64_t>{{"liba.so+0x0", 12}, {"liba.so+0x10", 3}});
  for (const tagop::report::Row& row : one) CHECK((row.parts.empty() && !row.tid && !row.cpu));
  // The command: the same rows, each part a field.
  const json j = report_json(file + " --by thread,address --events 0xF100");
  CHECK(j["by"] == "address");
  CHECK(j["keys"] == json::array({"thread", "address"}));
  std::map<std::string, std::uint64_t> command;
  for (const json& row : j["rows"]) {
    command[row["parts"][0].get<std::string>() + " | " + row["parts"][1].get<std::string>()] = row["values"]["0xF100"];
    CHECK(row["tid"] == std::stoul(row["parts"][0].get<std::string>()));
    CHECK(row["module"] == "/nonexistent/liba.so");
  }
  CHECK(command == by_thread_address);
  // A CSV column per key.
  const RunResult csv = run_tagop("report " + file + " --by cpu,process --events 0xF100 --format csv");
  REQUIRE(csv.exit_code == 0);
  CHECK_THAT(csv.out, Catch::StartsWith("cpu,process,0xF100,") && Catch::Contains("\n1,other [9],4,"));
  fs::remove(file);
}

TEST_CASE("keys that cannot make rows together are refused, and perf's names point at tagop's", "[report]") {
  using tagop::report::GroupBy;
  using tagop::report::parse_group_keys;
  CHECK(parse_group_keys("process,module,function") ==
        std::vector<GroupBy>{GroupBy::process, GroupBy::module, GroupBy::function});
  CHECK(parse_group_keys("cpu") == std::vector<GroupBy>{GroupBy::cpu});
  CHECK_THROWS_WITH(parse_group_keys("comm,dso,sym"),
                    Catch::Contains("--by 'comm,dso,sym'") && Catch::Contains("perf's comm is tagop's process"));
  CHECK_THROWS_WITH(parse_group_keys("function,line"), Catch::Contains("function and line together"));
  CHECK_THROWS_WITH(parse_group_keys("thread,thread"), Catch::Contains("thread is a key twice"));
  CHECK_THROWS_WITH(parse_group_keys("module,callchain"), Catch::Contains("a call chain crosses modules"));
  CHECK_THROWS_WITH(parse_group_keys("process,"), Catch::Contains("an empty name"));
  CHECK_NOTHROW(tagop::report::check_group_keys(std::vector<GroupBy>{GroupBy::callchain, GroupBy::thread}, false));
  CHECK_THROWS_WITH(tagop::report::check_group_keys(std::vector<GroupBy>{GroupBy::process, GroupBy::function}, true),
                    Catch::Contains("--children with 2 keys"));
  CHECK(tagop::report::main_key(std::vector<GroupBy>{GroupBy::process, GroupBy::module, GroupBy::function}) ==
        GroupBy::function);
  CHECK(tagop::report::main_key(std::vector<GroupBy>{GroupBy::cpu, GroupBy::module}) == GroupBy::module);
  CHECK(tagop::report::main_key(std::vector<GroupBy>{GroupBy::cpu, GroupBy::thread}) == GroupBy::cpu);
  CHECK(tagop::report::group_by_of_perf_key("pid") == GroupBy::thread);
  CHECK(tagop::report::group_by_of_perf_key("dso") == GroupBy::module);
  CHECK(!tagop::report::group_by_of_perf_key("overhead"));
  // The command: perf's --sort keys point at --by.
  const RunResult sort = run_tagop("report " + source_path("examples/ibs-example.perf.data") + " --sort comm,dso,sym");
  CHECK(sort.exit_code == 2);
  CHECK_THAT(sort.err, Catch::Contains("--by process,module,function"));
  const RunResult by = run_tagop("report " + source_path("examples/ibs-example.perf.data") + " --by sym");
  CHECK(by.exit_code == 2);
  CHECK_THAT(by.err, Catch::Contains("perf's sym is --by function"));
  const RunResult children =
      run_tagop("report " + source_path("examples/ibs-example.perf.data") + " --by process,function --children");
  CHECK(children.exit_code == 2);
  CHECK_THAT(children.err, Catch::Contains("--children with 2 keys"));
}

TEST_CASE("a report with workers keeps the capture's pages they read, and no more", "[report][ibs][pages]") {
  // Some 65 MB of op samples at 4096 addresses, read with two threads:
  // the worker reads its samples' bytes when it works their batch, behind
  // the reading thread (Walk::workers_lag). The capture's pages stay
  // within that lag, the keeper's own (PageKeeper::behind) and what its
  // helper maps in ahead (two windows): given back under the worker, they
  // would be read in again and kept, the file whole.
  const std::string file = temp("workers-pages.data");
  std::uint64_t samples = 0;
  {
    IbsCaptureWriter w(file, {});
    w.perf().comm(7, 7, "prog", true, {.pid = 7, .tid = 7, .cpu = 0, .time = 1});
    for (; samples < 500000; ++samples) w.sample(op_at(0x401000 + 16 * (samples % 4096)), 7, 7, 0, 10 + samples);
    w.finish();
  }
  tagop::perf_data::PerfDataReader reader(file);
  REQUIRE(reader.info().header.data.size > (56u << 20));
  const void* const map = reader.bytes().data();
  std::uint64_t most = 0;
  tagop::report::Options options;
  options.threads = 2;
  options.by = tagop::report::GroupBy::address;
  options.progress = [&](std::uint64_t, std::uint64_t) {
    std::ifstream smaps("/proc/self/smaps");
    std::ostringstream start;
    start << std::hex << reinterpret_cast<std::uintptr_t>(map) << '-';
    bool in_mapping = false;
    for (std::string line; std::getline(smaps, line);) {
      if (line.find('-') != std::string::npos && line.find(' ') > line.find('-') && !line.starts_with("Rss"))
        in_mapping = line.starts_with(start.str());
      if (in_mapping && line.starts_with("Rss:")) most = std::max<std::uint64_t>(most, std::stoull(line.substr(4)) * 1024);
    }
  };
  const tagop::report::Report r(reader, options);
  CHECK(r.counts().kept_op == samples);
  CHECK(r.row_count() == 4096);
  INFO("most resident: " << most << " bytes");
  CHECK(most > 0);
  CHECK(most <= (8u << 20) + tagop::PageKeeper::behind + 2 * tagop::PageKeeper::window + (4u << 20));
  fs::remove(file);
}

TEST_CASE("the default threads: the CPUs this process may use that no other thread runs on now", "[report]") {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  REQUIRE(::sched_getaffinity(0, sizeof mine, &mine) == 0);
  const auto allowed = static_cast<std::size_t>(CPU_COUNT(&mine));
  CHECK(tagop::report::allowed_cpus() == allowed);
  const std::string file = (fs::temp_directory_path() / fmt::format("tagop-loadavg-{}", ::getpid())).string();
  auto idle_at = [&](const std::string& text) {
    std::ofstream(file) << text;
    return tagop::report::idle_cpus(file);
  };
  // /proc/loadavg: "1-min 5-min 15-min running/threads last-pid"; the
  // running threads count this one.
  CHECK(idle_at("0.00 0.00 0.00 1/100 42\n") == allowed);
  CHECK(idle_at("3.70 3.00 2.00 1/100 42\n") == allowed);  // a load that has ended: idle now
  if (allowed >= 2) CHECK(idle_at("0.00 1.00 1.00 2/100 42\n") == allowed - 1);
  CHECK(idle_at(fmt::format("0.00 4.00 4.00 {}/100 42\n", allowed + 1)) == 0);
  CHECK(idle_at("9.00 4.00 4.00 99999/100000 42\n") == 0);
  // Unreadable: as if idle (the user's --threads still rules).
  CHECK(idle_at("0.00 0.00 0.00 0/100 42\n") == allowed);
  CHECK(idle_at("0.00 0.00 0.00\n") == allowed);
  CHECK(idle_at("busy\n") == allowed);
  fs::remove(file);
  CHECK(tagop::report::idle_cpus(file) == allowed);
}

TEST_CASE("call_graphs of chains given by id: perf's merged tree, by hand", "[report][graph]") {
  using tagop::report::CallOrder;
  // main=0, a=1, b=2, x=3: 60% main;a;x, 30% main;b;x, 10% main;a.
  const std::vector<tagop::report::WeightedChain> chains{{{0, 1, 3}, 60}, {{0, 2, 3}, 30}, {{0, 1}, 10}};
  const auto caller = tagop::report::call_graphs(chains);
  REQUIRE(caller.size() == 2);
  // x: 90%, every chain from main, then a (60) and b (30) each into x.
  CHECK(caller[0].function == 3);
  CHECK(caller[0].percent == 90);
  REQUIRE(caller[0].roots.size() == 1);
  CHECK(caller[0].roots[0].frames == std::vector<std::uint32_t>{0});
  CHECK(caller[0].roots[0].percent == 90);
  REQUIRE(caller[0].roots[0].children.size() == 2);
  CHECK(caller[0].roots[0].children[0].frames == std::vector<std::uint32_t>{1, 3});
  CHECK(caller[0].roots[0].children[0].percent == 60);
  CHECK(caller[0].roots[0].children[1].frames == std::vector<std::uint32_t>{2, 3});
  CHECK(caller[1].function == 1);
  CHECK(caller[1].percent == 10);

  // Callee order, branches under 50% left out: x, then only a and main.
  const auto callee = tagop::report::call_graphs(chains, {.order = CallOrder::callee, .min_percent = 50});
  REQUIRE(callee[0].roots.size() == 1);
  CHECK(callee[0].roots[0].frames == std::vector<std::uint32_t>{3});
  REQUIRE(callee[0].roots[0].children.size() == 1);
  CHECK(callee[0].roots[0].children[0].frames == std::vector<std::uint32_t>{1, 0});

  // With children: main's graph holds every chain (100%), a's the 70% through it.
  const auto children = tagop::report::call_graphs(chains, {.children = true});
  std::map<std::uint32_t, double> percent;
  for (const auto& g : children) percent[g.function] = g.percent;
  CHECK(percent == std::map<std::uint32_t, double>{{0, 100}, {1, 70}, {2, 30}, {3, 90}});
}
