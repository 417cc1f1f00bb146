#include <tagop/intel_core/backend.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/intel_core/events.hpp>      // event_entries, pmu_spec
#include <tagop/intel_core/programmer.hpp>  // program

namespace tagop::intel_core {

void register_backends(Registry& registry) {
  for (const Microarchitecture uarch : all_microarchitectures) {
    const PmuSpec& spec = pmu_spec(uarch);
    registry.add(BackendInfo{
        .name = spec.backend,
        .title = spec.title,
        .mechanism = Mechanism::precise_event,
        .events = [uarch] { return event_entries(uarch); },
        .program =
            [uarch](const EventEntry& e, std::string_view, const ProgramOptions& o) {
              Request request;
              request.uarch = uarch;
              request.events.push_back({.event = std::string(e.name), .pebs = e.precise, .offcore_response = {}});
              request.exclude_user = o.exclude_user;
              request.exclude_kernel = o.exclude_kernel;
              request.period = o.period;
              return program(request);
            },
        .program_command =
            [](const EventEntry& e, std::string_view) {
              return fmt::format("tagop program {} {}{}", e.backend, e.name, e.precise ? " --pebs" : "");
            },
        .tables_for =
            [uarch](const CpuId& cpu) {
              return cpu.vendor == "GenuineIntel" && microarchitecture_of(cpu.family, cpu.model) == uarch
                         ? std::string(pmu_spec(uarch).sdm_table)
                         : std::string();
            },
    });
  }
}

}  // namespace tagop::intel_core
