#pragma once
// The peers the exporters are tested against: `go tool pprof` (Debian's
// golang-go), /usr/bin/python3 with jsonschema (python3-jsonschema), and
// headless chromium; plus a scratch folder per test run.

#include <unistd.h>  // getpid

#include <cstdlib>     // std::getenv
#include <filesystem>  // temp folders
#include <map>         // parsed -top rows
#include <regex>       // parsing pprof's text
#include <sstream>     // line by line
#include <string>

#include "run_command.hpp"

namespace peers {

namespace fs = std::filesystem;

/// A fresh folder for this test binary's files, removed at exit.
inline const fs::path& scratch() {
  static const struct Scratch {
    fs::path path;
    Scratch() : path(fs::temp_directory_path() / ("tagop-profiles-" + std::to_string(::getpid()))) {
      fs::remove_all(path);
      fs::create_directories(path);
    }
    ~Scratch() { fs::remove_all(path); }
  } s;
  return s.path;
}

inline std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// `go tool pprof ARGS` with a private HOME (pprof keeps state there) and
/// no symbolization (the profile carries its own symbols).
inline RunResult pprof(const std::string& args) {
  return run_shell("HOME=" + quote(scratch().string()) + " PPROF_TMPDIR=" + quote(scratch().string()) +
                   " go tool pprof -symbolize=none " + args);
}

inline bool have_go() { return run_shell("command -v go >/dev/null").exit_code == 0; }

struct TopRow {
  std::int64_t flat = 0, cum = 0;
};

struct Top {
  std::int64_t total = -1;           // "Showing nodes accounting for ..., P% of N total"
  std::map<std::string, TopRow> rows;  // by name, " (inline)" taken off
};

/// pprof's -top text: the rows of flat and cum, whatever their unit suffix.
inline Top parse_top(const std::string& text) {
  Top top;
  static const std::regex total(R"(% of (\d+)[A-Za-z]* total)");
  static const std::regex row(R"(^\s*(\d+)[A-Za-z]*\s+[\d.]+%\s+[\d.]+%\s+(\d+)[A-Za-z]*\s+[\d.]+%\s+(.+?)(?: \(inline\))?$)");
  std::istringstream in(text);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, total)) top.total = std::stoll(m[1]);
    else if (std::regex_match(line, m, row)) top.rows[m[3]] = {std::stoll(m[1]), std::stoll(m[2])};
  }
  return top;
}

/// The python3 that has Debian's python3-jsonschema.
inline std::string python3() {
  const char* p = std::getenv("TAGOP_PYTHON3");
  return p ? p : "/usr/bin/python3";
}

}  // namespace peers
