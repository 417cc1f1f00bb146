// PerfDataWriter when a write fails part-way (a file over its size limit
// here, which needs no privileges; a full disk takes the same path): the
// file it leaves is whole, read by our reader and by perf, with the
// samples the writer says it kept. And the feature sections perf reads.

#include <tagop/perf_data_writer.hpp>

#include <catch2/catch.hpp>

#include <signal.h>        // signal, SIGXFSZ
#include <sys/resource.h>  // setrlimit, RLIMIT_FSIZE
#include <sys/wait.h>      // waitpid
#include <unistd.h>        // fork, pipe

#include <cerrno>      // EFBIG
#include <cstring>     // std::memcpy
#include <filesystem>  // std::filesystem
#include <regex>       // std::regex
#include <sstream>     // std::istringstream
#include <string>      // std::string

#include <fmt/format.h>

#include <tagop/error.hpp>
#include <tagop/perf_data_reader.hpp>

#include "run_command.hpp"

namespace fs = std::filesystem;
using namespace tagop::perf_data;

namespace {

std::string temp(const std::string& name) {
  return (fs::temp_directory_path() / fmt::format("tagop-writer-{}-{}", ::getpid(), name)).string();
}

perf_event_attr cpu_clock_attr() {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_period = 100000;
  a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
  a.sample_id_all = 1;
  return a;
}

struct Counted : RecordHandler {
  std::uint64_t samples = 0, comms = 0;
  std::uint64_t last_ip = 0;
  bool in_order = true;
  void sample(const SampleRecord& s) override {
    in_order &= s.ip == last_ip + 1;
    last_ip = s.ip;
    ++samples;
  }
  void comm(const CommRecord&) override { ++comms; }
};

struct ChildResult {
  int error = 0;
  std::uint64_t samples = 0, written = 0;
};

// Writes `samples` samples (ips 1, 2, 3 ...) under a file size limit of
// `limit` bytes in a child process, and says what the writer reported.
ChildResult write_limited(const std::string& path, std::uint64_t samples, rlim_t limit) {
  int report[2];
  REQUIRE(::pipe(report) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(report[0]);
    ::signal(SIGXFSZ, SIG_IGN);  // EFBIG instead of the signal
    const rlimit r{limit, limit};
    ::setrlimit(RLIMIT_FSIZE, &r);
    ChildResult out;
    try {
      PerfDataWriter w(path, {{.attr = cpu_clock_attr(), .ids = {7}, .name = "cpu-clock"}},
                       {.cpuid = "AuthenticAMD,25,1,1", .hostname = "limited", .cmdline = {"/bin/tagop", "record"}});
      w.comm(10, 10, "worker");
      try {
        for (std::uint64_t i = 1; i <= samples; ++i) {
          w.sample(0, {.ip = i, .pid = 10, .tid = 10, .time = i, .period = 100000});
          ++out.written;
        }
      } catch (const tagop::Error&) {
      }
      w.finish();
      out.error = w.write_error();
      out.samples = w.samples();
    } catch (const tagop::Error&) {
      out.error = -1;
    }
    [[maybe_unused]] auto n = ::write(report[1], &out, sizeof out);
    ::_exit(0);
  }
  ::close(report[1]);
  ChildResult out;
  REQUIRE(::read(report[0], &out, sizeof out) == sizeof out);
  ::close(report[0]);
  ::waitpid(pid, nullptr, 0);
  return out;
}

}  // namespace

TEST_CASE("after a failed write, the file ends at a whole record and is read whole", "[perfdata]") {
  const std::string path = temp("limited.data");
  // 1 M samples of 40 bytes: 40 MB, far over a 1 MB limit. The first 4 MiB
  // write fails part-way; what reached the file is kept, to 64 KiB.
  const ChildResult r = write_limited(path, 1'000'000, 1 << 20);
  CHECK(r.error == EFBIG);
  CHECK(r.written < 1'000'000);
  REQUIRE(r.samples > 0);
  const auto size = fs::file_size(path);
  CHECK(size <= 1 << 20);
  CHECK(size > (1 << 20) - 3 * 64 * 1024);  // at most a checkpoint step or two lost, and room for features
  PerfDataReader reader(path);
  CHECK(reader.info().hostname == "limited");
  Counted c;
  const ReadSummary s = reader.read(c);
  CHECK(!s.truncated);
  CHECK(s.skipped.count == 0);
  CHECK(c.comms == 1);
  CHECK(c.samples == r.samples);
  CHECK(c.in_order);  // the first samples, none missing
  if (run_shell("command -v perf").exit_code == 0) {
    const RunResult perf = run_shell("perf report -i " + path + " --stdio -n --sort comm");
    CHECK(perf.exit_code == 0);
    CHECK_THAT(perf.out, Catch::Contains(fmt::format("{}  worker", r.samples)));
  }
  fs::remove(path);
}

