#include "kernel_symbol_options.hpp"

#include <cstdlib>      // std::getenv, setenv
#include <string_view>  // std::string_view

#include <tagop/report/kernel_symbol_source.hpp>  // kernel_symbol_source

namespace tagop::cli {

void add_kernel_symbol_options(CLI::App& cmd, KernelSymbolOptions& o) {
  cmd.add_option("--vmlinux", o.vmlinux,
                 "Kernel symbols from this vmlinux (used only if its build-id is the capture's kernel's)");
  cmd.add_option("--kallsyms", o.kallsyms, "Kernel symbols from this copy of a /proc/kallsyms, used as given");
  cmd.add_option("--symfs", o.symfs,
                 "The recording machine's files were copied under this directory: its binaries, libraries and vmlinux "
                 "are looked up there, and this machine's /proc/kallsyms is not used. Without these options the kernel is named "
                 "by this machine's /proc/kallsyms when its build-id is the capture's kernel's, else by perf's "
                 "build-id cache (~/.debug/[kernel.kallsyms]/BUILD-ID/kallsyms), as perf report does");
}

void ask_no_debuginfod_server() {
  // As perf does by default (perf_debuginfod_setup), ask no debuginfod
  // server for a module's debug file: libdw would ask the servers of
  // DEBUGINFOD_URLS for each module that has no local debug file, a
  // network round trip each (a wait, offline). TAGOP_DEBUGINFOD=1 asks
  // them. Here, not in main(): report and diff start no other program,
  // whose environment this would change (record's and emulate's do).
  // Written only when it differs, so that a second call, from a thread,
  // only reads.
  if (const char* ask = std::getenv("TAGOP_DEBUGINFOD"); ask && std::string_view(ask) == "1") return;
  if (const char* urls = std::getenv("DEBUGINFOD_URLS"); !urls || *urls) setenv("DEBUGINFOD_URLS", "", 1);
}

KernelSymbolSearch kernel_symbol_search(const KernelSymbolOptions& o) {
  KernelSymbolSearch search{.vmlinux = o.vmlinux, .kallsyms = o.kallsyms};
  search.files.symfs = o.symfs;
  return search;
}

std::vector<std::shared_ptr<report::SymbolSource>> symbol_sources_for(const KernelSymbolOptions& o,
                                                                      const perf_data::FileInfo& capture) {
  ask_no_debuginfod_server();
  return report::capture_symbol_sources(kernel_symbol_search(o), capture);
}

}  // namespace tagop::cli
