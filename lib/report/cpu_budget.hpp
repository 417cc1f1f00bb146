#pragma once
// How many CPUs a report may use by default: those this process may run
// on (taskset, a container's cpuset), less those the rest of the machine
// keeps busy. On a loaded 2-CPU host a second thread only waits its turn,
// and its page faults contend with the first's: the default report with a
// thread to read the kernel's symbols took 1.2-1.5x the time of one thread
// at a load of 4 (alternated runs), and 0.8x on an idle host.

#include <sched.h>  // sched_getaffinity

#include <algorithm>  // std::max, std::min
#include <cmath>      // std::lround
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

/// Of allowed_cpus(), those the last minute left idle: fewer by the
/// 1-minute load average of `loadavg` (/proc/loadavg), rounded; all of
/// them when it cannot be read. This process's own short run barely
/// moves the average, so on an idle machine all are idle.
inline std::size_t idle_cpus(const std::string& loadavg = "/proc/loadavg") {
  const std::size_t cpus = allowed_cpus();
  std::ifstream in(loadavg);
  double load = 0;
  if (!(in >> load) || !(load >= 0)) return cpus;
  if (load >= static_cast<double>(cpus)) return 0;
  const auto busy = static_cast<std::size_t>(std::lround(load));
  return busy >= cpus ? 0 : cpus - busy;
}

}  // namespace tagop::report
