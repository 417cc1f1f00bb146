#pragma once
// How many CPUs a report may use by default: those this process may run
// on (taskset, a container's cpuset), less those the rest of the machine
// keeps busy now. On a loaded 2-CPU host a second thread only waits its turn,
// and its page faults contend with the first's: the default report with a
// thread to read the kernel's symbols took 1.2-1.5x the time of one thread
// at a load of 4 (alternated runs), and 0.8x on an idle host.

#include <sched.h>  // sched_getaffinity

#include <algorithm>  // std::max, std::min
#include <cstddef>    // std::size_t
#include <fstream>    // std::ifstream
#include <string>     // std::string
#include <thread>     // std::thread::hardware_concurrency

namespace tagop::report {

/// The CPUs this process may run on (sched_getaffinity, at least 1).
inline std::size_t allowed_cpus() {
  std::size_t cpus = std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) == 0)
    cpus = std::max<std::size_t>(1, std::min<std::size_t>(cpus, static_cast<std::size_t>(CPU_COUNT(&allowed))));
  return cpus;
}

/// Of allowed_cpus(), those that nothing else runs on now: fewer by the
/// threads that `loadavg` (/proc/loadavg, its fourth field "RUNNING/ALL")
/// counts runnable, this one left out; all of them when it cannot be read.
/// Now, not the 1-minute average: the average still counted a load that
/// had ended a minute before (1.7 on an idle machine), and a report takes
/// a fraction of a second.
inline std::size_t idle_cpus(const std::string& loadavg = "/proc/loadavg") {
  const std::size_t cpus = allowed_cpus();
  std::ifstream in(loadavg);
  std::string one, five, fifteen;
  std::size_t running = 0;
  char slash = 0;
  if (!(in >> one >> five >> fifteen >> running >> slash) || slash != '/' || running == 0) return cpus;
  const std::size_t others = running - 1;
  return others >= cpus ? 0 : cpus - others;
}

}  // namespace tagop::report
