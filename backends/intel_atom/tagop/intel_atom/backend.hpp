#pragma once

#include <tagop/registry.hpp>  // Registry

namespace tagop::intel_atom {

/// Adds the "silvermont" and "goldmont" backends (their event tables) to the registry.
void register_backends(Registry& registry);

}  // namespace tagop::intel_atom
