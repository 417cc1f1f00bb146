// tagop record: a cpu-clock (or, where the machine has it, IBS) recording
// of a child and of a running process, read back by our reader, by
// `tagop report` and by `perf report`; the errors for IBS on a machine
// without it, for unknown events and for a missing target.

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <tagop/perf_data_reader.hpp>

#include "run_command.hpp"

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Under AddressSanitizer, LeakSanitizer checks at exit from a helper process
// of its own (a new pid) that inherits the sampling, adding samples of a pid
// that is not the child's. The sampled programs are not what these tests
// check for leaks, so their leak check is off (this process's own stays on:
// the sanitizer read its options before this runs).
const int no_leak_check_in_children = ::setenv("ASAN_OPTIONS", "detect_leaks=0", 1);

std::string env(const char* name) {
  const char* v = std::getenv(name);
  REQUIRE(v != nullptr);
  return v;
}

std::string temp(const std::string& name) {
  return (fs::temp_directory_path() / ("tagop-record-" + std::to_string(::getpid()) + "-" + name)).string();
}

bool has_pmu(const char* name) { return fs::exists(std::string("/sys/bus/event_source/devices/") + name); }

// IBS where the machine has it, else cpu-clock every 100000 ns (10 kHz).
std::string event_args() {
  if (has_pmu("ibs_op")) {
    WARN("ran against: ibs_op (AMD IBS)");
    return "--ibs-op";
  }
  WARN("ran against: cpu-clock (no hardware PMU)");
  return "--event cpu-clock --period 100000";
}

// What the file holds, by our reader.
struct Capture : tagop::perf_data::RecordHandler {
  std::map<std::uint32_t, std::string> comms;  // by pid, the last name
  std::map<std::uint32_t, std::uint64_t> samples_by_pid;
  std::uint64_t samples = 0;
  bool mapped_busy = false;
  void sample(const tagop::perf_data::SampleRecord& s) override {
    ++samples;
    ++samples_by_pid[s.id.pid];
  }
  void comm(const tagop::perf_data::CommRecord& c) override {
    if (c.pid == c.tid) comms[c.pid] = std::string(c.comm);
  }
  void mmap(const tagop::perf_data::MmapRecord& m) override {
    if (m.filename == env("TAGOP_BUSY")) mapped_busy = true;
  }
};

std::uint32_t pid_named(const Capture& c, const std::string& comm) {
  for (const auto& [pid, name] : c.comms)
    if (name == comm) return pid;
  return 0;
}

}  // namespace

TEST_CASE("record a command: its samples, tagop report and perf report", "[record]") {
  const std::string file = temp("child.data");
  const RunResult r = run_tagop("record " + event_args() + " -o " + file + " -- " + env("TAGOP_BUSY") + " 300");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("[ tagop record: wrote ") && Catch::Contains("; 0 lost ]"));

  tagop::perf_data::PerfDataReader reader(file);
  const auto& info = reader.info();
  REQUIRE(info.attrs.size() == 1);
  CHECK(info.cpuid.has_value());
  CHECK(info.attrs[0].attr.sample_id_all == 1);
  Capture c;
  reader.read(c);
  const std::uint32_t child = pid_named(c, "tagop_busy");
  REQUIRE(child != 0);
  CHECK(c.mapped_busy);
  REQUIRE(c.samples >= 5);
  // Every sample is the child's: the events followed only it.
  CHECK(c.samples_by_pid[child] == c.samples);
  CHECK_THAT(r.err, Catch::Contains(fmt::format("wrote {} samples", c.samples)));

  if (!has_pmu("ibs_op")) {
    const RunResult by_process = run_tagop("report " + file + " --by process --json");
    INFO(by_process.err);
    REQUIRE(by_process.exit_code == 0);
    const json j = json::parse(by_process.out);
    CHECK(j["ibs"] == false);
    CHECK(j["samples"] == c.samples);
    REQUIRE(j["rows"].size() == 1);
    CHECK(j["rows"][0]["name"] == fmt::format("tagop_busy [{}]", child));
    CHECK(j["rows"][0]["samples"] == c.samples);

    // The child spends its time in tagop_busy_spin: the top function.
    const RunResult by_function = run_tagop("report " + file + " --json");
    REQUIRE(by_function.exit_code == 0);
    const json f = json::parse(by_function.out);
    REQUIRE(!f["rows"].empty());
    CHECK(f["rows"][0]["name"] == "tagop_busy_spin");
    CHECK(f["rows"][0]["module"] == env("TAGOP_BUSY"));

    const RunResult text = run_tagop("report " + file);
    CHECK(text.exit_code == 0);
    CHECK_THAT(text.out, Catch::Contains("no IBS events") && Catch::Contains("tagop_busy_spin"));
    CHECK(run_tagop("report " + file + " --where load").exit_code == 2);
  }

  if (run_shell("command -v perf").exit_code != 0) {
    WARN("perf is not installed: perf report is not checked");
  } else {
    const RunResult perf = run_shell("perf report -i " + file + " --stdio --sort comm,dso,sym");
    INFO(perf.err);
    CHECK(perf.exit_code == 0);
    CHECK_THAT(perf.out, Catch::Contains(fmt::format("Samples: ")) && Catch::Contains("tagop_busy_spin"));
    // perf counts the same samples (as "N" below 1000, "1K" and up), each
    // worth its period: 100000 ns of cpu-clock.
    if (c.samples < 1000) CHECK_THAT(perf.out, Catch::Contains(fmt::format("# Samples: {} ", c.samples)));
    if (!has_pmu("ibs_op"))
      CHECK_THAT(perf.out, Catch::Contains(fmt::format("# Event count (approx.): {}", c.samples * 100000)));
  }
  fs::remove(file);
}

