// live_samples(session): a live session's samples as a range-v3 input
// range, on cpu-clock (a software event: no hardware PMU here) with a busy
// child (TAGOP_BUSY spins for the CPU milliseconds it is given).

#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <chrono>
#include <string>

#include <range/v3/view/take.hpp>

#include <tagop/error.hpp>
#include <tagop/live_samples.hpp>
#include <tagop/sampling_session.hpp>

#include "../busy_child.hpp"

namespace {

// cpu-clock every 100000 ns of the child's CPU time: 10 samples per CPU ms.
tagop::PerfEvent clock_event() {
  tagop::PerfEvent e = *tagop::software_event("cpu-clock");
  e.attr.sample_period = 100000;
  return e;
}

}  // namespace

TEST_CASE("a live session's samples as a range: every one the child's, to the child's end", "[record]") {
  tagop::SamplingSession s({.events = {clock_event()}, .command = {busy(), "200"}});
  const auto child = static_cast<std::uint32_t>(s.child());
  std::size_t count = 0, others = 0;
  for (const tagop::Sample& sample : tagop::live_samples(s)) {
    ++count;
    if (sample.pid != child || sample.tid != child) ++others;
  }
  // The range ended because the child did: it has exited, normally.
  REQUIRE(s.child_status().has_value());
  CHECK(WIFEXITED(*s.child_status()));
  CHECK(WEXITSTATUS(*s.child_status()) == 0);
  CHECK(others == 0);
  // 200 ms of CPU at 10 per ms is ~2000; a loaded machine loses some
  // ticks, never most of them.
  CHECK(count > 200);
  // Nothing read was dropped: the range handed out every sample the session read.
  CHECK(count == s.samples());
  CHECK(s.undecoded() == 0);
}

TEST_CASE("take(n) on a live range stops after n samples, the child still running", "[record]") {
  // 5 s of CPU: far longer than 30 samples (3 ms of it) take.
  tagop::SamplingSession s({.events = {clock_event()}, .command = {busy(), "5000"}});
  const auto child = static_cast<std::uint32_t>(s.child());
  const auto started = std::chrono::steady_clock::now();
  std::size_t count = 0, others = 0;
  for (const tagop::Sample& sample : tagop::live_samples(s) | ranges::views::take(30)) {
    ++count;
    if (sample.pid != child) ++others;
  }
  CHECK(count == 30);
  CHECK(others == 0);
  CHECK(s.child_running());  // the loop ended by take, not by the child's end
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
  // The session ends the child when it is destroyed (its own contract).
}

TEST_CASE("a live range over a child that samples nothing ends, empty", "[record]") {
  tagop::SamplingSession s({.events = {clock_event()}, .command = {busy(), "0"}});
  std::size_t count = 0;
  for ([[maybe_unused]] const tagop::Sample& sample : tagop::live_samples(s)) ++count;
  CHECK(s.child_status().has_value());
  CHECK(count == s.samples());
}

TEST_CASE("a live range is single-pass: a second begin() is an error", "[record]") {
  tagop::SamplingSession s({.events = {clock_event()}, .command = {busy(), "0"}});
  auto range = tagop::live_samples(s);
  for ([[maybe_unused]] const tagop::Sample& sample : range) {
  }
  CHECK_THROWS_AS(range.begin(), tagop::Error);
}
