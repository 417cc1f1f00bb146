#pragma once
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <tagop/registry.hpp>  // Registry

namespace tagop::intel_atom {

/// Adds the "silvermont" and "goldmont" backends (their event tables) to the registry.
void register_backends(Registry& registry);

}  // namespace tagop::intel_atom
