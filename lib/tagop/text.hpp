#pragma once
// Names from captures made safe for where they go. A process name, a
// module path or a symbol may hold any bytes: JSON, protobuf's strings and
// HTML want UTF-8, and a terminal must not take them for escape codes.
// Thread-safe: pure functions.

#include <cstddef>      // std::size_t
#include <string>       // std::string
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {

/// The length of the well-formed UTF-8 sequence (RFC 3629: no overlong
/// forms, no surrogates, nothing past U+10FFFF) at the start of `s`, which
/// is not empty; or 0 when it is not one, and then `bad` is how many bytes
/// its replacement covers (the maximal subpart: the lead byte and the
/// continuation bytes that were still possible, as Unicode's "best
/// practice" and nlohmann's decoder do).
std::size_t utf8_sequence(std::string_view s, std::size_t& bad);

/// Appends the sequence at the start of `text` (not empty) to `out`, or
/// U+FFFD for an invalid one; returns how many bytes of `text` it stood for.
std::size_t append_valid_utf8(std::string& out, std::string_view text);

/// `text` with each invalid sequence replaced by U+FFFD, as nlohmann's
/// dump(..., replace) does: `valid_utf8("a\xff")` is `"a\xEF\xBF\xBD"`.
std::string valid_utf8(std::string_view text);

/// `text` made safe to print: control characters and bytes that are not
/// UTF-8 escaped as `\xNN`.
///
/// Well-formed UTF-8 passes whole, but for the C1 controls (U+0080 to
/// U+009F), whose bytes are escaped too; a backslash becomes `\\`, so that
/// the escapes cannot be confused with the name's own text.
///   `printable("bad\xff.data")` is the text `bad\xff.data` (backslash, x, f, f)
std::string printable(std::string_view text);

}  // namespace tagop
