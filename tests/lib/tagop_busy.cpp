// A child for the sampling tests: spins in a function of its own for the
// milliseconds of CPU time given (default 300), so that samples land in it.
// CPU time, not wall time: cpu-clock samples count CPU time, so the number
// of samples does not shrink when the machine is busy with other tests.

#include <time.h>

#include <cstdlib>

namespace {

long cpu_milliseconds() {
  timespec t{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

}  // namespace

extern "C" __attribute__((noinline)) unsigned long tagop_busy_spin(long milliseconds) {
  const long end = cpu_milliseconds() + milliseconds;
  volatile unsigned long x = 0;
  while (cpu_milliseconds() < end)
    for (int i = 0; i < 10000; ++i) x = x + static_cast<unsigned long>(i);
  return x;
}

int main(int argc, char** argv) {
  tagop_busy_spin(argc > 1 ? std::atol(argv[1]) : 300);
  return 0;
}
