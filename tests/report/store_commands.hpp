#pragma once
// The command against a test's own store: tagop's path, a command's --json
// answer, and a database of the test's local server for each test.

#include <cstdlib>  // std::getenv
#include <string>   // std::string

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

}  // namespace tagop::test
