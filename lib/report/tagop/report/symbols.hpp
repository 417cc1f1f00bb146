#pragma once
// Where a report's names come from: a symbol source opens a module's
// symbol table, which names the functions (and source lines) at many
// offsets at once, in ascending order. The ELF files on this machine are
// one source; a kernel's symbols (/proc/kallsyms, a vmlinux) or a build-id
// cache plug in as others (Options::symbol_sources).
//
// Thread safety: the report asks a SymbolSource and its SymbolTables from one thread at a time; an
// implementation need not lock.

#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <memory>       // std::unique_ptr, std::shared_ptr
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/process_table.hpp>  // MappedModule
#include <tagop/symbol_files.hpp>  // SymbolFileSearch

namespace tagop TAGOP_API {
namespace perf_data {
struct FileInfo;
}
namespace report {

/// A module as the capture names it (a MMAP record's file).
struct ModuleRef {
  std::string_view path;      ///< "/usr/lib/x86_64-linux-gnu/libc.so.6", "[kernel.kallsyms]"
  std::string_view build_id;  ///< lowercase hex, as perf records it; "" when unknown
  bool kernel = false;        ///< mapped by the kernel (pid -1, kernel cpumode)
  /// The kernel's map: the symbol ("_text") whose address the capture
  /// recorded, and that address (MappedModule::reloc_symbol); "" and 0
  /// when unknown (before the walk, or a capture that does not say).
  std::string_view reloc_symbol{};
  std::uint64_t reloc_address = 0;  ///< see reloc_symbol

  /// A module of a capture's process table (it views `m`'s strings).
  static ModuleRef of(const MappedModule& m) {
    return {m.filename, m.build_id, m.kernel, m.reloc_symbol, m.reloc_address};
  }
};

class SymbolTable {
 public:
  static constexpr std::uint32_t none = 0xFFFFFFFFu;
  virtual ~SymbolTable() = default;

  /// For each of `offsets` (ascending), the function that holds it: an index
  /// for function_name(), or none. An offset is what perf's MMAP records
  /// give (ip - start + pgoff): a file offset, or for the kernel's map,
  /// whose pgoff is its start, the address itself.
  virtual void functions(std::span<const std::uint64_t> offsets, std::span<std::uint32_t> out) const = 0;
  /// A function's name, demangled.
  virtual std::string function_name(std::uint32_t function) const = 0;
  /// The same as the symbol table has it (mangled); by default function_name().
  virtual std::string symbol_name(std::uint32_t function) const { return function_name(function); }
  /// The name as perf report prints it by default (its demangler without
  /// parameter lists, unless -v): symbol_name() demangled to the name alone,
  /// `bitmap_set_bit` for `bitmap_set_bit(bitmap_head*, int)`, a suffix
  /// after '@' ("@plt") kept; function_name() where symbol_name() is not a
  /// mangled C++ name. A table may override it (to keep the names it made).
  virtual std::string short_function_name(std::uint32_t function) const;
  /// Where a function starts, an offset of the kind functions() takes;
  /// nullopt when the table does not say (by default).
  virtual std::optional<std::uint64_t> function_start(std::uint32_t function) const {
    (void)function;
    return std::nullopt;
  }

  struct Line {
    std::uint32_t file = none;  ///< an index for file_name(), or none
    std::uint32_t line = 0;
  };
  /// For each of `offsets` (ascending), its source line. By default none.
  virtual void lines(std::span<const std::uint64_t> offsets, std::span<Line> out) const;
  virtual std::string file_name(std::uint32_t file) const;
  /// What the table was read without, and why (ModuleSymbols::notes()):
  /// the report adds each to its warnings once it has named its rows.
  virtual std::vector<std::string> notes() const { return {}; }
};

class SymbolSource {
 public:
  virtual ~SymbolSource() = default;
  /// The symbols of a module, or nullptr: with `problem` set when the
  /// user should be told why (a file whose build-id is not the recorded
  /// one), left empty when the source has nothing for such a module. With
  /// symbols, a `problem` is a caveat the report warns of (symbols that
  /// may not be the recorded ones).
  virtual std::unique_ptr<SymbolTable> open(const ModuleRef& module, std::string& problem) = 0;
  /// Told once, before the report walks its capture, of the modules the
  /// capture says its samples hit (perf's build-id table): a source may
  /// start reading their symbols then, on a thread of its own when
  /// `background` (the report's --threads allow a second), so that the
  /// reading overlaps the walk. By default it does nothing.
  virtual void prepare(std::span<const ModuleRef> sampled, bool background) {
    (void)sampled;
    (void)background;
  }
  /// True while open(module) would wait for a read that prepare() began in
  /// the background: a reader that need not name the module yet (the JSON
  /// lines hold its lines meanwhile) goes on with other work. By default
  /// false.
  virtual bool reading(const ModuleRef& module) const {
    (void)module;
    return false;
  }
};

/// Tells each of `sources` (SymbolSource::prepare) the modules the
/// capture says its samples hit: its build-id table (perf record lists the
/// modules its samples hit there; tagop record, the kernel always), the
/// kernel left out where every event excludes it. In the background where
/// `threads` allows a second (0: where two CPUs are idle, two_cpus_idle()).
void prepare_symbol_sources(std::span<const std::shared_ptr<SymbolSource>> sources,
                            const perf_data::FileInfo& capture, std::size_t threads);

/// ELF files where perf finds them (tagop::find_symbol_files): perf's
/// build-id cache (which also holds the [vdso] image perf record saved),
/// the distribution's debug files, and the recorded path (under
/// `search.symfs` when given); a file is used only when its build-id is the
/// recorded one. A module found nowhere is left unnamed, silently (the
/// common case for a capture from elsewhere); one whose files all have
/// another build-id says so.
std::shared_ptr<SymbolSource> elf_symbol_source(const SymbolFileSearch& search = {});

}  // namespace report
}  // namespace tagop
