#pragma once
// perf report's options for the kernel's symbols (--vmlinux, --kallsyms,
// --symfs), shared by the commands that name a capture's samples.

#include <memory>  // std::shared_ptr
#include <string>  // std::string

#include <CLI/CLI.hpp>  // CLI::App

#include <tagop/perf_data_reader.hpp>  // FileInfo
#include <tagop/report/symbols.hpp>    // SymbolSource

namespace tagop::cli {

struct KernelSymbolOptions {
  std::string vmlinux, kallsyms, symfs;
};

void add_kernel_symbol_options(CLI::App& cmd, KernelSymbolOptions& o);

/// The kernel's symbol source for a capture (its HEADER_OSRELEASE names
/// perf's vmlinux paths).
std::shared_ptr<report::SymbolSource> kernel_symbols_for(const KernelSymbolOptions& o,
                                                         const perf_data::FileInfo& capture);

}  // namespace tagop::cli
