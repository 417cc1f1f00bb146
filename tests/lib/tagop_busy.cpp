// A child for the sampling tests: spins in a function of its own for the
// milliseconds given (default 300), so that samples land in it.

#include <chrono>
#include <cstdlib>

extern "C" __attribute__((noinline)) unsigned long tagop_busy_spin(long milliseconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(milliseconds);
  volatile unsigned long x = 0;
  while (std::chrono::steady_clock::now() < end)
    for (int i = 0; i < 10000; ++i) x = x + static_cast<unsigned long>(i);
  return x;
}

int main(int argc, char** argv) {
  tagop_busy_spin(argc > 1 ? std::atol(argv[1]) : 300);
  return 0;
}
