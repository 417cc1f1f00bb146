#pragma once
// Names as people type them: distance between names, for "did you mean"
// answers everywhere, and the case and spaces that lookups ignore.
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <cstddef>      // std::size_t
#include <string>       // std::string
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {

/// Edits (insert, delete, replace, swap of two neighbours) that turn `a`
/// into `b`, ignoring ASCII case: "dc.mis" -> "dc.miss" is 1, "BACLAERS" ->
/// "baclears" is 1. Only the first max_compared_length characters of each
/// are compared and the rest counted as inserted or deleted (so past it
/// the answer is an upper bound): no name is that long, and the work grows
/// with the product of the lengths.
std::size_t edit_distance(std::string_view a, std::string_view b);
inline constexpr std::size_t max_compared_length = 256;

/// `s` in ASCII lower case (names and descriptions compare in any case).
std::string ascii_lower(std::string_view s);
/// `s` without the ASCII white space at either end.
std::string_view trim_space(std::string_view s);
/// An event's name as lookups compare it: trimmed, in lower case, with ':'
/// as '.', so that libpfm4's "BACLEARS:ALL" is the SDM's "BACLEARS.ALL"
/// (" BACLEARS:ALL " -> "baclears.all").
std::string event_name_key(std::string_view s);

}  // namespace tagop
