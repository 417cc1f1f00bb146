#pragma once
// perf report's options for the kernel's symbols (--vmlinux, --kallsyms,
// --symfs), shared by the commands that name a capture's samples.

#include <memory>  // std::shared_ptr
#include <string>  // std::string
#include <vector>  // std::vector

#include <CLI/CLI.hpp>  // CLI::App

#include <tagop/kernel_symbols.hpp>    // KernelSymbolSearch
#include <tagop/perf_data_reader.hpp>  // FileInfo
#include <tagop/report/symbols.hpp>    // SymbolSource

namespace tagop::cli {

struct KernelSymbolOptions {
  std::string vmlinux, kallsyms, symfs;
};

void add_kernel_symbol_options(CLI::App& cmd, KernelSymbolOptions& o);

/// Makes libdw ask no debuginfod server (DEBUGINFOD_URLS=""), as perf
/// does by default, unless TAGOP_DEBUGINFOD=1. Call it before starting
/// threads that read symbols: only its first call writes the environment.
void ask_no_debuginfod_server();

/// The places the options name, for report::capture_symbol_sources().
KernelSymbolSearch kernel_symbol_search(const KernelSymbolOptions& o);

/// The symbol sources for a capture: the kernel's (its HEADER_OSRELEASE
/// names perf's vmlinux paths), then the ELF files under --symfs and in
/// the build-id cache.
std::vector<std::shared_ptr<report::SymbolSource>> symbol_sources_for(const KernelSymbolOptions& o,
                                                                      const perf_data::FileInfo& capture);

}  // namespace tagop::cli
