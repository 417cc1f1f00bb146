#pragma once
// tagop's own Valgrind tool (lib/emulate/vgtool/tagop_tool.c): where it is,
// and the folder Valgrind loads it from. Valgrind starts a tool from the
// folder VALGRIND_LIB names and finds its core files (vgpreload_core,
// default.supp, ...) there too, so the folder holds the tool beside links
// to the system's core files; it is made for each run and removed after.
// Not thread-safe: a ValgrindToolDir is one run's folder.

#include <string>  // std::string

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {
namespace emulate {

/// The tool's file (tagop-amd64-linux): $TAGOP_VALGRIND_TOOL when set
/// ("" when it is set to "lackey", to ask for the Lackey trace), else the
/// one built beside a tagop run from its build folder, else the installed
/// one; "" when none is there (Valgrind's headers were missing at build
/// time).
std::string valgrind_tool_path();

/// The system's folder of Valgrind core files for `valgrind` (a name on
/// PATH or a path): the one that holds vgpreload_core-amd64-linux.so; ""
/// when none is found.
std::string valgrind_core_folder(const std::string& valgrind);

/// One run's VALGRIND_LIB folder, removed when it goes.
class ValgrindToolDir {
 public:
  /// Makes a temporary folder with `tool` (as tagop-amd64-linux) and links
  /// to each file of `core_folder`. Throws tagop::Error when it cannot.
  ValgrindToolDir(const std::string& tool, const std::string& core_folder);
  /// Removes the folder.
  ~ValgrindToolDir();
  ValgrindToolDir(const ValgrindToolDir&) = delete;
  ValgrindToolDir& operator=(const ValgrindToolDir&) = delete;

  /// The folder, for VALGRIND_LIB.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace emulate
}  // namespace tagop
