// The one place that knows every backend: the core's registry asks it.

#include <tagop/registry.hpp>

#include <tagop/amd_ibs/backend.hpp>  // amd_ibs::register_backend

namespace tagop {

void register_builtin_backends(Registry& registry) {
  amd_ibs::register_backend(registry);
}

}  // namespace tagop
