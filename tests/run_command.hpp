#pragma once
// Runs a command, or the tagop binary the build made (TAGOP_EXE), and
// captures its stdout, stderr and exit code: the one helper every test uses.

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

/// Runs a shell command line, capturing its stdout, stderr and exit code.
inline RunResult run_shell(const std::string& command_line) {
  static int calls = 0;
  const auto err_path = std::filesystem::temp_directory_path() /
                        ("tagop-test-stderr-" + std::to_string(::getpid()) + "-" + std::to_string(++calls));
  const std::string command = command_line + " 2>" + err_path.string();
  RunResult r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed");
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) r.out.append(buffer, n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_path);
  std::stringstream ss;
  ss << err.rdbuf();
  r.err = ss.str();
  std::filesystem::remove(err_path);
  return r;
}

/// Whether the library and the command the tests run are a sanitizer's
/// build (slower; AddressSanitizer's address space allows no ulimit -v).
/// Told by the build (TAGOP_SANITIZED), not compiled in: the tests' own
/// objects are the same in every build, and CI's sanitized build reuses
/// them from the first.
inline bool sanitized_build() { return std::getenv("TAGOP_SANITIZED") != nullptr; }

inline std::string tagop_exe() {
  const char* exe = std::getenv("TAGOP_EXE");
  if (!exe) throw std::runtime_error("TAGOP_EXE is not set: run the tests with 'meson test'");
  return exe;
}

inline RunResult run_tagop(const std::string& args) { return run_shell(tagop_exe() + " " + args); }

/// The path of a program on PATH ("perf"), or "" when there is none.
inline std::string find_in_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = dirs.find(':', start);
    const std::string dir = dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const std::filesystem::path p = std::filesystem::path(dir) / program;
    if (!dir.empty() && std::filesystem::exists(p)) return p.string();
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return {};
}

inline std::string source_path(const std::string& relative) {
  const char* root = std::getenv("TAGOP_SOURCE_ROOT");
  return std::string(root ? root : ".") + "/" + relative;
}
