// Model check: a conditional branch on random bits (taken half the time at
// random: a predictor can do no better than a coin) and a counted loop
// (taken every time but the last: almost never mispredicted).
//   branches N

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

__attribute__((noinline)) long random_branch(const std::vector<std::uint8_t>& bits) {
  long taken = 0;
  for (std::uint8_t b : bits) {
    if (b & 1) {
      asm volatile("" ::: "memory");  // a real branch: no conditional move
      ++taken;
    }
  }
  return taken;
}

__attribute__((noinline)) long counted_loop(long n) {
  long sum = 0;
  for (long i = 0; i < n; ++i) {
    asm volatile("" ::: "memory");  // one iteration, one loop branch: not unrolled away
    sum += i;
  }
  return sum;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: branches N\n");
    return 2;
  }
  const long n = std::strtol(argv[1], nullptr, 0);
  std::vector<std::uint8_t> bits(static_cast<std::size_t>(n));
  std::uint64_t x = 88172645463325252ull;
  for (auto& b : bits) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    b = static_cast<std::uint8_t>(x >> 32);
  }
  std::printf("%ld %ld\n", random_branch(bits), counted_loop(n));
  return 0;
}
