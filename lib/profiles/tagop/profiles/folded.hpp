#pragma once
// Brendan Gregg's folded stacks: one line per distinct stack, its frames
// root first and joined by ';', then a space and the stack's total:
//
//   main;parse;memcpy 1966080
//
// flamegraph.pl, inferno and speedscope read it. A frame name cannot hold
// ';' (it separates frames) or a line end (it ends the record): ';' becomes
// ':' and line ends and tabs become spaces, which those tools all keep as
// part of the name. A name that is empty becomes "[unknown]".
// Thread-safe: the functions only read their arguments; each call writes its
// own stream.

#include <cstddef>      // std::size_t
#include <iosfwd>       // std::ostream
#include <string>       // std::string
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/profiles/profile.hpp>  // Profile

namespace tagop TAGOP_API {
namespace profiles {

struct FoldedOptions {
  std::size_t sample_type = 0;  ///< whose values (x period) are the stacks' totals
  bool process_root = false;    ///< the comm label as the root frame, as stackcollapse-perf.pl does
};

/// Writes the profile's stacks, sorted, one line per distinct stack;
/// stacks whose total is 0 are left out. Throws tagop::Error for a sample
/// type that is not the profile's, or when the stream fails.
void write_folded(const Profile& profile, std::ostream& out, const FoldedOptions& options = {});

/// A name as it stands in a folded stack: ';' (the frames' separator) as
/// ':', line ends and tabs as spaces, the rest as printable() has it
/// (tagop/text.hpp), so that no control character reaches the terminal of
/// whoever reads the file: `folded_frame("a;b\x1b[2J")` is `a:b\x1b[2J`.
std::string folded_frame(std::string_view name);

}  // namespace profiles
}  // namespace tagop
