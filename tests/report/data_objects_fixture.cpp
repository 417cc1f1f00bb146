// The program the data-view tests name data addresses in: named objects in
// .data, .bss and .rodata, and a static one, whose addresses the tests read
// with nm (never from tagop). It is never run by the tests: its symbols are.

#include <cstdio>

int hot_counters[64] = {1};          // .data
long cold_table[4096];               // .bss
// used: kept, with its symbol, however the build optimises.
[[gnu::used]] static double private_buffer[128];  // .bss, a local symbol
extern const char greeting[];
const char greeting[] = "hello, data views";  // .rodata

int main(int argc, char**) {
  for (int i = 0; i < 4096; ++i) cold_table[i] = i * argc;
  for (int i = 0; i < 64; ++i) hot_counters[i] += static_cast<int>(cold_table[i * 64]);
  private_buffer[argc] = hot_counters[3];
  std::printf("%s %f\n", greeting, private_buffer[argc]);
  return 0;
}
