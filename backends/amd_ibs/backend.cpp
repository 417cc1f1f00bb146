#include <tagop/amd_ibs/backend.hpp>

#include <tagop/amd_ibs/derived_events.hpp>  // derived_event_entries

namespace tagop::amd_ibs {

void register_backend(Registry& registry) {
  registry.add(BackendInfo{
      .name = "amd-ibs",
      .title = "AMD Instruction-Based Sampling (CodeAnalyst derived events)",
      .mechanism = Mechanism::instruction_sampling,
      .events = [] { return derived_event_entries(); },
  });
}

}  // namespace tagop::amd_ibs
