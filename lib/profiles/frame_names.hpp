#pragma once
// How a location is named in a stack that people read (folded stacks and
// the HTML flame graph): its functions, caller first; without a function,
// module+offset as `tagop report` writes it, or the bare address.

#include <string>  // std::string
#include <vector>  // std::vector

#include <tagop/profiles/profile.hpp>  // Profile, Location

namespace tagop::profiles::detail {

/// The names of a location's frames, outermost (caller) first: the
/// function that holds the address, then what was inlined into it.
std::vector<std::string> frame_names(const Profile& profile, const Location& location);

/// Every location's frame names, by location id.
std::vector<std::vector<std::string>> all_frame_names(const Profile& profile);

}  // namespace tagop::profiles::detail
