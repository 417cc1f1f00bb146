#pragma once
// Distance between names, for "did you mean" answers everywhere.

#include <cstddef>      // std::size_t
#include <string_view>  // std::string_view

namespace tagop {

/// Edits (insert, delete, replace, swap of two neighbours) that turn `a`
/// into `b`, ignoring ASCII case: "dc.mis" -> "dc.miss" is 1, "BACLAERS" ->
/// "baclears" is 1.
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace tagop
