#pragma once
// The kernel's symbols, to name kernel addresses the way `perf report`
// does: the running kernel's build-id (/sys/kernel/notes), a sorted symbol
// table from /proc/kallsyms (or a copy of it, such as the one perf keeps
// in ~/.debug/[kernel.kallsyms]/BUILD-ID/kallsyms) or from a vmlinux ELF
// file, and lookups of address -> (symbol, offset), one at a time or for a
// sorted batch. Where several symbols share an address, the one perf shows
// is kept (tools/perf/util/symbol.c, choose_best_symbol); a symbol without
// a size ends where the next one starts.
//
//   auto search = tagop::find_kernel_symbols(capture_kernel_build_id, {.vmlinux = "", .kallsyms = ""});
//   if (search.found) {
//     tagop::KernelSymbols table = tagop::load_kernel_symbols(*search.found);
//     if (auto hit = table.find(0xffffffff8120a2b0)) print(hit->symbol->name, hit->offset);
//   }
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <cstdint>      // std::uint64_t, std::int64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/api.hpp>  // TAGOP_API
#include <tagop/symbol_files.hpp>  // SymbolFileSearch

namespace tagop TAGOP_API {

/// The GNU build-id among ELF notes (the bytes of a note section, as
/// /sys/kernel/notes gives the kernel's): lowercase hex, "" when none.
std::string build_id_in_notes(std::span<const std::byte> notes);

/// The running kernel's build-id, from /sys/kernel/notes ("" when it
/// cannot be read or has none).
std::string running_kernel_build_id(const std::string& notes_path = "/sys/kernel/notes");

/// A kernel module as /proc/modules lists it.
struct LoadedModule {
  std::string name;
  std::uint64_t start = 0;  ///< 0 when the kernel hides addresses
  std::uint64_t size = 0;
};

/// The modules in /proc/modules (none when the file is missing: a kernel
/// without modules).
std::vector<LoadedModule> loaded_kernel_modules(const std::string& path = "/proc/modules");

/// A loaded module's build-id, from /sys/module/NAME/notes/.note.gnu.build-id.
std::string kernel_module_build_id(std::string_view module, const std::string& sys_module = "/sys/module");

/// One kernel symbol. Its name and module view the table that holds it.
struct KernelSymbol {
  std::uint64_t start = 0;
  std::uint64_t end = 0;  ///< past its last byte; == start: it covers only start
  /// The table holds its module's name right after it, as a byte of
  /// length and the bytes (module()): a second view in each symbol was
  /// 2 MiB of a kallsyms' table.
  std::string_view name;
  char type = 'T';  ///< kallsyms' letter (nm's, for a vmlinux)

  /// "" for the kernel image, "ext4" for [ext4]'s.
  std::string_view module() const {
    const char* const after = name.data() + name.size();
    return {after + 1, static_cast<unsigned char>(*after)};
  }
};

/// An address within a symbol.
struct KernelSymbolHit {
  const KernelSymbol* symbol = nullptr;
  std::uint64_t offset = 0;  ///< from the symbol's start
};

class KernelSymbols {
 public:
  /// Reads a kallsyms file: /proc/kallsyms, or a copy of one. Throws
  /// tagop::Error when it cannot be read, has a malformed line (named by
  /// its number), or every address is 0 (the kernel hides them from this
  /// user: /proc/sys/kernel/kptr_restrict).
  static KernelSymbols from_kallsyms(const std::string& path = "/proc/kallsyms");
  /// The same from the text of one; `name` says where it came from.
  static KernelSymbols parse_kallsyms(std::string_view text, const std::string& name);
  /// The symbol table of a vmlinux ELF file (.symtab, else .dynsym), at
  /// its link-time addresses: relocate() by the running kernel's _text
  /// when it was moved (KASLR). Throws tagop::Error when it is not a
  /// regular ELF file with symbols.
  static KernelSymbols from_vmlinux(const std::string& path);

  KernelSymbols(KernelSymbols&&) noexcept = default;
  KernelSymbols& operator=(KernelSymbols&&) noexcept = default;
  KernelSymbols(const KernelSymbols&) = delete;
  KernelSymbols& operator=(const KernelSymbols&) = delete;

