#pragma once
// Function and source line of an address in one ELF module (executable or
// shared library) on this machine, through elfutils' libdw.

#include <cstdint>   // std::uint64_t
#include <memory>    // std::unique_ptr
#include <optional>  // std::optional
#include <span>      // std::span
#include <string>    // std::string
#include <vector>    // std::vector
#include <string_view>  // std::string_view

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {

/// Where an address is: its function and source line.
struct SourceLocation {
  std::string function;  ///< demangled; empty when no symbol covers the address
  std::string file;      ///< source file, empty without DWARF line info
  unsigned line = 0;     ///< 1-based; 0 without DWARF line info
};

/// Thread safety: not thread-safe (libdwfl caches as it reads): one
/// ModuleSymbols per thread, or a lock around it.
class ModuleSymbols {
 public:
  /// Opens the ELF file at `path`; never returns nullptr. Throws
  /// tagop::Error saying why not: io when the file is missing or cannot be
  /// opened, damaged when it is not ELF (or has nothing loadable),
  /// not_found when `expected_build_id` (lowercase hex, as perf records it)
  /// is given and differs from the file's: a mismatched file is never used.
  static std::unique_ptr<ModuleSymbols> open(const std::string& path,
                                             const std::optional<std::string>& expected_build_id = std::nullopt);
  virtual ~ModuleSymbols() = default;

  /// The location of the instruction at `file_offset` bytes into the file
  /// (what perf's MMAP records give: ip - start + pgoff). nullopt when no
  /// loaded segment covers it.
  virtual std::optional<SourceLocation> lookup(std::uint64_t file_offset) const = 0;

  // Many offsets at once, for a report: each module's symbol table and line
  // tables are read once, in address order, and names are made only for
  // what is shown.

  /// No function (find_functions()), no file (LineRef::file).
  static constexpr std::uint32_t none = 0xFFFFFFFFu;
  /// For each of `file_offsets` (ascending), the function that holds it:
  /// an index for function_name(), or none. Reads symbols only.
  virtual void find_functions(std::span<const std::uint64_t> file_offsets, std::span<std::uint32_t> out) const = 0;
  /// A function's name, demangled.
  virtual std::string function_name(std::uint32_t function) const = 0;
  /// The same as the symbol table has it (mangled).
  virtual std::string symbol_name(std::uint32_t function) const = 0;
  /// Where a function starts, as a file offset (the kind of offset
  /// find_functions() takes); nullopt when no loaded segment holds its
  /// start.
  virtual std::optional<std::uint64_t> function_start(std::uint32_t function) const {
    (void)function;
    return std::nullopt;
  }
  /// A source line, as find_lines() gives it.
  struct LineRef {
    std::uint32_t file = none;  ///< an index for file_name(), or none
    std::uint32_t line = 0;     ///< 1-based; 0 when not known
  };
  /// For each of `file_offsets` (ascending), its source line: each compile
  /// unit's line table is decoded once.
  virtual void find_lines(std::span<const std::uint64_t> file_offsets, std::span<LineRef> out) const = 0;
  /// A source file's path, in normal form.
  virtual std::string_view file_name(std::uint32_t file) const = 0;
  /// Where to read a source file (file_name() joined to its compile
  /// unit's directory, DW_AT_comp_dir, when it is relative, as build
  /// systems that compile "../src/x.cpp" leave it).
  virtual std::string source_path(std::uint32_t file) const { return std::string(file_name(file)); }

  /// A named symbol of the module's symbol table (a function's or a data
  /// object's), for finding one by name, as `tagop annotate` does.
  struct Symbol {
    std::string name;            ///< as the table has it (mangled)
    std::uint64_t address = 0;   ///< its value: the ELF address objdump prints
    std::uint64_t size = 0;      ///< bytes; 0 when the table does not say
    /// Where it starts as a file offset (the kind find_functions() takes);
    /// nullopt when no loaded segment has its bytes in the file (.bss).
    std::optional<std::uint64_t> offset;
    bool code = false;    ///< a function (STT_FUNC, STT_GNU_IFUNC); else data (STT_OBJECT, STT_TLS, STT_COMMON)
    bool global = false;  ///< bound globally or weakly, not a file's static
  };
  /// Every defined, named function and data object of the symbol table
  /// (the module's, or its separate debug file's), in table order. Reads
  /// the table anew on each call: for a lookup by name, not per sample.
  virtual std::vector<Symbol> symbols() const { return {}; }
  /// The ELF address (as objdump prints it) of a file offset; nullopt
  /// when no loaded segment covers it.
  virtual std::optional<std::uint64_t> address_of_offset(std::uint64_t file_offset) const {
    (void)file_offset;
    return std::nullopt;
  }
  /// The file offset of an ELF address; nullopt when no loaded segment
  /// has its bytes in the file.
  virtual std::optional<std::uint64_t> offset_of_address(std::uint64_t address) const {
    (void)address;
    return std::nullopt;
  }

  /// The file's GNU build-id in lowercase hex, or "" when it has none.
  virtual std::string build_id() const = 0;

  /// What the symbols were read without, and why, so far: a separate
  /// debug file refused because it is not a regular file of a bounded size
  /// (a FIFO a debug link names would block the search for ever).
  virtual std::vector<std::string> notes() const { return {}; }
};

}  // namespace tagop
