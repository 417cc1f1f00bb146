#pragma once
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <tagop/api.hpp>       // TAGOP_API
#include <tagop/registry.hpp>  // Registry

namespace tagop TAGOP_API {
namespace arm_spe {

/// Adds the Arm SPE backend ("arm-spe": its derived-event table and its
/// programmer) to the registry.
void register_backend(Registry& registry);

}  // namespace arm_spe
}  // namespace tagop
