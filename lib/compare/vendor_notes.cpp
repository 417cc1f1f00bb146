#include <tagop/compare/vendor_notes.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_core/events.hpp>    // parse_generation
#include <tagop/intel_core/events.hpp>  // pmu_spec, parse_microarchitecture

namespace tagop::compare {

std::string address_precision(const EventEntry& e) {
  if (e.backend == "amd-ibs")
    return e.kind == SampleKind::fetch ? "fetch address (a fetch block, branch target or fall-through)"
                                       : "exact instruction (IBS reports the tagged op's own address)";
  if (const auto uarch = intel_core::parse_microarchitecture(e.backend)) {
    if (!e.precise) return "none precise (counter overflow interrupt: skid)";
    const intel_core::PmuSpec& spec = intel_core::pmu_spec(*uarch);
    return spec.pebs_eventing_ip ? "exact instruction (PEBS EventingRIP; R/EIP is the next instruction)"
                                 : "next instruction (PEBS R/EIP)";
  }
  // Zen's core counters: an overflow interrupt, never a precise sample
  // (IBS is Zen's precise mechanism).
  if (amd_core::parse_generation(e.backend))
    return "none precise (counter overflow interrupt: skid; on Zen the precise answer is IBS, backend amd-ibs)";
  if (e.backend == "arm-spe") return "exact instruction (SPE's PC packet is the sampled operation's own address)";
  if (e.backend == "p4")
    return e.precise ? "next instruction (P4 PEBS records the state after the tagged uop's instruction retired)"
                     : "none (counter overflow interrupt: skid)";
  return "unknown";
}

std::string sample_meaning(const EventEntry& e) {
  switch (e.mechanism) {
    case Mechanism::instruction_sampling:
      return e.kind == SampleKind::fetch
                 ? "a sampled fetch (1 in N) whose flags meet the predicate; count x period estimates the fetches that met it"
                 : "a sampled op (1 in N) whose flags meet the predicate; count x period estimates the ops that met it";
    case Mechanism::at_retirement_tagging:
      return "an event count: retired (NBOGUS) uops that carried the tag; PEBS: one precise sample every N";
    case Mechanism::precise_event:
      return e.precise ? "an event count: ops that met the event's condition; PEBS: one precise sample every N"
                       : "an event count: ops that met the event's condition";
    case Mechanism::count_only:
      return e.predicate.empty() ? "an event count of occurrences (not ops)"
                                 : "an event count: ops that met the event's condition (no precise sample)";
  }
  return "";
}

}  // namespace tagop::compare
