#pragma once
// Names an address of a capture's process at a moment: the module mapped
// there then (from the capture's MMAP, MMAP2, COMM and FORK records, in
// time order as perf reads them), the offset in it, the function holding
// it and the source line, found as `tagop report` finds them (the same
// symbol sources: ELF files where perf looks, the kernel's symbols).
// What a call-graph tool needs to name the frames of a sample's chain
// (Sample::chain) without rebuilding the report's machinery:
//
//   perf_data::PerfDataReader reader("perf.data");
//   report::Symbolizer symbolizer(reader);
//   for (const ChainFrame& f : sample.chain)
//     std::puts(symbolizer.name(sample.pid, f.address, sample.time).function.c_str());
//
// Thread safety: not thread-safe, not even name() (it replays the
// capture's records and caches symbol tables): one thread at a time.

#include <cstdint>  // std::uint32_t, std::uint64_t
#include <memory>   // std::unique_ptr, std::shared_ptr
#include <string>   // std::string
#include <vector>   // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/kernel_symbols.hpp>    // KernelSymbolSearch
#include <tagop/perf_data_reader.hpp>  // PerfDataReader
#include <tagop/report/symbols.hpp>    // SymbolSource
#include <tagop/symbol_files.hpp>      // SymbolFileSearch

namespace tagop TAGOP_API {
namespace report {

/// Where a Symbolizer looks for symbols (perf report's --symfs, --vmlinux,
/// --kallsyms).
struct SymbolizerOptions {
  /// ELF files: --symfs, perf's build-id cache, the debug directory.
  SymbolFileSearch files{};
  /// The kernel's symbols (--vmlinux, --kallsyms). Its `files` is
  /// replaced by `files` above, and an empty `os_release` by the
  /// capture's HEADER_OSRELEASE.
  KernelSymbolSearch kernel{};
  /// Tried before the ELF files and the kernel's symbols, in order.
  std::vector<std::shared_ptr<SymbolSource>> sources{};
};

/// An address named: its module and, where symbols say, its function and line.
struct Frame {
  /// The module's path as the capture names it ("/usr/lib/libc.so.6",
  /// "[kernel.kallsyms]", "[vdso]"), or "[unknown]" where nothing was
  /// mapped at the address at that time.
  std::string module = "[unknown]";
  /// Whether a mapping held the address (else `module` is "[unknown]").
  bool mapped = false;
  /// The offset in the module: in its file (address - start + pgoff, as
  /// perf's MMAP records give it), or for the kernel's map the address.
  std::uint64_t module_offset = 0;
  /// The function holding the address, demangled as the report shows it;
  /// "" when no symbol covers it (or the module's symbols were not found).
  std::string function{};
  /// The function's name as the symbol table has it (mangled).
  std::string symbol{};
  /// Bytes from the function's start (0 when the symbols do not say where
  /// it starts).
  std::uint64_t function_offset = 0;
  /// The source file, "" without debug line information.
  std::string file{};
  /// The source line, 0 without debug line information.
  unsigned line = 0;
};

/// Names addresses of one capture's processes.
class Symbolizer {
 public:
  /// Reads the capture's process records (a pass over the file, samples
  /// skipped); `reader` is not used afterwards. Throws tagop::Error when
  /// the file cannot be read.
  explicit Symbolizer(perf_data::PerfDataReader& reader, SymbolizerOptions options = {});
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  /// The address `address` of process `pid` at `time` (a sample's time):
  /// named by the mappings of that moment, so an address mapped only later
  /// is "[unknown]". Cheapest for times that do not decrease from one call
  /// to the next (an earlier time replays the records from the start).
  /// Kernel addresses are named by the kernel's map, whatever the pid.
  Frame name(std::uint32_t pid, std::uint64_t address, std::uint64_t time);

  /// The process's name at `time` ("" when the capture never named it).
  std::string comm(std::uint32_t pid, std::uint64_t time);

  /// Why some modules have no names, once each: a symbol file whose
  /// build-id is not the recorded one, kernel symbols not found ...
  const std::vector<std::string>& warnings() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace report
}  // namespace tagop
