// A child for the sampling tests: spins in a function of its own for the
// milliseconds of CPU time given (default 300), so that samples land in it;
// `tagop_busy MS vdso` spins in the vDSO instead (clock_gettime of
// CLOCK_MONOTONIC, which the vDSO answers without a system call).
// CPU time, not wall time: cpu-clock samples count CPU time, so the number
// of samples does not shrink when the machine is busy with other tests.

#include <time.h>

#include <cstdlib>
#include <cstring>

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

extern "C" __attribute__((noinline)) long tagop_busy_vdso(long milliseconds) {
  const long end = cpu_milliseconds() + milliseconds;
  long sum = 0;
  while (cpu_milliseconds() < end)
    for (int i = 0; i < 10000; ++i) {
      timespec t{};
      ::clock_gettime(CLOCK_MONOTONIC, &t);
      sum += t.tv_nsec;
    }
  return sum;
}

int main(int argc, char** argv) {
  const long milliseconds = argc > 1 ? std::atol(argv[1]) : 300;
  if (argc > 2 && std::strcmp(argv[2], "vdso") == 0) tagop_busy_vdso(milliseconds);
  else tagop_busy_spin(milliseconds);
  return 0;
}
