// Family check: a process that works, forks a child that works, waits for
// it and works again, each part a different number of loop turns, so that
// the two processes' instruction counts differ by design.
//   family_fork BEFORE CHILD AFTER

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

static volatile long sink;

__attribute__((noinline)) static void work(long turns) {
  for (long i = 0; i < turns; ++i) sink = sink + i * 3;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: family_fork BEFORE CHILD AFTER\n");
    return 2;
  }
  work(std::atol(argv[1]));
  const pid_t child = ::fork();
  if (child < 0) return 1;
  if (child == 0) {
    work(std::atol(argv[2]));
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  work(std::atol(argv[3]));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
