// Look an event up in every backend's table, then program it: the MSR
// writes and the perf_event_attr that set the hardware up.
//
//   lookup_and_program MEM_UOPS_RETIRED.L1_MISS_LOADS
//   lookup_and_program 'IBS DC miss'
//
// Built outside the tree with only pkg-config (scripts/check-installed-examples.sh):
//   g++ -std=c++20 lookup_and_program.cpp $(pkg-config --cflags --libs tagop)

#include <cstdint>      // std::uint64_t
#include <cstdio>       // std::printf
#include <exception>    // std::exception
#include <string>       // std::string
#include <string_view>  // std::string_view

#include <tagop/amd_ibs/programmer.hpp>     // amd_ibs::program
#include <tagop/event.hpp>                  // EventEntry
#include <tagop/intel_atom/programmer.hpp>  // intel_atom::program
#include <tagop/intel_p4/programmer.hpp>    // intel_p4::program
#include <tagop/programming.hpp>            // Programming, to_text
#include <tagop/registry.hpp>               // Registry

namespace {

// The programmer of each backend, for one of its events, sampling every
// `period` events (ops for IBS).
tagop::Programming program(const tagop::EventEntry& e, std::uint64_t period) {
  using namespace tagop;
  if (e.backend == "amd-ibs") {
    amd_ibs::IbsRequest r;
    r.unit = e.kind == SampleKind::fetch ? amd_ibs::IbsUnit::fetch : amd_ibs::IbsUnit::op;
    r.period = period;
    r.family = 0x19;  // Zen 3
    return amd_ibs::program(r);
  }
  if (e.backend == "p4") {
    intel_p4::P4Request r;
    r.events.push_back({.name = std::string(e.name), .pebs = e.precise});
    r.period = period;
    return intel_p4::program(r);
  }
  intel_atom::AtomRequest r;
  r.uarch = e.backend == "goldmont" ? intel_atom::Microarchitecture::goldmont : intel_atom::Microarchitecture::silvermont;
  r.events.push_back({.event = std::string(e.name), .pebs = e.precise});
  r.period = period;
  return intel_atom::program(r);
}

}  // namespace

int main(int argc, char** argv) try {
  using namespace tagop;
  const std::string_view wanted = argc > 1 ? argv[1] : "MEM_UOPS_RETIRED.L1_MISS_LOADS";
  for (const BackendInfo& backend : Registry::builtin().backends()) {
    for (const EventEntry& e : backend.events()) {
      if (e.name != wanted && e.code != wanted && e.abbreviation != wanted) continue;
      std::printf("%.*s %.*s (%.*s): %.*s\n", static_cast<int>(e.code.size()), e.code.data(),
                  static_cast<int>(e.name.size()), e.name.data(), static_cast<int>(backend.name.size()),
                  backend.name.data(), static_cast<int>(e.predicate.size()), e.predicate.data());
      std::printf("%s\n", to_text(program(e, 0x10000)).c_str());
      return 0;
    }
  }
  std::fprintf(stderr, "lookup_and_program: no event named '%.*s'\n", static_cast<int>(wanted.size()), wanted.data());
  return 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "lookup_and_program: %s\n", e.what());
  return 1;
}
