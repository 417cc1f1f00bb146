#pragma once
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/registry.hpp>  // Registry

namespace tagop TAGOP_API {
namespace intel_core {

/// Adds the "silvermont" and "goldmont" backends (their event tables) to the registry.
void register_backends(Registry& registry);

}  // namespace intel_core
}  // namespace tagop
