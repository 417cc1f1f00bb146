// tagop record: a cpu-clock (or, where the machine has it, IBS) recording
// of a child and of a running process, read back by our reader, by
// `tagop report` and by `perf report`; the errors for IBS on a machine
// without it, for unknown events and for a missing target.

#include <catch2/catch.hpp>

#include <pty.h>
#include <signal.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <tagop/kernel_symbols.hpp>
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

TEST_CASE("record keeps the vDSO's image where perf report and tagop report find it", "[record][vdso]") {
  if (has_pmu("ibs_op")) return;  // the child's time is in the vDSO on cpu-clock; IBS samples ops anywhere
  const std::string file = temp("vdso.data"), cache = temp("buildid-cache");
  fs::remove_all(cache);
  ::setenv("PERF_BUILDID_DIR", cache.c_str(), 1);
  const RunResult r = run_tagop("record --event cpu-clock --period 100000 -o " + file + " -- " + env("TAGOP_BUSY") +
                                " 300 vdso");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);

  // The image perf record would keep: DIR/[vdso]/ID/vdso, ID its build-id
  // as binutils reads it, and the link DIR/.build-id/xx/rest to its folder.
  REQUIRE(fs::is_directory(cache + "/[vdso]"));
  const fs::path folder = fs::directory_iterator(cache + "/[vdso]")->path();
  const std::string id = folder.filename().string();
  const RunResult notes = run_shell("readelf -n '" + folder.string() + "/vdso'");
  CHECK_THAT(notes.out, Catch::Contains("Build ID: " + id));
  CHECK(fs::read_symlink(cache + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2)) ==
        fs::path("../../[vdso]") / id);

  // And the kernel's kallsyms, byte for byte the copy perf record keeps
  // (in a cache of its own), with perf's link.
  const std::string kernel = tagop::running_kernel_build_id();
  if (!kernel.empty() && run_shell("command -v perf").exit_code == 0) {
    const std::string kept = cache + "/[kernel.kallsyms]/" + kernel + "/kallsyms";
    REQUIRE(fs::is_regular_file(kept));
    CHECK(fs::read_symlink(cache + "/.build-id/" + kernel.substr(0, 2) + "/" + kernel.substr(2)) ==
          fs::path("../../[kernel.kallsyms]") / kernel);
    const std::string perf_cache = temp("perf-buildid-cache");
    fs::remove_all(perf_cache);
    const RunResult perf_record = run_shell("perf --buildid-dir " + perf_cache + " record -q -e cpu-clock -o " +
                                            temp("perf-kallsyms.data") + " -- true 2>&1");
    INFO(perf_record.out);
    const std::string perf_kept = perf_cache + "/[kernel.kallsyms]/" + kernel + "/kallsyms";
    if (perf_record.exit_code == 0 && fs::exists(perf_kept)) {
      const auto bytes = [](const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
      };
      CHECK(bytes(kept) == bytes(perf_kept));
    } else {
      WARN("perf record kept no kallsyms here: the copy is not compared with perf's");
    }
    fs::remove_all(perf_cache);
    fs::remove(temp("perf-kallsyms.data"));
  }

  // perf report, given that cache, and tagop report name the vDSO's
  // samples alike: the function and its count (perf's first named row:
  // some kernels' vDSOs have code outside their symbols, which perf
  // prints as a bare 0x address).
  const RunResult perf = run_shell("perf --buildid-dir " + cache + " report -i " + file +
                                   " --stdio --no-children -n --sort dso,sym 2>/dev/null");
  std::string perf_symbol;
  std::uint64_t perf_samples = 0;
  std::istringstream lines(perf.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, std::regex(R"(%\s+(\d+)\s+\[vdso\]\s+\[\.\] ([A-Za-z_]\S*))"))) {
      perf_samples = std::stoull(m[1]);
      perf_symbol = m[2];
      break;
    }
  }
  if (run_shell("command -v perf").exit_code != 0) WARN("perf is not installed: its names are not compared");
  else REQUIRE(perf_samples > 0);
  const RunResult report = run_tagop("report " + file + " --json");
  REQUIRE(report.exit_code == 0);
  bool found = false;
  const json rows = json::parse(report.out)["rows"];
  for (const json& row : rows)
    if (row["module"] == "[vdso]" && row["name"] == perf_symbol) {
      found = true;
      CHECK(row["samples"] == perf_samples);
    }
  CHECK((found || perf_symbol.empty()));

  // --no-buildid-cache keeps no image, as perf record's.
  fs::remove_all(cache);
  CHECK(run_tagop("record -N --event cpu-clock -o " + file + " -- " + env("TAGOP_BUSY") + " 50 vdso").exit_code == 0);
  CHECK(!fs::exists(cache + "/[vdso]"));
  CHECK(!fs::exists(cache + "/[kernel.kallsyms]"));
  ::unsetenv("PERF_BUILDID_DIR");
  fs::remove_all(cache);
  fs::remove(file);
}

