#pragma once
// perf's build-id cache (~/.debug, $PERF_BUILDID_DIR): the files perf
// record keeps of what a capture's samples hit and that no file of their
// own holds, each under its build-id, where perf report and tagop report
// look for them: DIR/[vdso]/ID/vdso (the vDSO's image) and
// DIR/[kernel.kallsyms]/ID/kallsyms (a copy of /proc/kallsyms: a plain file
// is read as it is, where /proc/kallsyms is written anew by the kernel at
// each read, tens of milliseconds), with the link
// DIR/.build-id/xx/rest -> ../../NAME/ID beside them.
//
//   tagop::keep_kallsyms_in_build_id_cache(tagop::SymbolFileSearch::default_build_id_dir(),
//                                          tagop::running_kernel_build_id());
//
// Thread safety: no hidden state; a file is written aside and renamed, so
// several writers at once leave one whole copy.

#include <cstddef>      // std::byte
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {

/// Where the cache at `dir` keeps `file` of the object `name` ("[vdso]",
/// "[kernel.kallsyms]") with `build_id`: DIR/NAME/ID/FILE.
std::string build_id_cache_file(std::string_view dir, std::string_view name, std::string_view build_id,
                                std::string_view file);

/// Keeps `bytes` at build_id_cache_file() as perf record does, with the
/// link DIR/.build-id/xx/rest -> ../../NAME/ID; a file already there is
/// left alone. Returns its path; throws tagop::Error naming the path that
/// could not be written.
std::string keep_in_build_id_cache(std::string_view dir, std::string_view name, std::string_view build_id,
                                   std::string_view file, std::span<const std::byte> bytes);

/// Keeps a copy of the running kernel's `kallsyms` (whose build-id is
/// `build_id`) as perf record does, where the cache has none yet. A
/// kallsyms whose addresses are all 0 (hidden from this user:
/// kptr_restrict) is not kept, as perf keeps none. Returns the copy's path,
/// "" when none was kept; throws tagop::Error when it cannot be read or
/// written.
std::string keep_kallsyms_in_build_id_cache(std::string_view dir, std::string_view build_id,
                                            const std::string& kallsyms = "/proc/kallsyms");

}  // namespace tagop
