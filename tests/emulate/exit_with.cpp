// The program tagop emulate's command tests run: it ends as told, so that
// the status tagop emulate exits with can be checked against it.
//   exit_with N          returns N
//   exit_with signal N   raises signal N (its default action ends it)
//   exit_with spin       runs until a signal ends it

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "spin") == 0) {
    volatile unsigned long n = 0;
    for (;;) n = n + 1;
  }
  if (argc == 3 && std::strcmp(argv[1], "signal") == 0) {
    std::raise(std::atoi(argv[2]));
    return 0;
  }
  if (argc == 2) return std::atoi(argv[1]);
  std::fprintf(stderr, "usage: exit_with N | signal N | spin\n");
  return 2;
}
