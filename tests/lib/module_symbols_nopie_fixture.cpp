// A non-PIE executable without a build-id, for the [symbols] tests: prints
// the file offset of its probe function (from its own /proc/self/maps) and
// the probe's line, so the test can check ModuleSymbols on an ET_EXEC file
// with fixed addresses.
#include <cstdint>   // std::uintptr_t
#include <cstdio>    // std::printf
#include <fstream>   // std::ifstream
#include <sstream>   // std::istringstream
#include <string>    // std::string, std::getline

extern "C" [[gnu::noinline]] int tagop_nopie_probe() { return __LINE__; }

int main() {
  int (*volatile probe)() = &tagop_nopie_probe;
  auto address = reinterpret_cast<std::uintptr_t>(probe);
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    std::istringstream fields(line);
    std::uintptr_t start = 0, end = 0, pgoff = 0;
    char dash = 0;
    std::string perms;
    fields >> std::hex >> start >> dash >> end >> perms >> pgoff;
    if (address >= start && address < end) {
      std::printf("%lx %d\n", static_cast<unsigned long>(address - start + pgoff), probe());
      return 0;
    }
  }
  return 1;
}
