#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) static unsigned long leaf(unsigned long x) {
  for (int i = 0; i < 200; ++i) x = x * 6364136223846793005UL + 1442695040888963407UL;
  return x;
}
__attribute__((noinline)) static unsigned long f_a(int d, unsigned long x);
__attribute__((noinline)) static unsigned long f_b(int d, unsigned long x) {
  if (d == 0) return leaf(x);
  return f_a(d - 1, x + 1) ^ (d & 1 ? leaf(x) : 0);
}
__attribute__((noinline)) static unsigned long f_a(int d, unsigned long x) {
  if (d == 0) return leaf(x ^ 3);
  return f_b(d - 1, x * 3) + 1;
}
int main(int argc, char **argv) {
  /* Runs for this much CPU time (not wall time: the host may be busy), so
     a capture at a given frequency has a known number of samples. */
  double seconds = argc > 1 ? atof(argv[1]) : 3.0;
  for (unsigned long i = 0; (double)clock() < seconds * CLOCKS_PER_SEC; ++i)
    for (int j = 0; j < 64; ++j) sink += f_a(28, i * 64 + j);
  printf("%lu\n", sink);
  return 0;
}
