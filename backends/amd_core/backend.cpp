#include <tagop/amd_core/backend.hpp>

#include <fmt/format.h>  // fmt::format

#include <tagop/amd_core/events.hpp>      // event_entries, pmu_spec, generation_of
#include <tagop/amd_core/programmer.hpp>  // program

namespace tagop::amd_core {

void register_backends(Registry& registry) {
  for (const Generation g : {Generation::zen1, Generation::zen2, Generation::zen3, Generation::zen4}) {
    const ZenPmuSpec& spec = pmu_spec(g);
    registry.add(BackendInfo{
        .name = spec.backend,
        .title = spec.title,
        .mechanism = Mechanism::count_only,
        .events = [g] { return event_entries(g); },
        .program =
            [g](const EventEntry& e, std::string_view, const ProgramOptions& o) {
              ZenRequest request;
              request.generation = g;
              request.events.push_back({.event = std::string(e.name), .modifiers = {}});
              request.exclude_user = o.exclude_user;
              request.exclude_kernel = o.exclude_kernel;
              request.period = o.period;
              return program(request);
            },
        .program_command = [](const EventEntry& e,
                              std::string_view) { return fmt::format("tagop program {} {}", e.backend, e.name); },
        .tables_for =
            [g](const CpuId& cpu) {
              return cpu.vendor == "AuthenticAMD" && generation_of(cpu.family, cpu.model) == g
                         ? fmt::format("{} core events ({}; libpfm4 {})", pmu_spec(g).backend,
                                       pmu_spec(g).models_note, pmu_spec(g).libpfm_pmu)
                         : std::string();
            },
    });
  }
}

}  // namespace tagop::amd_core
