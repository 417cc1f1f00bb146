#include <tagop/intel_p4/backend.hpp>

#include <tagop/intel_p4/tables.hpp>  // event_entries

namespace tagop::intel_p4 {

void register_backend(Registry& registry) {
  registry.add(BackendInfo{
      .name = "p4",
      .title = "Intel Pentium 4 (NetBurst) at-retirement tagging",
      .mechanism = Mechanism::at_retirement_tagging,
      .events = [] { return event_entries(); },
  });
}

}  // namespace tagop::intel_p4
