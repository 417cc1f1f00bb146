// The program the call-graph tests sample: its time is in leaf(), called
// by middle_a() twice for each call by middle_b(), both from main(). Built
// with frame pointers (-O0 -fno-omit-frame-pointer), so that perf's
// frame-pointer call chains hold every frame.
//
//   tagop_callchain_fixture [MILLISECONDS]   (default 300)

#include <chrono>
#include <cstdlib>

volatile unsigned long sink;

extern "C" __attribute__((noinline)) unsigned long leaf(unsigned long x) {
  for (int i = 0; i < 2000; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}

extern "C" __attribute__((noinline)) unsigned long middle_a(unsigned long x) { return leaf(x) + leaf(x + 1); }

extern "C" __attribute__((noinline)) unsigned long middle_b(unsigned long x) { return leaf(x); }

int main(int argc, char** argv) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(argc > 1 ? std::atoi(argv[1]) : 300);
  unsigned long x = 1;
  while (std::chrono::steady_clock::now() < end) {
    x = middle_a(x);
    x = middle_b(x);
  }
  sink = x;
}
