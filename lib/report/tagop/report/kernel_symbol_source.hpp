#pragma once
// Names for the samples in the kernel's map ("[kernel.kallsyms]"), found
// as `perf report` finds them (tagop::find_kernel_symbols): --kallsyms,
// --vmlinux, the vmlinux paths under --symfs, this machine's
// /proc/kallsyms when the running kernel is the one recorded (same
// build-id, or the capture records none: then with a caveat), else the
// copy perf keeps in its build-id cache (~/.debug/[kernel.kallsyms]/ID/kallsyms).
// When none can be used, open() says why (a different build-id, addresses
// hidden by kptr_restrict ...), so the report warns once.
//
//   report::Options o;
//   o.symbol_sources.push_back(report::kernel_symbol_source({.kallsyms = "copy.kallsyms"}));
//
// Kernel modules ([ext4]) are not named yet: their maps' offsets are
// relative to the module's load address, which a ModuleRef does not carry.
// Thread safety: as every SymbolSource (symbols.hpp), asked from one thread at
// a time.

#include <memory>  // std::shared_ptr
#include <vector>  // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/kernel_symbols.hpp>  // KernelSymbolSearch
#include <tagop/report/symbols.hpp>  // SymbolSource

namespace tagop TAGOP_API {
namespace report {

/// The kernel's symbols, looked for in `search`'s places when a report
/// first meets the kernel's map; read on a thread of their own while the
/// capture is walked when prepare() is told the kernel was sampled, in the
/// background (the kernel's slow writing of /proc/kallsyms, some 40 ms,
/// then overlaps the walk).
std::shared_ptr<SymbolSource> kernel_symbol_source(KernelSymbolSearch search = {});

/// The symbol sources that name a capture's samples as `tagop report
/// --vmlinux --kallsyms --symfs` names them: the kernel's, looked for in
/// `search`'s places (an empty `os_release` is the capture's
/// HEADER_OSRELEASE, which names perf's vmlinux paths), then the ELF
/// files of `search.files` (--symfs, perf's build-id cache, the debug
/// directory). What `tagop ingest` names its rows with, and `tagop
/// report`, `diff` and `annotate` their captures' samples.
std::vector<std::shared_ptr<SymbolSource>> capture_symbol_sources(KernelSymbolSearch search,
                                                                  const perf_data::FileInfo& capture);

}  // namespace report
}  // namespace tagop
