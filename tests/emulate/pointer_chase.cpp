// Model check: a pointer chase through BYTES of 64-byte nodes in a random
// cyclic order, STEPS times. Each step is one load whose address depends
// on the last, so a buffer larger than the L2 misses the data cache on
// (nearly) every load, and one smaller than the L1 on (nearly) none.
//   pointer_chase BYTES STEPS

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

struct alignas(64) Node {
  Node* next;
  char pad[56];
};

// Kept out of line so that its loads are a function of their own in the report.
__attribute__((noinline)) Node* chase(Node* p, long steps) {
  for (long i = 0; i < steps; ++i) p = p->next;
  return p;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: pointer_chase BYTES STEPS\n");
    return 2;
  }
  const std::size_t n = std::strtoull(argv[1], nullptr, 0) / sizeof(Node);
  const long steps = std::strtol(argv[2], nullptr, 0);
  std::vector<Node> nodes(n);
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::uint64_t x = 88172645463325252ull;  // xorshift64: the same order every run
  for (std::size_t i = n - 1; i > 0; --i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::swap(order[i], order[x % (i + 1)]);
  }
  for (std::size_t i = 0; i < n; ++i) nodes[order[i]].next = &nodes[order[(i + 1) % n]];
  std::printf("%p\n", static_cast<void*>(chase(&nodes[order[0]], steps)));
  return 0;
}
