// The one place that knows every backend: the core's registry asks it.

#include <tagop/registry.hpp>

#include <tagop/amd_core/backend.hpp>  // amd_core::register_backends
#include <tagop/amd_ibs/backend.hpp>  // amd_ibs::register_backend
#include <tagop/intel_core/backend.hpp>  // intel_core::register_backends
#include <tagop/arm_spe/backend.hpp>  // arm_spe::register_backend
#include <tagop/intel_p4/backend.hpp>  // intel_p4::register_backend

namespace tagop {

void register_builtin_backends(Registry& registry) {
  amd_ibs::register_backend(registry);
  intel_core::register_backends(registry);
  intel_p4::register_backend(registry);
  amd_core::register_backends(registry);
  arm_spe::register_backend(registry);
}

}  // namespace tagop
