// The program the DWARF unwinding tests sample: built without frame
// pointers (-O1 -fomit-frame-pointer -fno-inline -g), so that only the CFI
// (.eh_frame, .debug_frame) gives its chain main -> outer -> middle ->
// inner, where it spends its time.
//
//   tagop_dwarf_fixture [MILLISECONDS]   (default 300)

#include <chrono>
#include <cstdlib>

volatile unsigned long sink;

extern "C" __attribute__((noinline)) unsigned long inner(unsigned long x) {
  for (int i = 0; i < 20000; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}

// The additions after each call keep the calls from being tail calls.
extern "C" __attribute__((noinline)) unsigned long middle(unsigned long x) { return inner(x) + 3; }

extern "C" __attribute__((noinline)) unsigned long outer(unsigned long x) { return middle(x) + 5; }

int main(int argc, char** argv) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(argc > 1 ? std::atoi(argv[1]) : 300);
  unsigned long x = 1;
  while (std::chrono::steady_clock::now() < end) x = outer(x);
  sink = x;
}