TEST_CASE("record a running process by pid: its name and mappings come from /proc", "[record]") {
  const std::string busy = env("TAGOP_BUSY");
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    execl(busy.c_str(), busy.c_str(), "700", static_cast<char*>(nullptr));
    _exit(127);
  }
  usleep(50000);  // past its exec
  const std::string file = temp("pid.data");
  const RunResult r = run_tagop(fmt::format("record {} -p {} --duration 0.3 -o {}", event_args(), pid, file));
  int status = 0;
  waitpid(pid, &status, 0);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  tagop::perf_data::PerfDataReader reader(file);
  Capture c;
  reader.read(c);
  CHECK(c.comms[static_cast<std::uint32_t>(pid)] == "tagop_busy");
  CHECK(c.mapped_busy);
  REQUIRE(c.samples >= 3);
  CHECK(c.samples_by_pid[static_cast<std::uint32_t>(pid)] == c.samples);
  fs::remove(file);
}

TEST_CASE("record says why it cannot sample", "[record]") {
  const std::string file = temp("refused.data");
  if (!has_pmu("ibs_op")) {
    const RunResult ibs = run_tagop("record --ibs-op -o " + file + " -- true");
    CHECK(ibs.exit_code == 1);
    CHECK_THAT(ibs.err, Catch::Contains("/sys/bus/event_source/devices/ibs_op: no such PMU on this machine"));
    CHECK(!fs::exists(file));
  }
  if (!has_pmu("cpu")) {
    // PERF_TYPE_HARDWARE (0), PERF_COUNT_HW_CPU_CYCLES (0) with PEBS-style
    // precision: a machine with no hardware PMU refuses it.
    const RunResult precise = run_tagop("record --event cycles:precise=2 --period 10007 -o " + file + " -- true");
    CHECK(precise.exit_code == 1);
    CHECK_THAT(precise.err, Catch::Contains("type 0, config 0x0, precise_ip 2, period 10007") &&
                                Catch::Contains("refused this configuration"));
  }
  const RunResult no_process = run_tagop("record -p 2147483647 --duration 0.1 -o " + file);
  CHECK(no_process.exit_code == 1);
  CHECK_THAT(no_process.err, Catch::Contains("no process 2147483647"));
  const RunResult unknown = run_tagop("record --event no_such_event_anywhere -o " + file + " -- true");
  CHECK(unknown.exit_code == 1);
  CHECK_THAT(unknown.err, Catch::Contains("event 'no_such_event_anywhere'"));
  const RunResult no_target = run_tagop("record -o " + file);
  CHECK(no_target.exit_code == 2);
  CHECK_THAT(no_target.err, Catch::Contains("-a (every CPU), -p PID, or -- COMMAND"));
  const RunResult both = run_tagop("record -a -o " + file + " -- true");
  CHECK(both.exit_code == 2);
  const RunResult missing = run_tagop("record --period 100000 -o " + file + " -- /nonexistent/tagop-child");
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.err, Catch::Contains("cannot run '/nonexistent/tagop-child'"));
  fs::remove(file);
}
