#include <tagop/arm_spe/backend.hpp>

#include <tagop/arm_spe/derived_events.hpp>  // derived_event_entries

namespace tagop::arm_spe {

void register_backend(Registry& registry) {
  registry.add(BackendInfo{
      .name = "arm-spe",
      .title = "Arm Statistical Profiling Extension (SPE derived events)",
      .mechanism = Mechanism::instruction_sampling,
      .events = [] { return derived_event_entries(); },
  });
}

}  // namespace tagop::arm_spe
