#pragma once
// The peers the exporters are tested against: `go tool pprof` (Debian's
// golang-go), /usr/bin/python3 with jsonschema (python3-jsonschema), and
// headless chromium (its console problems, and what the page's
// self-check wrote on <body>); plus a scratch folder per test run.

#include <unistd.h>  // getpid

#include <cstdlib>     // std::getenv
#include <filesystem>  // temp folders
#include <fstream>     // the validation script
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

/// The lines of `path` that fail `schema` (a file under the source root)
/// with Debian's python3-jsonschema, and their count: "valid N\n" when all
/// pass.
inline RunResult validate_lines(const std::string& schema, const std::string& path) {
  const std::string script =
      "import json, sys, jsonschema\n"
      "schema = json.load(open(sys.argv[1]))\n"
      "v = jsonschema.Draft202012Validator(schema)\n"
      "jsonschema.Draft202012Validator.check_schema(schema)\n"
      "n = 0\n"
      "for line in open(sys.argv[2], encoding='utf-8'):\n"
      "    v.validate(json.loads(line)); n += 1\n"
      "print('valid', n)\n";
  const std::string script_path = (scratch() / "validate.py").string();
  std::ofstream(script_path) << script;
  return run_shell(python3() + " " + script_path + " " + quote(source_path(schema)) + " " + quote(path));
}

inline bool have_chromium() { return run_shell("command -v chromium >/dev/null").exit_code == 0; }

/// Chromium, headless, fresh profile, no background networking.
inline RunResult chromium(const std::string& args) {
  const std::string profile = (scratch() / "chromium-profile").string();
  return run_shell("chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                   "--disable-background-networking --disable-component-update --disable-sync "
                   "--user-data-dir=" + quote(profile) + " --enable-logging=stderr --v=0 " + args);
}

/// What the page's self-check wrote on <body>.
inline std::string body_attribute(const std::string& dom, const std::string& name) {
  const std::regex re("<body[^>]*\\s" + name + "=\"([^\"]*)\"");
  std::smatch m;
  return std::regex_search(dom, m, re) ? m[1].str() : "(missing)";
}

/// Chromium's log lines that report a console message or an uncaught error.
inline std::string console_problems(const std::string& log) {
  std::istringstream in(log);
  std::string problems;
  for (std::string line; std::getline(in, line);)
    if (line.find("CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos ||
        line.find("net::ERR") != std::string::npos)
      problems += line + "\n";
  return problems;
}

}  // namespace peers
