// The nearest event of every vendor for a predicate, and how to program
// it: `tagop compare` and `tagop program` as library calls.
//
//   nearest_events 'load & dc.miss'
//   nearest_events 'op & branch.mispredicted' AuthenticAMD,25,17,1
//
// For each backend: the event that counts the same ops (or else the
// nearest wider one), its programming for the given processor (perf's CPU
// id; IBS needs one on a machine that is not AMD's), or what IBS's samples
// answer. Built outside the tree with only pkg-config
// (scripts/check-installed-examples.sh):
//   g++ -std=c++20 nearest_events.cpp $(pkg-config --cflags --libs tagop)

#include <cstdio>     // std::printf
#include <exception>  // std::exception
#include <string>     // std::string

#include <tagop/compare/nearest_events.hpp>  // nearest_events
#include <tagop/compare/target.hpp>          // resolve_target
#include <tagop/cpu.hpp>                     // CpuId
#include <tagop/programming.hpp>             // ProgramOptions, to_text
#include <tagop/registry.hpp>                // Registry

int main(int argc, char** argv) try {
  using namespace tagop;
  if (argc < 2) {
    std::fprintf(stderr, "usage: nearest_events PREDICATE-or-EVENT [CPUID]\n");
    return 2;
  }
  const compare::Target target = compare::resolve_target(argv[1]);
  ProgramOptions options;
  if (argc > 2) options.processor = CpuId::parse(argv[2]);
  std::printf("%s\n", target.label.c_str());
  for (const compare::BackendNeighbours& b : compare::nearest_events(target)) {
    const std::string backend(b.backend->name);
    const compare::Neighbour* pick = !b.same.empty() ? &b.same.front() : !b.wider.empty() ? &b.wider.front() : nullptr;
    if (b.samples_observe) {
      std::printf("%s: its samples tell; count those that meet the predicate\n", backend.c_str());
    } else if (pick) {
      const EventEntry& e = *pick->entry;
      std::printf("%s: %s %s (%s)\n", backend.c_str(), std::string(e.name).c_str(),
                  pick->closeness == compare::Closeness::same ? "counts the same ops" : "counts more ops",
                  std::string(e.predicate).c_str());
    } else {
      std::printf("%s: no event\n", backend.c_str());
      continue;
    }
    const EventEntry* e = pick ? pick->entry : nullptr;
    if (!e) continue;
    try {
      std::printf("%s", to_text(Registry::builtin().program(*e, {}, options)).c_str());
    } catch (const std::exception& refused) {
      std::printf("  not programmed: %s\n", refused.what());
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "nearest_events: %s\n", e.what());
  return 1;
}
