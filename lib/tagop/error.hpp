#pragma once
// The one error type of tagop: every refusal and every bad input throws it,
// with a message that says what was wrong and where.

#include <stdexcept>  // std::runtime_error
#include <string>     // std::string

namespace tagop {

/// Thrown for bad input (an unknown event, a malformed predicate, a damaged
/// file) and for requests the hardware cannot do. `what()` is meant for the
/// user: it names the thing, the place, and what was expected.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace tagop
