// The code a tagop::Error carries, where a program branches on it: a
// missing file is io, a damaged one damaged, an IBS event on a machine
// without IBS no_pmu, a perf_event_open refusal by its errno as
// perf_event_open(2) documents them.

#include <catch2/catch.hpp>

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

#include <tagop/amd_ibs/programmer.hpp>
#include <tagop/error.hpp>
#include <tagop/perf_data_reader.hpp>
#include <tagop/sampling_session.hpp>

using tagop::ErrorCode;

namespace {

template <class F>
ErrorCode code_of(F&& f) {
  try {
    f();
  } catch (const tagop::Error& e) {
    return e.code();
  }
  FAIL("no tagop::Error was thrown");
  return ErrorCode::internal;
}

bool has_pmu(const char* name) { return std::filesystem::exists(std::string("/sys/bus/event_source/devices/") + name); }

std::filesystem::path temp_file(const std::string& name, const std::string& bytes) {
  const auto path = std::filesystem::temp_directory_path() / ("tagop-error-code-" + std::to_string(getpid()) + name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

}  // namespace

TEST_CASE("an Error made from a message alone is bad_input; the code is kept", "[error]") {
  CHECK(tagop::Error("x").code() == ErrorCode::bad_input);
  const tagop::Error e(ErrorCode::paranoid, "perf_event_paranoid is 3");
  CHECK(e.code() == ErrorCode::paranoid);
  CHECK(std::string(e.what()) == "perf_event_paranoid is 3");
  CHECK(tagop::to_string(ErrorCode::no_pmu) == "no_pmu");
  CHECK(tagop::to_string(ErrorCode::not_supported) == "not_supported");
}

TEST_CASE("perf_event_open's errno values map to what a program must do about them", "[error]") {
  // perf_event_open(2), ERRORS: EACCES/EPERM (paranoid or capability),
  // ENOENT (type not valid: no such PMU), ENODEV (feature not supported by
  // this CPU), EOPNOTSUPP and EINVAL (configuration refused), ESRCH (no such
  // pid), EMFILE (too many open events).
  using tagop::perf_event_open_error_code;
  CHECK(perf_event_open_error_code(EACCES, true) == ErrorCode::paranoid);
  CHECK(perf_event_open_error_code(EPERM, true) == ErrorCode::paranoid);
  CHECK(perf_event_open_error_code(EACCES, false) == ErrorCode::permission);
  CHECK(perf_event_open_error_code(EPERM, false) == ErrorCode::permission);
  CHECK(perf_event_open_error_code(ENOENT, false) == ErrorCode::no_pmu);
  CHECK(perf_event_open_error_code(ENODEV, false) == ErrorCode::no_pmu);
  CHECK(perf_event_open_error_code(EOPNOTSUPP, false) == ErrorCode::not_supported);
  CHECK(perf_event_open_error_code(EINVAL, false) == ErrorCode::not_supported);
  CHECK(perf_event_open_error_code(ESRCH, false) == ErrorCode::not_found);
  CHECK(perf_event_open_error_code(EMFILE, false) == ErrorCode::resource);
  CHECK(perf_event_open_error_code(EIO, false) == ErrorCode::io);
}

TEST_CASE("a missing perf.data is io, a damaged one damaged", "[error]") {
  CHECK(code_of([] { tagop::perf_data::PerfDataReader r("/nonexistent/tagop/perf.data"); }) == ErrorCode::io);
  const auto short_file = temp_file("short", "PERFILE2");
  CHECK(code_of([&] { tagop::perf_data::PerfDataReader r(short_file.string()); }) == ErrorCode::damaged);
  const auto not_perf = temp_file("garbage", std::string(4096, 'x'));
  CHECK(code_of([&] { tagop::perf_data::PerfDataReader r(not_perf.string()); }) == ErrorCode::damaged);
  std::filesystem::remove(short_file);
  std::filesystem::remove(not_perf);
}

TEST_CASE("an IBS event on a machine without IBS is no_pmu", "[error]") {
  if (has_pmu("ibs_op")) {
    WARN("ibs_op exists here: not checked");
    return;
  }
  tagop::amd_ibs::IbsRequest r;
  r.family = 0x17;
  const auto events = tagop::amd_ibs::program(r).perf_events;
  CHECK(code_of([&] { tagop::SamplingSession s({.events = events, .all_cpus = true}); }) == ErrorCode::no_pmu);

  // The same event given to perf_event_open with a PMU type this kernel has
  // not registered (what a stale type number from another machine does):
  // the code follows the errno the kernel gives.
  tagop::PerfEvent stale = events.front();
  stale.pmu.clear();
  stale.attr.type = 0x7000;
  perf_event_attr a = stale.attr;
  a.size = sizeof a;
  a.disabled = 1;
  errno = 0;
  const long fd = ::syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
  REQUIRE(fd < 0);
  const int err = errno;
  INFO("perf_event_open with an unregistered type gives errno " << err);
  CHECK(err == ENOENT);  // kernel/events/core.c: perf_init_event() finds no PMU of that type
  CHECK(code_of([&] { tagop::SamplingSession s({.events = {stale}, .pid = getpid()}); }) == ErrorCode::no_pmu);
}

TEST_CASE("a hardware event where the VM has no PMU for it follows its errno", "[error]") {
  tagop::PerfEvent raw;
  raw.attr.type = PERF_TYPE_RAW;
  raw.attr.size = sizeof raw.attr;
  raw.attr.config = 0x00c4;  // BR_INST_RETIRED.ALL_BRANCHES on Intel
  raw.attr.sample_period = 100000;
  perf_event_attr a = raw.attr;
  a.disabled = 1;
  a.exclude_kernel = 1;
  const long fd = ::syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
  if (fd >= 0) {
    ::close(static_cast<int>(fd));
    WARN("this machine has a PMU for raw events: not checked");
    return;
  }
  const int err = errno;
  INFO("perf_event_open(PERF_TYPE_RAW) gives errno " << err);
  const ErrorCode code = code_of([&] { tagop::SamplingSession s({.events = {raw}, .pid = getpid()}); });
  CHECK(code == tagop::perf_event_open_error_code(err, false));
  CHECK((code == ErrorCode::no_pmu || code == ErrorCode::not_supported));
}
