// Look an event up in every backend's table, then program it: the MSR
// writes and the perf_event_attr that set the hardware up, for this
// machine's processor or another (perf's CPU id: vendor,family,model,stepping),
// every PERIOD events.
//
//   lookup_and_program MEM_UOPS_RETIRED.L1_MISS_LOADS
//   lookup_and_program 'IBS DC miss' AuthenticAMD,25,17,1 131072
//
// Built outside the tree with only pkg-config (scripts/check-installed-examples.sh):
//   g++ -std=c++20 lookup_and_program.cpp $(pkg-config --cflags --libs tagop)

#include <cstdio>       // std::printf
#include <cstdlib>      // std::strtoull
#include <exception>    // std::exception
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/cpu.hpp>          // CpuId
#include <tagop/event.hpp>        // EventEntry
#include <tagop/programming.hpp>  // Programming, to_text
#include <tagop/registry.hpp>     // Registry

int main(int argc, char** argv) try {
  using namespace tagop;
  const std::string_view wanted = argc > 1 ? argv[1] : "MEM_UOPS_RETIRED.L1_MISS_LOADS";
  // Any spelling: a name, an IBS select or abbreviation, perf's r01e6 or
  // cpu/event=..,umask=../; every backend's match, each programmed by its
  // own backend's programmer.
  ProgramOptions options;
  if (argc > 2) options.processor = CpuId::parse(argv[2]);  // else this machine's
  if (argc > 3) options.period = std::strtoull(argv[3], nullptr, 0);
  const Registry& registry = Registry::builtin();
  const std::vector<const EventEntry*> found = registry.lookup(wanted);
  for (const EventEntry* e : found) {
    std::printf("%.*s %.*s (%.*s): %.*s\n", static_cast<int>(e->code.size()), e->code.data(),
                static_cast<int>(e->name.size()), e->name.data(), static_cast<int>(e->backend.size()),
                e->backend.data(), static_cast<int>(e->predicate.size()), e->predicate.data());
    std::printf("%s\n", to_text(registry.program(*e, wanted, options)).c_str());
  }
  if (!found.empty()) return 0;
  std::fprintf(stderr, "lookup_and_program: no event named '%.*s'\n", static_cast<int>(wanted.size()), wanted.data());
  return 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "lookup_and_program: %s\n", e.what());
  return 1;
}
