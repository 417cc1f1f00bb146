#include "event_programming.hpp"

#include "event_lookup.hpp"  // lower

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/programmer.hpp>     // amd_ibs::program
#include <tagop/error.hpp>                  // Error
#include <tagop/intel_atom/programmer.hpp>  // intel_atom::program
#include <tagop/intel_p4/programmer.hpp>    // intel_p4::program

namespace tagop::cli {

namespace {

Programming program_ibs(const EventEntry& e) {
  // IBS samples every op (or fetch) and the derived event is a question
  // asked of the samples, so the unit is all there is to choose.
  amd_ibs::IbsRequest request;
  request.unit = e.kind == SampleKind::fetch ? amd_ibs::IbsUnit::fetch : amd_ibs::IbsUnit::op;
  return amd_ibs::program(request);
}

// The P4 name with the mask bits the user gave, if any.
std::string p4_name(const EventEntry& e, std::string_view spelled) {
  if (spelled.starts_with("netburst::")) spelled.remove_prefix(10);
  const std::string lowered = lower(spelled);
  if (lowered.starts_with(lower(e.name) + ":")) return std::string(spelled);
  return std::string(e.name);
}

Programming program_p4(const std::string& name) {
  intel_p4::P4Request request;
  request.events.push_back({.name = name, .pebs = false});
  return intel_p4::program(request);
}

Programming program_atom(const EventEntry& e) {
  intel_atom::AtomRequest request;
  request.uarch = *intel_atom::parse_microarchitecture(e.backend);
  request.events.push_back({.event = std::string(e.name), .pebs = e.precise, .offcore_response = {}});
  return intel_atom::program(request);
}

}  // namespace

EntryProgramming program_entry(const EventEntry& e, std::string_view spelled) {
  EntryProgramming out;
  try {
    if (e.backend == "amd-ibs") {
      out.request = fmt::format("tagop program ibs-{}", e.kind == SampleKind::fetch ? "fetch" : "op");
      out.programming = program_ibs(e);
    } else if (e.backend == "p4") {
      const std::string name = p4_name(e, spelled);
      out.request = fmt::format("tagop program p4 {}", name);
      out.programming = program_p4(name);
    } else if (intel_atom::parse_microarchitecture(e.backend)) {
      out.request = fmt::format("tagop program {} {}{}", e.backend, e.name, e.precise ? " --pebs" : "");
      out.programming = program_atom(e);
    } else {
      out.refused = fmt::format("tagop has no programmer for backend '{}'", e.backend);
    }
  } catch (const Error& error) {
    out.refused = error.what();
  }
  return out;
}

}  // namespace tagop::cli
