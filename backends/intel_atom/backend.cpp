#include <tagop/intel_atom/backend.hpp>

#include <tagop/intel_atom/events.hpp>  // event_entries, pmu_spec

namespace tagop::intel_atom {

void register_backends(Registry& registry) {
  for (const Microarchitecture uarch : {Microarchitecture::silvermont, Microarchitecture::goldmont}) {
    const AtomPmuSpec& spec = pmu_spec(uarch);
    registry.add(BackendInfo{
        .name = spec.backend,
        .title = spec.title,
        .mechanism = Mechanism::precise_event,
        .events = [uarch] { return event_entries(uarch); },
    });
  }
}

}  // namespace tagop::intel_atom
