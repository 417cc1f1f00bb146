#pragma once
// Where to read the symbols of a module a capture names, as perf finds
// them: the capture gives a path and a build-id; the file may be the path
// itself, a copy under `--symfs DIR`, perf's build-id cache (~/.debug), or
// a distribution's debug file (/usr/lib/debug). Every candidate must be a
// regular file whose build-id is the one recorded; FIFOs and devices are
// never opened for reading.
//
//   auto found = tagop::find_symbol_files("/usr/lib/libc.so.6", "93ac61ec...", {.symfs = "/mnt/box"});
//   if (!found.files.empty()) read_symbols(found.files.front().path);
//   else for (const auto& why : found.rejected) std::cerr << why << '\n';
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {

/// Opens `path` read-only when it is a regular file (following links),
/// without ever blocking on a FIFO or a device: returns the descriptor
/// (close-on-exec), or -1 with `problem` saying why ("a FIFO", "a
/// directory", or the errno text).
int open_regular_file(const std::string& path, std::string& problem);

/// The GNU build-id of an ELF file in lowercase hex, "" when it has none;
/// nullopt, with `problem` saying why, when it is not a readable regular
/// ELF file.
std::optional<std::string> file_build_id(const std::string& path, std::string& problem);

/// Whether a build-id perf recorded names the file whose build-id is
/// `file_id`: perf pads a shorter id (a 16-byte one) with zeros to 20
/// bytes, so trailing zeros past the file's id are padding. Both lowercase.
bool same_build_id(std::string_view file_id, std::string_view recorded);

/// Where to look.
struct SymbolFileSearch {
  /// `--symfs DIR`: the root where the recording machine's files were
  /// copied; every system path is looked up under it. "" for none.
  std::string symfs{};
  /// perf's build-id cache: $PERF_BUILDID_DIR, else $HOME/.debug ("" to skip).
  std::string build_id_dir = default_build_id_dir();
  /// The distribution's debug files, under symfs like perf.
  std::string debug_dir = "/usr/lib/debug";

  /// $PERF_BUILDID_DIR, else $HOME/.debug, else "".
  static std::string default_build_id_dir();
};

/// Which of perf's places (its DSO_BINARY_TYPE__*) a candidate is.
enum class SymbolFileOrigin {
  build_id_cache,           ///< DIR/.build-id/xx/rest, or DIR/.build-id/xx/rest/elf
  build_id_cache_debug,     ///< DIR/.build-id/xx/rest/debug
  debug_path,               ///< /usr/lib/debug/PATH.debug (Fedora)
  debug_mirror,             ///< /usr/lib/debug/PATH (Debian, Ubuntu)
  debug_build_id,           ///< /usr/lib/debug/.build-id/xx/rest.debug
  module_path,              ///< PATH itself (under symfs when given)
};

/// "build-id cache", "debug file by build-id", "the module's path" ...
std::string_view describe(SymbolFileOrigin origin);

struct SymbolFileCandidate {
  std::string path;
  SymbolFileOrigin origin;
};

/// Where perf would look for the symbols of `module_path`, in its order
/// (tools/perf/util/symbol.c binary_type_symtab, dso.c
/// dso__read_binary_type_filename); without a build-id, only the places
/// named by the path.
std::vector<SymbolFileCandidate> symbol_file_candidates(std::string_view module_path, std::string_view build_id,
                                                        const SymbolFileSearch& search = {});

struct SymbolFile {
  std::string path;
  SymbolFileOrigin origin;
  /// False when the capture recorded no build-id: the file is the one at
  /// that path now, which may not be the one that ran.
  bool build_id_checked = false;
};

struct SymbolFileSearchResult {
  /// Every usable candidate, in perf's order: the first is the one perf
  /// reads symbols from when it has a symbol table.
  std::vector<SymbolFile> files;
  /// "PATH: why not" for each candidate that exists but was not used (a
  /// different build-id, not a regular file, not ELF).
  std::vector<std::string> rejected;
};

/// Looks in every place of symbol_file_candidates(); `build_id` is
/// lowercase hex as the capture recorded it, "" when it has none.
SymbolFileSearchResult find_symbol_files(std::string_view module_path, std::string_view build_id,
                                         const SymbolFileSearch& search = {});

}  // namespace tagop
