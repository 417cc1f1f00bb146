#pragma once
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/registry.hpp>  // Registry

namespace tagop TAGOP_API {
namespace intel_p4 {

/// Adds the Pentium 4 backend (its metrics and events) to the registry.
void register_backend(Registry& registry);

}  // namespace intel_p4
}  // namespace tagop