TEST_CASE("record a running process by pid: its name and mappings come from /proc", "[record]") {
  const std::string busy = env("TAGOP_BUSY");
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // Far longer than the recording: under load and the sanitizers, a
    // record slow to start found it ended (a zombie, sampled for nothing).
    execl(busy.c_str(), busy.c_str(), "60000", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Past its exec: its binary mapped (a loaded machine, or a sanitizer,
  // can take far longer than usual).
  for (int i = 0; i < 500; ++i) {
    std::ifstream maps(fmt::format("/proc/{}/maps", pid));
    const std::string text{std::istreambuf_iterator<char>(maps), {}};
    if (text.find(busy) != std::string::npos) break;
    usleep(10000);
  }
  const std::string file = temp("pid.data");
  const RunResult r = run_tagop(fmt::format("record {} -p {} --duration 0.3 -o {}", event_args(), pid, file));
  ::kill(pid, SIGKILL);
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

namespace {

// What the file holds by our reader, per event and thread: the samples and
// the sum of their periods; every sample's call chain, checked to start at
// its ip.
struct EventCounts : tagop::perf_data::RecordHandler {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> samples;  // (event, tid)
  std::map<std::uint32_t, std::uint64_t> periods;                            // by event
  std::map<std::uint32_t, std::string> comms;                                // tid -> its last name
  std::uint64_t total = 0, chained = 0, kernel = 0;
  void sample(const tagop::perf_data::SampleRecord& s) override {
    ++total;
    ++samples[{s.event, s.id.tid}];
    periods[s.event] += s.period;
    if ((s.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) ++kernel;
    std::uint64_t first = 0;
    if (s.callchain_nr >= 2) std::memcpy(&first, s.callchain.data() + 8, 8);
    chained += first == s.ip;
  }
  void comm(const tagop::perf_data::CommRecord& c) override { comms[c.tid] = std::string(c.comm); }
};

// `perf report --stdio --sort comm,pid -n` of each event: its samples per
// thread and its event count.
struct PerfEventReport {
  std::map<std::uint32_t, std::uint64_t> samples;  // tid -> samples
  std::map<std::uint32_t, std::string> comm;       // tid -> comm of its row with the most samples
  std::uint64_t event_count = 0;
};

std::map<std::string, PerfEventReport> perf_report_by_thread(const std::string& file) {
  const RunResult r = run_shell("perf report -i " + file + " --stdio --sort comm,pid -n --no-children -g none");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::map<std::string, PerfEventReport> out;
  std::map<std::uint32_t, std::uint64_t> best;
  PerfEventReport* current = nullptr;
  const std::regex event_line(R"(^# Samples: .* of event '([^']+)'$)");
  const std::regex count_line(R"(^# Event count \(approx\.\): (\d+)$)");
  // "    49.39%           284  yes        21414:yes"
  const std::regex row(R"(^\s+[\d.]+%\s+(\d+)\s+(.+?)\s+(\d+):\S*\s*$)");
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_match(line, m, event_line)) {
      current = &out[m[1]];
      best.clear();
    } else if (current && std::regex_match(line, m, count_line)) {
      current->event_count = std::stoull(m[1]);
    } else if (current && std::regex_match(line, m, row)) {
      const auto tid = static_cast<std::uint32_t>(std::stoul(m[3]));
      const std::uint64_t n = std::stoull(m[1]);
      current->samples[tid] += n;
      if (n > best[tid]) best[tid] = n, current->comm[tid] = m[2];
    }
  }
  return out;
}

bool have_perf() {
  if (run_shell("command -v perf").exit_code == 0) return true;
  WARN("perf is not installed: the file is not checked with perf report");
  return false;
}

}  // namespace

TEST_CASE("record two events with call chains of several processes: perf report counts what our reader counts",
          "[record]") {
  if (!have_perf()) return;
  const std::string file = temp("multi.data");
  // Two children that make system calls (kernel samples) and fault pages in;
  // neither writes anywhere.
  const RunResult r = run_tagop(
      "record -e cpu-clock -e page-faults -g -F 2000 -o " + file +
      " -- sh -c 'timeout 0.4 sha1sum /dev/zero & timeout 0.4 md5sum /dev/zero; wait'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);

  tagop::perf_data::PerfDataReader reader(file);
  REQUIRE(reader.info().attrs.size() == 2);
  CHECK(reader.info().attrs[0].name == "cpu-clock");
  CHECK(reader.info().attrs[1].name == "page-faults");
  EventCounts ours;
  const auto summary = reader.read(ours);
  CHECK(!summary.truncated);
  CHECK(summary.skipped.count == 0);
  REQUIRE(ours.total >= 100);
  // Every sample has its call chain, which starts at its ip.
  CHECK(ours.chained == ours.total);
  CHECK(ours.kernel > 0);
  CHECK_THAT(r.err, Catch::Contains(fmt::format("wrote {} samples (", ours.total)));

  const auto perf = perf_report_by_thread(file);
  REQUIRE(perf.size() == 2);
  const char* names[] = {"cpu-clock", "page-faults"};
  std::set<std::string> busy_comms;
  for (std::uint32_t e = 0; e < 2; ++e) {
    INFO(names[e]);
    REQUIRE(perf.count(names[e]) == 1);
    const PerfEventReport& p = perf.at(names[e]);
    std::map<std::uint32_t, std::uint64_t> mine;
    for (const auto& [key, n] : ours.samples)
      if (key.first == e) mine[key.second] = n;
    CHECK(p.samples == mine);
    CHECK(p.event_count == ours.periods[e]);
    std::uint64_t sum = 0;
    for (const auto& [tid, n] : p.samples) {
      sum += n;
      if (n > 0) busy_comms.insert(p.comm.at(tid));
    }
    // And record said as much.
    CHECK_THAT(r.err, Catch::Contains(fmt::format("{} {}", sum, names[e])));
  }
  CHECK(busy_comms.count("md5sum") == 1);
  CHECK(busy_comms.count("sha1sum") == 1);
  // Each of the two children has its own row, named as the kernel named it.
  for (const char* comm : {"md5sum", "sha1sum"}) {
    std::uint32_t tid = 0;
    for (const auto& [t, name] : ours.comms)
      if (name == comm) tid = t;
    INFO(comm);
    REQUIRE(tid != 0);
    CHECK(perf.at("cpu-clock").samples.count(tid) == 1);
  }

  // perf names the kernel samples ([k] do_syscall_64, not [k] 0xffffffff...).
  const RunResult symbols = run_shell("perf report -i " + file + " --stdio --sort dso,sym --no-children -g none");
  REQUIRE(symbols.exit_code == 0);
  int kernel_rows = 0, unnamed = 0;
  std::istringstream lines(symbols.out);
  for (std::string line; std::getline(lines, line);)
    if (line.find("[kernel.kallsyms]") != std::string::npos) {
      ++kernel_rows;
      if (line.find("[k] 0x") != std::string::npos) ++unnamed;
    }
  INFO(symbols.out.substr(0, 3000));
  CHECK(kernel_rows > 0);
  CHECK(unnamed == 0);
  // perf follows the call chains: the system calls' callers are shown.
  const RunResult callers = run_shell("perf report -i " + file + " --stdio --no-children --sort sym -g caller");
  CHECK_THAT(callers.out, Catch::Contains("---"));
  fs::remove(file);
}

TEST_CASE("record writes the header perf writes: machine, command line, build-ids", "[record]") {
  if (!have_perf()) return;
  const std::string file = temp("header.data");
  const RunResult r = run_tagop("record -e cpu-clock -F 1000 -o " + file + " -- sh -c 'sha1sum /etc/hostname'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const RunResult header = run_shell("perf report --header-only -i " + file);
  REQUIRE(header.exit_code == 0);
  struct utsname u {};
  REQUIRE(::uname(&u) == 0);
  CHECK_THAT(header.out, Catch::Contains(fmt::format("# hostname : {}\n", u.nodename)));
  CHECK_THAT(header.out, Catch::Contains(fmt::format("# os release : {}\n", u.release)));
  CHECK_THAT(header.out, Catch::Contains(fmt::format("# arch : {}\n", u.machine)));
  CHECK_THAT(header.out, Catch::Contains(fmt::format("# nrcpus online : {}\n", ::sysconf(_SC_NPROCESSORS_ONLN))));
  CHECK_THAT(header.out, Catch::Contains("# cpuid : "));
  CHECK_THAT(header.out, Catch::Contains("# total memory : "));
  CHECK_THAT(header.out, Catch::Contains(fmt::format("# cmdline : {} record -e cpu-clock -F 1000 -o {} -- sh -c ",
                                                     fs::canonical(tagop_exe()).string(), file)));
  CHECK_THAT(header.out, Catch::Contains("# event : name = cpu-clock"));
  CHECK_THAT(header.out, Catch::Contains("# pmu mappings: software = 1"));

  // Build-ids: the kernel's is the running kernel's, as perf reads it; a
  // program's is the one in its ELF notes.
  const RunResult ids = run_shell("perf buildid-list -i " + file);
  REQUIRE(ids.exit_code == 0);
  const RunResult kernel = run_shell("perf buildid-list -k");
  if (kernel.exit_code == 0 && !kernel.out.empty())
    CHECK_THAT(ids.out, Catch::Contains(kernel.out.substr(0, kernel.out.find('\n')) + " [kernel.kallsyms]\n"));
  const RunResult sha1sum = run_shell("readlink -f $(command -v sha1sum)");
  const std::string path = sha1sum.out.substr(0, sha1sum.out.find('\n'));
  const RunResult notes = run_shell(fmt::format("readelf -n {} | sed -n 's/.*Build ID: //p'", path));
  CHECK_THAT(ids.out, Catch::Contains(notes.out.substr(0, notes.out.find('\n')) + " " + path + "\n"));
  // The kernel's text, as perf synthesises it, names the kernel map.
  const RunResult raw = run_shell("perf script -D -i " + file + " | grep -m1 'PERF_RECORD_MMAP -1/0'");
  CHECK_THAT(raw.out, Catch::Contains("[kernel.kallsyms]_text"));
  fs::remove(file);
}

TEST_CASE("record keeps an existing file when the command cannot run, and as FILE.old otherwise", "[record]") {
  const std::string file = temp("keep.data");
  std::ofstream(file) << "the old recording\n";
  const RunResult missing = run_tagop("record -o " + file + " -- /nonexistent/tagop-child");
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.err, Catch::Contains("cannot run '/nonexistent/tagop-child'"));
  std::string kept;
  std::getline(std::ifstream(file), kept);
  CHECK(kept == "the old recording");
  CHECK(!fs::exists(file + ".old"));
  // Nothing left beside it: the temporary file went with the failure.
  for (const auto& entry : fs::directory_iterator(fs::path(file).parent_path()))
    CHECK(entry.path().string().rfind(file + ".tagop-", 0) != 0);

  const RunResult ok = run_tagop("record -c 100000 -o " + file + " -- true");
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.err, Catch::Contains("the old file is " + file + ".old"));
  std::getline(std::ifstream(file + ".old"), kept);
  CHECK(kept == "the old recording");
  CHECK_NOTHROW(tagop::perf_data::PerfDataReader(file));
  fs::remove(file);
  fs::remove(file + ".old");
}

TEST_CASE("record exits with the command's status, 128 + N for signal N, and says so", "[record]") {
  const std::string file = temp("status.data");
  const RunResult three = run_tagop("record -c 100000 -o " + file + " -- sh -c 'exit 3'");
  CHECK(three.exit_code == 3);
  CHECK_THAT(three.err, Catch::Contains("sh exited with status 3"));
  const RunResult segv = run_tagop("record -c 100000 -o " + file + " -- sh -c 'kill -SEGV $$'");
  CHECK(segv.exit_code == 128 + SIGSEGV);
  CHECK_THAT(segv.err, Catch::Contains(fmt::format("sh was killed by signal {} (", SIGSEGV)));
  // The recording is whole all the same.
  CHECK_NOTHROW(tagop::perf_data::PerfDataReader(file));
  fs::remove(file);
  fs::remove(file + ".old");
}

TEST_CASE("SIGTERM to record reaches the command first; it is killed only after a grace", "[record]") {
  const std::string file = temp("term.data"), trapped = temp("trapped"), started = temp("started");
  // The signal is sent once the command runs (record starts it after its
  // own handlers are in place): a fixed sleep raced a slow, sanitised start.
  const std::string when_started = fmt::format("until [ -e {0} ]; do sleep 0.05; done; rm -f {0}", started);
  // The command's trap runs and decides its exit status.
  const RunResult polite = run_shell(fmt::format(
      "({} record -c 1000000 -o {} -- sh -c 'trap \"echo ran > {}; exit 7\" TERM; : > {}; while :; do :; done' & "
      "{}; kill -TERM $!; wait $!; echo \"status $?\")",
      tagop_exe(), file, trapped, started, when_started));
  INFO(polite.err);
  CHECK_THAT(polite.out, Catch::Contains("status 7"));
  std::string ran;
  std::getline(std::ifstream(trapped), ran);
  CHECK(ran == "ran");
  CHECK_THAT(polite.err, Catch::Contains("sh exited with status 7"));
  // A command that ignores it is killed 2 s later.
  const auto begin = std::chrono::steady_clock::now();
  const RunResult stubborn = run_shell(fmt::format(
      "({} record -c 1000000 -o {} -- sh -c 'trap \"\" TERM; : > {}; while :; do :; done' & "
      "{}; kill -TERM $!; wait $!; echo \"status $?\")",
      tagop_exe(), file, started, when_started));
  const auto took = std::chrono::steady_clock::now() - begin;
  CHECK_THAT(stubborn.out, Catch::Contains(fmt::format("status {}", 128 + SIGKILL)));
  CHECK(took >= std::chrono::seconds(2));  // the grace, counted from the signal
  CHECK_NOTHROW(tagop::perf_data::PerfDataReader(file));
  fs::remove(file);
  fs::remove(file + ".old");
  fs::remove(trapped);
}

TEST_CASE("record -p stops when the process ends", "[record]") {
  const std::string file = temp("gone.data");
  // No --duration: only the end of the process ends the recording.
  // Four seconds of CPU outlast record's start under a sanitizer and a
  // loaded machine (one, at 1 s, ended first).
  const RunResult r = run_shell(fmt::format("({} 4000 & timeout 60 {} record -c 100000 -p $! -o {}; echo \"status $?\")",
                                            env("TAGOP_BUSY"), tagop_exe(), file));
  INFO(r.err);
  CHECK_THAT(r.out, Catch::Contains("status 0"));
  tagop::perf_data::PerfDataReader reader(file);
  Capture c;
  reader.read(c);
  CHECK(c.samples >= 3);
  fs::remove(file);
}

TEST_CASE("record -p of a process that has ended says so", "[record]") {
  // A child that exits and is not reaped: a zombie, which the kernel lets
  // perf_event_open sample though it will never run again.
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) _exit(0);
  std::string state;
  for (int i = 0; i < 500 && state != "Z"; ++i) {
    std::ifstream stat(fmt::format("/proc/{}/stat", pid));
    const std::string text{std::istreambuf_iterator<char>(stat), {}};
    state = text.substr(text.rfind(')') + 2, 1);
    if (state != "Z") usleep(10000);
  }
  REQUIRE(state == "Z");
  const std::string file = temp("zombie.data");
  const RunResult r = run_tagop(fmt::format("record -c 100000 -p {} -o {}", pid, file));
  waitpid(pid, nullptr, 0);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains(fmt::format("process {} has ended", pid)));
  CHECK(!fs::exists(file));
}

