#pragma once
// UTF-8 as the exporters write it: every string a profile carries comes
// from a capture (process and module names, symbols), whose bytes need
// not be UTF-8, and JSON, protobuf's string fields and HTML all want it.
// Invalid bytes become U+FFFD, as nlohmann's dump(..., replace) does.
// Internal to the profiles.

#include <cstddef>      // std::size_t
#include <string>       // std::string
#include <string_view>  // std::string_view

namespace tagop::profiles {

/// The length of the well-formed UTF-8 sequence at the start of `s`, or 0
/// when it is not one; `bad` is then how many bytes the replacement covers
/// (the maximal subpart: the lead byte and the continuation bytes that were
/// still possible, as Unicode's "best practice" and nlohmann's decoder do).
std::size_t utf8_sequence(std::string_view s, std::size_t& bad);

/// `text` with each invalid sequence replaced by U+FFFD; `text` itself
/// when it is valid (the common case: no copy but the result).
std::string valid_utf8(std::string_view text);

}  // namespace tagop::profiles
