// The program tagop annotate's tests sample (built -O1 -g): one hot
// function with two loops, two file-static functions of one name (the
// other in annotate_fixture_part.cpp) and a data object, for the errors.
// A fixed amount of work, no clock calls: this VM's clock_gettime is slow
// enough to take most of the samples.

#include <cstdlib>

extern "C" {

// A data object with a name, not code.
volatile unsigned annotate_table[64];

unsigned part_step(unsigned x);

// noipa: without it GCC sees that hot() has no side effects and calls it
// once for every round.
__attribute__((noipa)) unsigned hot(unsigned n) {
  unsigned a = 0, b = 1;
  for (unsigned i = 0; i < n; ++i) a += i * i ^ (a >> 3);
  for (unsigned i = 0; i < n; ++i) b = b * 2654435761u + (b >> 7);
  return a ^ b;
}

}  // extern "C"

static __attribute__((noipa)) unsigned annotate_step(unsigned x) { return x * 3 + 1; }

int main(int argc, char** argv) {
  const long rounds = argc > 1 ? std::atol(argv[1]) : 60;
  const unsigned n = argc > 2 ? static_cast<unsigned>(std::atol(argv[2])) : 1000000;
  for (long r = 0; r < rounds; ++r) annotate_table[r & 63] = hot(n);
  return static_cast<int>(annotate_step(part_step(annotate_table[0])) & 1);
}
