#include <tagop/error.hpp>

#include <cerrno>  // EACCES, ...

namespace tagop {

std::string_view to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::bad_input: return "bad_input";
    case ErrorCode::not_found: return "not_found";
    case ErrorCode::not_supported: return "not_supported";
    case ErrorCode::no_pmu: return "no_pmu";
    case ErrorCode::permission: return "permission";
    case ErrorCode::paranoid: return "paranoid";
    case ErrorCode::io: return "io";
    case ErrorCode::damaged: return "damaged";
    case ErrorCode::resource: return "resource";
    case ErrorCode::internal: return "internal";
  }
  return "internal";
}

ErrorCode perf_event_open_error_code(int errno_value, bool paranoid_forbids) {
  switch (errno_value) {
    case EACCES:
    case EPERM: return paranoid_forbids ? ErrorCode::paranoid : ErrorCode::permission;
    case ENOENT:
    case ENODEV: return ErrorCode::no_pmu;
    case EINVAL:
    case EOPNOTSUPP: return ErrorCode::not_supported;
    case ESRCH: return ErrorCode::not_found;
    case EMFILE:
    case ENFILE:
    case ENOMEM:
    case EBUSY: return ErrorCode::resource;
    default: return ErrorCode::io;
  }
}

}  // namespace tagop
