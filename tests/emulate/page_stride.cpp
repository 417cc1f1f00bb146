// Model check: loads 2 MiB apart over PAGES pages, ROUNDS times. Each load
// is to another 4 KiB page, more pages than any modelled L1 DTLB holds, and
// all in one set of a set-associative L2 DTLB: every load misses the DTLB.
//   page_stride PAGES ROUNDS

#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>

constexpr std::size_t stride = std::size_t{2} << 20;

__attribute__((noinline)) long walk(const volatile char* base, long pages, long rounds) {
  long sum = 0;
  for (long r = 0; r < rounds; ++r)
    for (long p = 0; p < pages; ++p) sum += base[static_cast<std::size_t>(p) * stride];
  return sum;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: page_stride PAGES ROUNDS\n");
    return 2;
  }
  const long pages = std::strtol(argv[1], nullptr, 0);
  const long rounds = std::strtol(argv[2], nullptr, 0);
  // Address space only: each touched page costs 4 KiB.
  void* mem = mmap(nullptr, static_cast<std::size_t>(pages) * stride, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED) return 1;
  auto* base = static_cast<char*>(mem);
  for (long p = 0; p < pages; ++p) base[static_cast<std::size_t>(p) * stride] = static_cast<char>(p);
  std::printf("%ld\n", walk(base, pages, rounds));
  return 0;
}