  /// The symbol that covers `address`, nullopt when none does.
  std::optional<KernelSymbolHit> find(std::uint64_t address) const;
  /// find() for each of `addresses`, which must be in ascending order (the
  /// order of a report's sorted addresses): one pass over the table.
  /// Throws tagop::Error when they are not sorted.
  std::vector<std::optional<KernelSymbolHit>> find_sorted(std::span<const std::uint64_t> addresses) const;

  /// The address of the symbol so named (the first, if several), e.g.
  /// "_text", to compute a relocation.
  std::optional<std::uint64_t> address_of(std::string_view name) const;
  /// Moves every symbol by `delta` bytes (runtime _text - the table's).
  void relocate(std::int64_t delta);

  /// Sorted by start; no two share one.
  std::span<const KernelSymbol> symbols() const { return symbols_; }
  /// The file read ("/proc/kallsyms", the vmlinux's path).
  const std::string& source() const { return source_; }
  /// The vmlinux's GNU build-id ("" for kallsyms, which has none).
  const std::string& build_id() const { return build_id_; }

 private:
  KernelSymbols() = default;
  std::string source_, build_id_;
  std::vector<char> names_;  ///< every name and module, back to back: views stay valid when moved
  std::vector<KernelSymbol> symbols_;
  std::vector<KernelSymbol> aliases_;  ///< those that share an address with a symbol kept
  friend struct KernelSymbolsBuilder;
};

/// The kernel's text as the running kernel lays it out, for the MMAP record
/// perf synthesises ("[kernel.kallsyms]_text" from _text to _etext).
struct KernelText {
  std::uint64_t start = 0;  ///< _text
  std::uint64_t end = 0;    ///< _etext
};

/// _text and _etext from a kallsyms file; nullopt when either is missing or
/// the addresses are hidden (kptr_restrict).
std::optional<KernelText> running_kernel_text(const std::string& kallsyms = "/proc/kallsyms");

/// Where to find the kernel's symbols for a capture (perf report's
/// --vmlinux, --kallsyms, --symfs and its build-id cache).
struct KernelSymbolSearch {
  std::string vmlinux{};   ///< --vmlinux FILE: used only if its build-id matches (or none is known)
  std::string kallsyms{};  ///< --kallsyms FILE: used as given
  SymbolFileSearch files{};
  /// The recording machine's release (HEADER_OSRELEASE), for perf's
  /// vmlinux paths (/boot/vmlinux-RELEASE ...); "" to skip them.
  std::string os_release{};
  std::string running_kallsyms = "/proc/kallsyms";
  std::string running_notes = "/sys/kernel/notes";
};

struct KernelSymbolSource {
  std::string path;
  bool vmlinux = false;  ///< an ELF file, else kallsyms text
  std::string why;       ///< "the running kernel's /proc/kallsyms (same build-id)" ...
};

struct KernelSymbolSearchResult {
  std::optional<KernelSymbolSource> found;
  /// Where `found` is perf's build-id cache copy chosen ahead of the
  /// running kernel's kallsyms (the same build-id): that kallsyms, for a
  /// capture that does not record where its kernel was (no "_text" in its
  /// kernel map, so a copy from another boot could not be moved to it).
  std::optional<KernelSymbolSource> fallback{};
  /// "PATH: why not" for each place that was tried and refused.
  std::vector<std::string> rejected;
};

/// Chooses the kernel symbols of a capture whose kernel had `build_id`
/// ("" when the capture does not say), in perf's order
/// (dso__load_kernel_sym): --kallsyms; --vmlinux; the vmlinux paths of the
/// release; then, without symfs, the running kernel's kallsyms when its
/// build-id is the capture's (or the capture has none), else the copy in
/// the build-id cache. One change from perf: where the running kernel is
/// the capture's and the build-id cache holds the kallsyms perf record kept
/// of it, that copy is chosen (a file read as it is, where /proc/kallsyms
/// costs the kernel 40-70 ms to write on every read), with the running
/// kernel's as `fallback`; moved by the capture's "_text" (see
/// report::kernel_symbol_source), both name the kernel's symbols alike.
KernelSymbolSearchResult find_kernel_symbols(std::string_view build_id, const KernelSymbolSearch& search);

/// Reads what find_kernel_symbols() chose.
KernelSymbols load_kernel_symbols(const KernelSymbolSource& source);

}  // namespace tagop
