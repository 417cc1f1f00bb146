#pragma once

#include <tagop/registry.hpp>  // Registry

namespace tagop::intel_p4 {

/// Adds the Pentium 4 backend (its metrics and events) to the registry.
void register_backend(Registry& registry);

}  // namespace tagop::intel_p4
