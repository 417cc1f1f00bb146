// SamplingSession on this machine: cpu-clock samples of a child (the
// command's and a running process's), and the errors for each reason
// sampling cannot start. Where the machine has IBS, the same run goes
// through ibs_op and says so.

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <fmt/format.h>

#include <tagop/amd_ibs/live_decoder.hpp>
#include <tagop/amd_ibs/programmer.hpp>
#include <tagop/error.hpp>
#include <tagop/sampling_session.hpp>

#include "../busy_child.hpp"

using namespace std::chrono_literals;
using tagop::SamplingSession;
using tagop::SessionOptions;

namespace {

bool has_pmu(const char* name) {
  return std::filesystem::exists(std::string("/sys/bus/event_source/devices/") + name);
}

// cpu-clock every 100000 ns (10 kHz): ~3000 samples of a 300 ms child on
// an idle CPU; far fewer on a loaded one, never none.
tagop::PerfEvent sampling_event() {
  if (has_pmu("ibs_op")) {
    WARN("ran against: ibs_op (AMD IBS)");
    tagop::amd_ibs::IbsRequest r;
    r.family = 0x17;
    r.period = 0x10000;
    return tagop::amd_ibs::program(r).perf_events.front();
  }
  WARN("ran against: cpu-clock (no hardware PMU)");
  tagop::PerfEvent e = *tagop::software_event("cpu-clock");
  e.attr.sample_period = 100000;
  return e;
}

std::string error_of(SessionOptions o) {
  try {
    SamplingSession s(std::move(o));
    s.start();
  } catch (const tagop::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the samples of a command belong to it, and the kernel names it", "[record]") {
  SamplingSession s({.events = {sampling_event()}, .command = {busy(), "300"}});
  const pid_t child = s.child();
  REQUIRE(child > 0);
  std::uint64_t samples = 0, foreign = 0;
  bool named = false;
  s.start();
  auto each = [&](const tagop::SessionRecord& r) {
    if (r.header.type == PERF_RECORD_SAMPLE) {
      tagop::perf_data::SampleRecord rec;
      REQUIRE(tagop::perf_data::parse_sample(s.events()[r.event].attr, r.body, rec).empty());
      ++samples;
      if (rec.id.pid != static_cast<std::uint32_t>(child)) ++foreign;
    } else if (r.header.type == PERF_RECORD_COMM) {
      // pid, tid, then the name, NUL-terminated.
      std::uint32_t pid = 0;
      std::memcpy(&pid, r.body.data(), 4);
      const char* comm = reinterpret_cast<const char*>(r.body.data() + 8);
      if (pid == static_cast<std::uint32_t>(child) && std::string(comm) == "tagop_busy") named = true;
    }
  };
  while (s.child_running()) {
    s.wait(50ms);
    s.read_records(each);
  }
  s.stop();
  s.read_records(each);
  REQUIRE(s.child_status());
  CHECK(WIFEXITED(*s.child_status()));
  CHECK(WEXITSTATUS(*s.child_status()) == 0);
  CHECK(samples >= 5);
  CHECK(foreign == 0);
  CHECK(named);
  CHECK(s.samples() == samples);
  CHECK(s.events().front().attr.sample_id_all == 1);
  CHECK(s.events().front().ids.size() == s.cpus().size());
}

TEST_CASE("collect gives op samples of the child with nothing else observed", "[record]") {
  SamplingSession s({.events = {sampling_event()}, .command = {busy(), "250"}});
  if (has_pmu("ibs_op")) tagop::amd_ibs::decode_ibs_samples(s);
  const auto samples = s.collect(10s);
  REQUIRE(samples.size() >= 5);
  const std::set<int> cpus(s.cpus().begin(), s.cpus().end());
  for (const tagop::Sample& x : samples) {
    CHECK(x.pid == static_cast<std::uint32_t>(s.child()));
    CHECK(x.kind() == tagop::SampleKind::op);
    CHECK(x.ip != 0);
    CHECK(x.time != 0);
    CHECK(cpus.count(static_cast<int>(x.cpu)) == 1);
    if (!has_pmu("ibs_op")) CHECK(x.observed == tagop::ConditionSet{tagop::condition("op")});
    // IBS op samples observe far more than their kind: loads, branches ...
    else CHECK(x.observed.contains(tagop::condition("load")));
  }
  CHECK(s.lost() == 0);
  CHECK(s.undecoded() == 0);
}

TEST_CASE("IBS decoding refuses a session without IBS events", "[record]") {
  tagop::PerfEvent e = *tagop::software_event("cpu-clock");
  e.attr.sample_period = 100000;
  SamplingSession s({.events = {e}, .command = {busy(), "1"}});
  const tagop::CpuId family_17h{"AuthenticAMD", 0x17, 1, 2};
  CHECK_THROWS_WITH(tagop::amd_ibs::decode_ibs_samples(s, family_17h), Catch::Contains("no IBS events"));
}

TEST_CASE("a running process is sampled by pid", "[record]") {
  const std::string path = busy();
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    execl(path.c_str(), path.c_str(), "400", static_cast<char*>(nullptr));
    _exit(127);
  }
  std::vector<tagop::Sample> samples;
  {
    SamplingSession s({.events = {sampling_event()}, .pid = pid});
    samples = s.collect(250ms);
    CHECK(s.child() == -1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  REQUIRE(samples.size() >= 3);
  for (const tagop::Sample& x : samples) CHECK(x.pid == static_cast<std::uint32_t>(pid));
}

TEST_CASE("a machine without IBS says which PMU is missing and why", "[record]") {
  if (has_pmu("ibs_op")) {
    WARN("ibs_op exists here: the missing-PMU message is not checked");
    return;
  }
  tagop::amd_ibs::IbsRequest r;
  r.family = 0x17;
  const std::string message = error_of({.events = tagop::amd_ibs::program(r).perf_events, .all_cpus = true});
  CHECK_THAT(message, Catch::Contains("/sys/bus/event_source/devices/ibs_op: no such PMU on this machine"));
  CHECK_THAT(message, Catch::Contains("AMD Family 10h or later"));
}

TEST_CASE("a precise event the hardware cannot do is refused with what was asked", "[record]") {
  if (has_pmu("cpu")) {
    WARN("this machine has a cpu PMU: the refusal is not checked");
    return;
  }
  // BR_INST_RETIRED.ALL_BRANCHES (event 0xC4, umask 0x00 on Silvermont) as
  // a raw event with PEBS (precise_ip 2).
  tagop::PerfEvent e{.pmu = "", .attr = tagop::make_perf_attr(), .description = "BR_INST_RETIRED.ALL_BRANCHES"};
  e.attr.type = PERF_TYPE_RAW;
  e.attr.config = 0xC4;
  e.attr.precise_ip = 2;
  e.attr.sample_period = 10007;
  const std::string message = error_of({.events = {e}, .command = {busy(), "1"}});
  CHECK_THAT(message, Catch::Contains("refused this configuration"));
  CHECK_THAT(message, Catch::Contains(fmt::format("type {}, config 0xc4, precise_ip 2, period 10007", PERF_TYPE_RAW)));
}

TEST_CASE("perf_event_paranoid is named with the sysctl that allows it", "[record]") {
  std::string text;
  {
    std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
    std::getline(in, text);
  }
  if (geteuid() != 0 || std::stoi(text) <= 0) {
    WARN("needs root (to drop to nobody) and perf_event_paranoid > 0");
    return;
  }
  // Drop to nobody in a child: system-wide sampling then needs paranoid <= 0.
  int out[2];
  REQUIRE(pipe(out) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(out[0]);
    std::string message = "setuid failed";
    if (setgid(65534) == 0 && setuid(65534) == 0) {
      tagop::PerfEvent e = *tagop::software_event("cpu-clock");
      e.attr.sample_period = 100000;
      message = error_of({.events = {e}, .all_cpus = true});
    }
    [[maybe_unused]] auto n = write(out[1], message.data(), message.size());
    _exit(0);
  }
  close(out[1]);
  std::string message;
  char buf[512];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) message.append(buf, static_cast<std::size_t>(n));
  close(out[0]);
  waitpid(pid, nullptr, 0);
  CHECK_THAT(message, Catch::Contains("/proc/sys/kernel/perf_event_paranoid is " + text));
  CHECK_THAT(message, Catch::Contains("sysctl kernel.perf_event_paranoid=0"));
}

TEST_CASE("a command that cannot run, and options that make no sense, are errors", "[record]") {
  tagop::PerfEvent e = *tagop::software_event("cpu-clock");
  e.attr.sample_period = 100000;
  CHECK_THAT(error_of({.events = {e}, .command = {"/nonexistent/tagop-child"}}),
             Catch::Contains("cannot run '/nonexistent/tagop-child': No such file or directory"));
  CHECK_THAT(error_of({.events = {}, .all_cpus = true}), Catch::Contains("no event"));
  CHECK_THAT(error_of({.events = {e}, .all_cpus = true, .pid = 1}), Catch::Contains("exactly one of"));
  CHECK_THAT(error_of({.events = {e}, .all_cpus = true, .buffer_pages = 3}), Catch::Contains("not a power of two"));
  CHECK(!tagop::software_event("cycles"));
  CHECK_THROWS_AS(tagop::libpfm_event("no_such_event_anywhere"), tagop::Error);
}

TEST_CASE("host_cpuid and online_cpus read this machine", "[record]") {
  const std::string id = tagop::host_cpuid();
  REQUIRE(!id.empty());
  CHECK(std::count(id.begin(), id.end(), ',') == 3);
  CHECK(tagop::online_cpus().size() == static_cast<std::size_t>(sysconf(_SC_NPROCESSORS_ONLN)));
}

TEST_CASE("several events share each CPU's ring buffer, and each record names its event", "[record]") {
  // cpu-clock every 100000 ns and every page fault: the periods the
  // samples carry say which event took them, whatever the buffer.
  tagop::PerfEvent clock = *tagop::software_event("cpu-clock");
  clock.attr.sample_period = 100000;
  tagop::PerfEvent faults = *tagop::software_event("page-faults");
  faults.attr.sample_period = 1;
  SamplingSession s({.events = {clock, faults}, .command = {busy(), "200"}});
  REQUIRE(s.events().size() == 2);
  std::uint64_t by_event[2] = {0, 0}, wrong_period = 0;
  s.start();
  auto each = [&](const tagop::SessionRecord& r) {
    if (r.header.type != PERF_RECORD_SAMPLE) return;
    tagop::perf_data::SampleRecord rec;
    REQUIRE(tagop::perf_data::parse_sample(s.events()[r.event].attr, r.body, rec).empty());
    ++by_event[r.event];
    if (rec.period != (r.event == 0 ? 100000u : 1u)) ++wrong_period;
  };
  while (s.child_running()) {
    s.wait(50ms);
    s.read_records(each);
  }
  s.stop();
  s.read_records(each);
  CHECK(by_event[0] >= 5);
  // A program's start maps in its pages one fault at a time.
  CHECK(by_event[1] >= 20);
  CHECK(wrong_period == 0);
  CHECK(s.samples_by_event()[0] == by_event[0]);
  CHECK(s.samples_by_event()[1] == by_event[1]);
  CHECK(s.samples() == by_event[0] + by_event[1]);
  // Only the first event reports COMM and MMAP; each event has an id per CPU.
  CHECK(s.events()[0].attr.comm == 1);
  CHECK(s.events()[1].attr.comm == 0);
  CHECK(s.events()[1].ids.size() == s.cpus().size());
}

TEST_CASE("call chains: each sample's chain starts at its own ip", "[record]") {
  tagop::PerfEvent clock = *tagop::software_event("cpu-clock");
  clock.attr.sample_period = 100000;
  SamplingSession s({.events = {clock}, .command = {busy(), "200"}, .callchains = true});
  CHECK((s.events()[0].attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0);
  std::uint64_t samples = 0, chained = 0;
  s.start();
  auto each = [&](const tagop::SessionRecord& r) {
    if (r.header.type != PERF_RECORD_SAMPLE) return;
    tagop::perf_data::SampleRecord rec;
    REQUIRE(tagop::perf_data::parse_sample(s.events()[0].attr, r.body, rec).empty());
    ++samples;
    // PERF_CONTEXT_USER or _KERNEL, then the sampled ip, then its callers.
    if (rec.callchain_nr < 2) return;
    std::uint64_t context = 0, first = 0;
    std::memcpy(&context, rec.callchain.data(), 8);
    std::memcpy(&first, rec.callchain.data() + 8, 8);
    if ((context == PERF_CONTEXT_USER || context == PERF_CONTEXT_KERNEL) && first == rec.ip) ++chained;
  };
  while (s.child_running()) {
    s.wait(50ms);
    s.read_records(each);
  }
  s.stop();
  s.read_records(each);
  REQUIRE(samples >= 5);
  CHECK(chained == samples);
}

TEST_CASE("target_running: a process by pid is gone when it exits, even before it is reaped", "[record]") {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    usleep(150000);
    _exit(0);
  }
  tagop::PerfEvent clock = *tagop::software_event("cpu-clock");
  clock.attr.sample_period = 100000;
  SamplingSession s({.events = {clock}, .pid = pid});
  s.start();
  CHECK(s.target_running());
  const auto begin = std::chrono::steady_clock::now();
  while (s.target_running() && std::chrono::steady_clock::now() - begin < 5s) s.wait(20ms);
  CHECK(!s.target_running());
  // Not reaped yet: a zombie, which is no longer running.
  CHECK(!tagop::process_running(pid));
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(!tagop::process_running(pid));
  CHECK(tagop::process_running(getpid()));
}

TEST_CASE("end_child: SIGTERM first, SIGKILL only after the grace", "[record]") {
  tagop::PerfEvent clock = *tagop::software_event("cpu-clock");
  clock.attr.sample_period = 1000000;
  {
    SamplingSession s({.events = {clock}, .command = {busy(), "5000"}});
    s.start();
    s.end_child(2s);
    REQUIRE(s.child_status());
    CHECK(WIFSIGNALED(*s.child_status()));
    CHECK(WTERMSIG(*s.child_status()) == SIGTERM);
  }
  {
    SamplingSession s({.events = {clock}, .command = {"sh", "-c", "trap '' TERM; while :; do :; done"}});
    s.start();
    usleep(100000);  // past the trap
    const auto begin = std::chrono::steady_clock::now();
    s.end_child(300ms);
    const auto took = std::chrono::steady_clock::now() - begin;
    REQUIRE(s.child_status());
    CHECK(WIFSIGNALED(*s.child_status()));
    CHECK(WTERMSIG(*s.child_status()) == SIGKILL);
    CHECK(took >= 300ms);
    CHECK(!s.signal_child(SIGTERM));  // it is gone
  }
}

TEST_CASE("perf's software events by their names", "[record]") {
  // tools/perf/util/parse-events.c: name -> PERF_COUNT_SW_*.
  const std::pair<const char*, std::uint64_t> names[] = {
      {"cpu-clock", 0}, {"task-clock", 1}, {"page-faults", 2}, {"faults", 2}, {"context-switches", 3}, {"cs", 3},
      {"cpu-migrations", 4}, {"migrations", 4}, {"minor-faults", 5}, {"major-faults", 6}, {"alignment-faults", 7},
      {"emulation-faults", 8}, {"dummy", 9}};
  for (const auto& [name, config] : names) {
    INFO(name);
    const auto e = tagop::software_event(name);
    REQUIRE(e);
    CHECK(e->attr.type == PERF_TYPE_SOFTWARE);
    CHECK(e->attr.config == config);
  }
  CHECK(tagop::software_event_names().size() == 10);
  CHECK(tagop::software_event_names().front() == "cpu-clock");
  CHECK(!tagop::software_event("pagefaults"));
}
