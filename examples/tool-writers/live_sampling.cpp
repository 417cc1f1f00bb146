// Live sampling with the session API: sample a command on cpu-clock (a
// software event, so it works on any Linux machine, virtual ones included)
// and count its samples by process, iterating the session's samples as a
// range (live_samples: it starts the session, waits for data and ends when
// the command has ended and its samples are read).
//
//   live_sampling sleep 0.2
//
// Built outside the tree with only pkg-config (scripts/check-installed-examples.sh):
//   g++ -std=c++20 live_sampling.cpp $(pkg-config --cflags --libs tagop)

#include <cstdint>    // std::uint64_t
#include <cstdio>     // std::printf
#include <exception>  // std::exception
#include <map>        // std::map
#include <string>     // std::string
#include <vector>     // std::vector

#include <tagop/live_samples.hpp>      // live_samples
#include <tagop/sampling_session.hpp>  // SamplingSession, software_event

int main(int argc, char** argv) try {
  using namespace tagop;
  std::vector<std::string> command(argv + 1, argv + argc);
  if (command.empty()) command = {"sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"};

  PerfEvent clock = *software_event("cpu-clock");
  clock.attr.sample_period = 100'000;  // ns of CPU time: 10 kHz
  SamplingSession session({.events = {clock}, .command = command});
  std::map<std::uint32_t, std::uint64_t> by_pid;
  std::uint64_t samples = 0;
  for (const Sample& s : live_samples(session)) {  // | ranges::views::take(n) to stop after n
    ++samples;
    ++by_pid[s.pid];
  }
  std::printf("%llu cpu-clock samples, %llu lost\n", static_cast<unsigned long long>(samples),
              static_cast<unsigned long long>(session.lost()));
  for (const auto& [pid, n] : by_pid) std::printf("  pid %u: %llu\n", pid, static_cast<unsigned long long>(n));
  return samples > 0 ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "live_sampling: %s\n", e.what());
  return 1;
}