TEST_CASE("record refuses what makes no sense: bad pids, durations, rates, call graphs", "[record]") {
  const std::string file = temp("refused2.data");
  const std::pair<const char*, const char*> refused[] = {
      {"-p -5", "-p -5: not a process id"},
      {"-p 0", "-p 0: not a process id"},
      {"-a --duration nan", "--duration nan: give a number of seconds above 0"},
      {"-a --duration inf", "--duration inf: give a number of seconds above 0"},
      {"-a --duration -1", "--duration -1: give a number of seconds above 0"},
      {"-a --duration 0", "--duration 0: give a number of seconds above 0"},
      {"-c 1000 -F 100 -- true", "-c (a period) and -F (a frequency) exclude each other"},
      {"--call-graph dwarf,70000 -- true", "the stack dump size must be a number from 1 to 65528"},
      {"--call-graph dwarf,0 -- true", "the stack dump size must be a number from 1 to 65528"},
      {"--call-graph dwarf,8k -- true", "the stack dump size must be a number from 1 to 65528"},
      {"--call-graph lbr -- true", "--call-graph lbr is not supported"},
      {"--call-graph sideways -- true", "--call-graph 'sideways': expected fp"},
  };
  for (const auto& [args, message] : refused) {
    const RunResult r = run_tagop(fmt::format("record -o {} {}", file, args));
    INFO(args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(message));
  }
  CHECK(!fs::exists(file));
  // -F and --call-graph fp as perf spells them.
  const RunResult fp = run_tagop("record -F 997 --call-graph fp -o " + file + " -- true");
  INFO(fp.err);
  REQUIRE(fp.exit_code == 0);
  tagop::perf_data::PerfDataReader reader(file);
  const auto& attr = reader.info().attrs.at(0).attr;
  CHECK(attr.freq == 1);
  CHECK(attr.sample_freq == 997);
  CHECK((attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0);
  fs::remove(file);
  // --call-graph dwarf,SIZE: SIZE rounded up to 8, the fields perf record sets.
  const RunResult dwarf = run_tagop("record --call-graph dwarf,100 -o " + file + " -- true");
  INFO(dwarf.err);
  REQUIRE(dwarf.exit_code == 0);
  tagop::perf_data::PerfDataReader dwarf_reader(file);
  const auto& d = dwarf_reader.info().attrs.at(0).attr;
  constexpr std::uint64_t dwarf_fields = PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
  CHECK((d.sample_type & dwarf_fields) == dwarf_fields);
  CHECK(d.sample_stack_user == 104);
  CHECK(d.sample_regs_user == 0xff0fffu);  // perf's PERF_REGS_MASK on x86_64
  CHECK(d.exclude_callchain_user == 1);
  CHECK(d.mmap_data == 1);
  fs::remove(file);
}

namespace {

// A small tmpfs to fill, mounted where this process may mount one (root in
// CI); unmounted on every path.
struct SmallDisk {
  std::string dir;
  bool mounted = false;
  explicit SmallDisk(const std::string& name) : dir(temp(name)) {
    fs::create_directories(dir);
    mounted = ::geteuid() == 0 && run_shell("mount -t tmpfs -o size=128k tagop-test " + dir).exit_code == 0;
  }
  ~SmallDisk() {
    if (mounted) run_shell("umount " + dir);
    fs::remove_all(dir);
  }
};

// The samples the message says the file kept.
std::uint64_t kept_samples(const std::string& err) {
  std::smatch m;
  REQUIRE(std::regex_search(err, m, std::regex(R"(keeps the (\d+) of (\d+) samples)")));
  CHECK(std::stoull(m[1]) < std::stoull(m[2]));
  return std::stoull(m[1]);
}

void check_kept_file(const std::string& file, std::uint64_t kept) {
  tagop::perf_data::PerfDataReader reader(file);
  Capture c;
  const auto summary = reader.read(c);
  CHECK(!summary.truncated);
  CHECK(summary.skipped.count == 0);
  CHECK(c.samples == kept);
  CHECK(kept > 0);
  if (run_shell("command -v perf").exit_code != 0) return;
  const RunResult perf = run_shell("perf report -i " + file + " --stdio -n --sort comm --no-children -g none");
  CHECK(perf.exit_code == 0);
  std::smatch m;
  std::uint64_t rows = 0;
  std::istringstream lines(perf.out);
  for (std::string line; std::getline(lines, line);)
    if (std::regex_match(line, m, std::regex(R"(^\s+[\d.]+%\s+(\d+)\s+\S.*$)"))) rows += std::stoull(m[1]);
  CHECK(rows == kept);
}

}  // namespace

TEST_CASE("a full disk is named, and the file keeps what was written, readable", "[record]") {
  // /dev/full: every write fails; nothing can be kept, and that is said.
  const RunResult full = run_tagop("record -c 100000 -o /dev/full -- true");
  CHECK(full.exit_code == 1);
  CHECK_THAT(full.err, Catch::Contains("/dev/full: the disk is full: No space left on device") &&
                           Catch::Contains("it is not a regular file"));

  // A file size limit (ulimit -f), which any user can set: the same cut
  // back to whole records, from EFBIG.
  const std::string limited = temp("limited.data");
  const RunResult over = run_shell(fmt::format(
      "(ulimit -f 200; {} record -F 20000 -g -o {} -- {} 600)", tagop_exe(), limited, env("TAGOP_BUSY")));
  INFO(over.err);
  CHECK(over.exit_code == 1);
  CHECK_THAT(over.err, Catch::Contains(limited + ": over the size limit of a file (ulimit -f)"));
  CHECK(fs::file_size(limited) <= 200 * 1024);
  check_kept_file(limited, kept_samples(over.err));
  fs::remove(limited);

  // A real full disk: a tmpfs of 128 KiB.
  SmallDisk disk("tmpfs");
  if (!disk.mounted) {
    WARN("cannot mount a tmpfs here (needs root): the full-disk run is not checked");
    return;
  }
  const std::string file = disk.dir + "/full.data";
  const RunResult r = run_tagop(fmt::format("record -F 20000 -g -o {} -- {} 600", file, env("TAGOP_BUSY")));
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains(file + ": the disk is full: No space left on device"));
  check_kept_file(file, kept_samples(r.err));
}

