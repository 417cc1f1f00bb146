#pragma once
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/registry.hpp>  // Registry

namespace tagop TAGOP_API {
namespace amd_ibs {

/// Adds the AMD IBS backend (its derived-event table) to the registry.
void register_backend(Registry& registry);

}  // namespace amd_ibs
}  // namespace tagop
