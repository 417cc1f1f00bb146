// Family check: THREADS threads, thread k (from 1) doing k * TURNS loop
// turns and keeping its kernel thread id (gettid); the main thread writes
// the ids to FILE, one a line, after joining them all. No lock between the
// threads, so that what each executes does not depend on how they were
// scheduled (their start and exit still wait more or less).
//   family_threads THREADS TURNS FILE

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

__attribute__((noinline)) static long work(long turns) {
  volatile long sink = 0;
  for (long i = 0; i < turns; ++i) sink = sink + i * 3;
  return sink;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: family_threads THREADS TURNS FILE\n");
    return 2;
  }
  const int threads = std::atoi(argv[1]);
  const long turns = std::atol(argv[2]);
  std::vector<long> tids(static_cast<std::size_t>(threads));
  // Bound here, so that no thread pays for the lazy binding of syscall().
  work(1);
  tids[0] = static_cast<long>(::syscall(SYS_gettid));
  std::vector<std::thread> running;
  for (int k = 1; k <= threads; ++k)
    running.emplace_back([&tids, turns, k] {
      work(k * turns);
      tids[static_cast<std::size_t>(k - 1)] = static_cast<long>(::syscall(SYS_gettid));
    });
  for (std::thread& t : running) t.join();
  std::FILE* out = std::fopen(argv[3], "w");
  if (!out) return 1;
  for (long tid : tids) std::fprintf(out, "%ld\n", tid);
  std::fclose(out);
  return 0;
}