TEST_CASE("Ctrl-C at a terminal reaches the command once: record does not pass it on again", "[record]") {
  // The terminal sends SIGINT to its whole foreground process group,
  // record and its command alike; a second copy from record would run the
  // command's trap twice.
  const std::string file = temp("ctrlc.data"), traps = temp("traps"), ready = temp("trap-ready");
  fs::remove(traps);
  fs::remove(ready);
  const std::string exe = tagop_exe();
  // The command says when its trap is set: before that, Ctrl-C would end it.
  const std::string script = fmt::format(
      "trap 'echo INT >> {}' INT; : > {}; n=0; while [ $n -lt 400000 ]; do n=$((n+1)); done", traps, ready);
  int terminal = -1;
  const pid_t pid = ::forkpty(&terminal, nullptr, nullptr, nullptr);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::execl(exe.c_str(), exe.c_str(), "record", "-c", "1000000", "-o", file.c_str(), "--", "sh", "-c", script.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  for (int waited = 0; !fs::exists(ready) && waited < 30000; waited += 10) ::usleep(10000);
  REQUIRE(fs::exists(ready));
  REQUIRE(::write(terminal, "\x03", 1) == 1);
  // Drain the terminal so that nothing blocks on it.
  std::string seen;
  char buffer[512];
  for (;;) {
    const ssize_t n = ::read(terminal, buffer, sizeof buffer);
    if (n <= 0) break;  // EIO once the other side is gone
    seen.append(buffer, static_cast<std::size_t>(n));
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  ::close(terminal);
  INFO(seen);
  // The trap ran once, the loop went on to its end, and record waited for it.
  std::ifstream in(traps);
  int lines = 0;
  for (std::string line; std::getline(in, line);) lines += line == "INT";
  CHECK(lines == 1);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK_NOTHROW(tagop::perf_data::PerfDataReader(file));
  fs::remove(file);
  fs::remove(traps);
  fs::remove(ready);
}
