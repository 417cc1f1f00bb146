#pragma once
// The command against a test's own store: tagop's path, a command's --json
// answer, and a database of the test's local server for each test.

#include <algorithm>  // std::sort
#include <cstdlib>    // std::getenv
#include <fstream>    // std::ifstream
#include <iterator>   // std::istreambuf_iterator
#include <sstream>    // std::istringstream
#include <string>     // std::string
#include <vector>     // std::vector

#include <catch2/catch.hpp>
#include <fmt/format.h>       // fmt::format
#include <nlohmann/json.hpp>  // the reports' --json

#include <tagop/profiles/clickhouse.hpp>  // ClickHouseServer

#include "profiles/clickhouse_fixture.hpp"  // LocalClickHouse
#include "run_command.hpp"

namespace tagop::test {

inline const std::string& tagop_command() {
  static const std::string exe = std::getenv("TAGOP_EXE");
  return exe;
}

// A command's --json output (`environment`: variables set for it, "A=1
// B=2"); the test fails where it exits non-zero.
inline nlohmann::json run_json(const std::string& arguments, const std::string& environment = "") {
  const RunResult r = run_shell(fmt::format("{} {} {}", environment, tagop_command(), arguments));
  INFO(arguments << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

// The store's database for one test: its URL, quoted for the shell.
inline std::string database(const LocalClickHouse& local, const std::string& name) {
  profiles::ClickHouseServer(local.url()).query("CREATE DATABASE IF NOT EXISTS " + name);
  return "'" + local.url() + "/?database=" + name + "'";
}

// The data an HTML page of tagop shows: the JSON inside its
// <script id="tagop-data">.
inline nlohmann::json page_data(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::string open = "<script type=\"application/json\" id=\"tagop-data\">";
  const std::size_t start = text.find(open);
  REQUIRE(start != std::string::npos);
  const std::size_t end = text.find("</script>", start);
  REQUIRE(end != std::string::npos);
  return nlohmann::json::parse(text.substr(start + open.size(), end - start - open.size()));
}

// A command's folded stacks (its output's lines), sorted; the test fails
// where it exits non-zero.
inline std::vector<std::string> folded_lines(const std::string& arguments) {
  const RunResult r = run_shell(fmt::format("{} {}", tagop_command(), arguments));
  INFO(arguments << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace tagop::test
