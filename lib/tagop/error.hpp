#pragma once
// The one error type of tagop: every refusal and every bad input throws it,
// with a message that says what was wrong and where, and a code that says
// what kind of failure it is, so that a program can branch without
// matching message text.
//
// Thread safety: an Error is immutable after construction: safe to share.

#include <stdexcept>    // std::runtime_error
#include <string>       // std::string
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {

/// What a program needs to branch on when something fails. The message
/// says the rest (which file, which event, which column).
enum class ErrorCode {
  bad_input,      ///< malformed text: an event spelling, a predicate, an option value, a CPU id
  not_found,      ///< a well-formed name that nothing has: no such event, process, symbol
  not_supported,  ///< the request is valid but this processor/kernel/file version cannot do it
  no_pmu,         ///< the PMU the event needs does not exist here (e.g. no IBS in a virtual machine)
  permission,     ///< the operating system refuses (another user's process, CAP_PERFMON, kptr_restrict)
  paranoid,       ///< /proc/sys/kernel/perf_event_paranoid is too high for this request
  io,             ///< a file cannot be opened, mapped, read or written
  damaged,        ///< a file is not what it claims to be, or is cut short
  resource,       ///< a limit of the system or of tagop: open files, locked memory, 2^32 entries
  internal,       ///< a misuse of the library's API (a bug in the caller or in tagop)
};

/// "bad_input", "no_pmu", ...: the enumerator's name, for messages and JSON.
std::string_view to_string(ErrorCode code);

/// Thrown for bad input (an unknown event, a malformed predicate, a damaged
/// file) and for requests the hardware or the system cannot do. `what()` is
/// meant for the user: it names the thing, the place, and what was expected;
/// `code()` is meant for the program.
class Error : public std::runtime_error {
 public:
  /// Code bad_input: the most common refusal (text the user gave).
  explicit Error(const std::string& message) : Error(ErrorCode::bad_input, message) {}
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}

  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

/// The code of a failed perf_event_open(2) with this errno. EACCES/EPERM
/// are `paranoid` when perf_event_paranoid is what forbids it (the caller
/// knows: unprivileged and the setting above what the request needs), else
/// `permission`; ENOENT/ENODEV (no such PMU or event type) are `no_pmu`;
/// EINVAL/EOPNOTSUPP (a configuration the PMU refuses) are `not_supported`;
/// ESRCH is `not_found`; EMFILE/ENOMEM/EBUSY are `resource`.
ErrorCode perf_event_open_error_code(int errno_value, bool paranoid_forbids);

}  // namespace tagop
