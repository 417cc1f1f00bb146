#pragma once

#include <tagop/registry.hpp>  // Registry

namespace tagop::amd_ibs {

/// Adds the AMD IBS backend (its derived-event table) to the registry.
void register_backend(Registry& registry);

}  // namespace tagop::amd_ibs
