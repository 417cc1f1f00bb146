#include <tagop/amd_ibs/backend.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_ibs/derived_events.hpp>  // derived_event_entries
#include <tagop/amd_ibs/programmer.hpp>      // program

namespace tagop::amd_ibs {

namespace {

// IBS samples every op (or fetch) and the derived event is a question
// asked of the samples, so the unit is all there is to choose.
Programming program_entry(const EventEntry& e, std::string_view) {
  IbsRequest request;
  request.unit = e.kind == SampleKind::fetch ? IbsUnit::fetch : IbsUnit::op;
  return program(request);
}

std::string program_command(const EventEntry& e, std::string_view) {
  return e.kind == SampleKind::fetch ? "tagop program ibs-fetch" : "tagop program ibs-op";
}

std::string tables_for(const CpuId& cpu) {
  if (cpu.vendor != "AuthenticAMD" && cpu.vendor != "HygonGenuine") return {};
  if (cpu.family < 0x10 || cpu.family == 0x14) return {};
  return fmt::format("IBS register layouts and derived events for family {:#x}", cpu.family);
}

}  // namespace

void register_backend(Registry& registry) {
  registry.add(BackendInfo{
      .name = "amd-ibs",
      .title = "AMD Instruction-Based Sampling (CodeAnalyst derived events)",
      .mechanism = Mechanism::instruction_sampling,
      .events = [] { return derived_event_entries(); },
      .program = program_entry,
      .program_command = program_command,
      .tables_for = tables_for,
  });
}

}  // namespace tagop::amd_ibs