TEST_CASE("when nothing fits but the header, the file has no data and is still read", "[perfdata]") {
  const std::string path = temp("tiny.data");
  // The header, the attr and a feature or two fit in 4 KiB; no sample does.
  const ChildResult r = write_limited(path, 100'000, 4096);
  CHECK(r.error == EFBIG);
  CHECK(r.samples == 0);
  PerfDataReader reader(path);
  Counted c;
  const ReadSummary s = reader.read(c);
  CHECK(!s.truncated);
  CHECK(c.samples == 0);
  fs::remove(path);
}

TEST_CASE("the machine's features as perf reads them", "[perfdata]") {
  if (run_shell("command -v perf").exit_code != 0) {
    WARN("perf is not installed: the features are not checked with it");
    return;
  }
  const std::string path = temp("features.data");
  {
    PerfDataWriter w(path, {{.attr = cpu_clock_attr(), .ids = {7}, .name = "cpu-clock"}},
                     {.cpuid = "GenuineIntel,6,85,4",
                      .pmu_mappings = {{1, "software"}, {4, "cpu"}},
                      .build_ids = {{.pid = -1, .cpumode = misc_kernel, .build_id = std::string(40, 'a'),
                                     .filename = "[kernel.kallsyms]"},
                                    {.pid = -1, .cpumode = misc_user, .build_id = std::string(32, 'b'),
                                     .filename = "/usr/lib/libshort-id.so"}},
                      .hostname = "box",
                      .os_release = "6.1.0-test",
                      .arch = "x86_64",
                      .cpus = CpuCount{8, 6},
                      .cpu_description = "Test CPU @ 1.00GHz",
                      .total_memory_kb = 123456,
                      .cmdline = {"/usr/bin/tagop", "record", "-e", "cpu-clock"}});
    w.mmap(static_cast<std::uint32_t>(-1), 0, 0xffffffff81000000, 0x1000000, 0xffffffff81000000,
           "[kernel.kallsyms]_text");
    w.finished_round();
    w.finish();
  }
  const RunResult header = run_shell("perf report --header-only -i " + path);
  REQUIRE(header.exit_code == 0);
  for (const char* line : {"# hostname : box\n", "# os release : 6.1.0-test\n", "# arch : x86_64\n",
                           "# nrcpus online : 6\n", "# nrcpus avail : 8\n", "# cpudesc : Test CPU @ 1.00GHz\n",
                           "# cpuid : GenuineIntel,6,85,4\n", "# total memory : 123456 kB\n",
                           "# cmdline : /usr/bin/tagop record -e cpu-clock \n",
                           "# pmu mappings: software = 1, cpu = 4\n"}) {
    INFO(header.out);
    CHECK_THAT(header.out, Catch::Contains(line));
  }
  const RunResult ids = run_shell("perf buildid-list -i " + path);
  CHECK_THAT(ids.out, Catch::Contains(std::string(40, 'a') + " [kernel.kallsyms]\n"));
  // A 16-byte id, as its size says (perf pads the column to 40).
  CHECK(std::regex_search(ids.out, std::regex("\n" + std::string(32, 'b') + " +/usr/lib/libshort-id.so\n")));
  const RunResult raw = run_shell("perf script -D -i " + path);
  CHECK_THAT(raw.out, Catch::Contains("PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1000000) @ 0xffffffff81000000]: "
                                      "x [kernel.kallsyms]_text"));
  CHECK_THAT(raw.out, Catch::Contains("PERF_RECORD_FINISHED_ROUND"));
  fs::remove(path);
}
