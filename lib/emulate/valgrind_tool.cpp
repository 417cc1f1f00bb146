#include <tagop/emulate/valgrind_tool.hpp>

#include <unistd.h>  // readlink, access

#include <cerrno>       // errno
#include <cstdlib>      // std::getenv, mkdtemp
#include <cstring>      // std::strerror
#include <filesystem>   // directory_iterator, create_symlink
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

#include "valgrind_tool_paths.hpp"  // built_tool, installed_tool, build_root (made by Meson)

namespace tagop::emulate {

namespace fs = std::filesystem;

namespace {

constexpr const char* tool_file = "tagop-amd64-linux";
constexpr const char* core_marker = "vgpreload_core-amd64-linux.so";

bool is_file(const std::string& p) { return !p.empty() && ::access(p.c_str(), R_OK | X_OK) == 0; }

std::string self_path() {
  std::error_code e;
  const fs::path p = fs::read_symlink("/proc/self/exe", e);
  return e ? std::string() : p.string();
}

}  // namespace

std::string valgrind_tool_path() {
  if (const char* env = std::getenv("TAGOP_VALGRIND_TOOL"); env && *env)
    return std::string_view(env) == "lackey" ? std::string() : std::string(env);
  // A tagop run from its build folder uses the tool built with it.
  const std::string self = self_path();
  const std::string_view root = valgrind_tool_paths::build_root;
  if (!root.empty() && self.starts_with(std::string(root) + "/") && is_file(valgrind_tool_paths::built_tool))
    return valgrind_tool_paths::built_tool;
  if (is_file(valgrind_tool_paths::installed_tool)) return valgrind_tool_paths::installed_tool;
  if (is_file(valgrind_tool_paths::built_tool)) return valgrind_tool_paths::built_tool;
  return {};
}

std::string valgrind_core_folder(const std::string& valgrind) {
  std::vector<fs::path> candidates;
  // Beside the valgrind found on PATH: BIN/../libexec/valgrind (Debian), BIN/../lib/valgrind.
  std::string found = valgrind;
  if (valgrind.find('/') == std::string::npos) {
    found.clear();
    const char* path = std::getenv("PATH");
    for (std::string_view rest = path ? path : ""; !rest.empty();) {
      const auto colon = rest.find(':');
      const std::string dir(rest.substr(0, colon));
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
      if (!dir.empty() && is_file(dir + "/" + valgrind)) {
        found = dir + "/" + valgrind;
        break;
      }
    }
  }
  if (!found.empty()) {
    std::error_code e;
    const fs::path bin = fs::canonical(found, e).parent_path();
    if (!e) {
      candidates.push_back(bin.parent_path() / "libexec" / "valgrind");
      candidates.push_back(bin.parent_path() / "lib" / "valgrind");
      candidates.push_back(bin.parent_path() / "lib" / "x86_64-linux-gnu" / "valgrind");
    }
  }
  candidates.push_back("/usr/libexec/valgrind");
  candidates.push_back("/usr/lib/valgrind");
  for (const fs::path& c : candidates)
    if (::access((c / core_marker).c_str(), R_OK) == 0) return c.string();
  return {};
}

ValgrindToolDir::ValgrindToolDir(const std::string& tool, const std::string& core_folder) {
  std::string pattern = (fs::temp_directory_path() / "tagop-valgrind-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    throw Error(fmt::format("cannot make a folder for Valgrind's tool ({}): {}", pattern, std::strerror(errno)));
  path_ = pattern;
  std::error_code e;
  for (const fs::directory_entry& f : fs::directory_iterator(core_folder, e)) {
    if (f.path().filename() == tool_file) continue;
    fs::create_symlink(f.path(), fs::path(path_) / f.path().filename(), e);
  }
  fs::create_symlink(fs::absolute(tool), fs::path(path_) / tool_file, e);
  if (e) {
    fs::remove_all(path_, e);
    throw Error(fmt::format("cannot link Valgrind's core files from {} and the tool {} into a folder: {}",
                            core_folder, tool, e.message()));
  }
}

ValgrindToolDir::~ValgrindToolDir() {
  std::error_code e;
  fs::remove_all(path_, e);
}

}  // namespace tagop::emulate
