// Checks of the model itself, on real programs (tests/emulate/*.cpp, built
// by Meson) run under Valgrind by `tagop emulate`, their IBS samples read
// back by `tagop report`: the expectations come from what the programs do
// (a chase through a buffer larger than the L2 misses the L1 on every
// load; a branch on random bits is a coin toss), not from the model.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "../run_command.hpp"

namespace {

using json = nlohmann::json;

std::string program(const char* name) {
  const char* path = std::getenv(name);
  if (!path) throw std::runtime_error(std::string(name) + " is not set: run the tests with 'meson test'");
  return path;
}

struct Capture {
  std::filesystem::path path;
  explicit Capture(const std::string& name)
      : path(std::filesystem::temp_directory_path() / ("tagop-emulate-" + std::to_string(::getpid()) + "-" + name)) {}
  ~Capture() { std::filesystem::remove(path); }
};

// Emulates `command` as zen3 with an op sample every 16 ops, then reports it.
json emulate_and_report(const std::string& command, const std::string& report_args, const std::string& name) {
  Capture capture(name + ".data");
  const RunResult e = run_tagop("emulate --as zen3 --period 16 -o " + capture.path.string() + " -- " + command);
  INFO(e.err);
  REQUIRE(e.exit_code == 0);
  const RunResult r = run_tagop("report " + capture.path.string() + " --json --top 0 " + report_args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

// The row named `name_part`, else the first whose name holds it.
const json& row(const json& report, const std::string& name_part) {
  for (const json& r : report["rows"])
    if (r["name"] == name_part) return r;
  for (const json& r : report["rows"])
    if (r["name"].get<std::string>().find(name_part) != std::string::npos) return r;
  FAIL("no row named like " << name_part);
  throw std::logic_error("unreachable");
}

// The 1-based number of the line of `file` that holds `text`.
int line_of(const std::string& file, const std::string& text) {
  std::ifstream in(source_path(file));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(text) != std::string::npos) return n;
  throw std::runtime_error(file + " has no line with " + text);
}

}  // namespace

TEST_CASE("a pointer chase through more than the L2 misses the data cache on nearly every load", "[emulate]") {
  // 1 MiB: twice zen3's 512 KiB L2; 16384 nodes, 10000 steps at random.
  const json r = emulate_and_report(program("TAGOP_EMULATE_POINTER_CHASE") + " 1048576 10000",
                                    "--events 0xF201,0xF206,dc_miss_rate", "chase-large");
  const json& chase = row(r, "chase");
  CHECK(chase["values"]["0xF201"].get<double>() > 500);  // loads sampled (10000 steps / 16)
  CHECK(chase["values"]["dc_miss_rate"].get<double>() > 0.95);
}

TEST_CASE("a pointer chase through less than the L1 hits the data cache on nearly every load", "[emulate]") {
  // 8 KiB, a quarter of the 32 KiB L1: 128 nodes, missed once each, then 9872 hits.
  const json r = emulate_and_report(program("TAGOP_EMULATE_POINTER_CHASE") + " 8192 10000",
                                    "--events 0xF201,0xF206,dc_miss_rate", "chase-small");
  const json& chase = row(r, "chase");
  CHECK(chase["values"]["0xF201"].get<double>() > 500);
  CHECK(chase["values"]["dc_miss_rate"].get<double>() < 0.03);
}

TEST_CASE("a branch on random bits mispredicts half the time, a loop branch almost never", "[emulate]") {
  const json r = emulate_and_report(program("TAGOP_EMULATE_BRANCHES") + " 10000",
                                    "--by line --where 'op & branch' --events 0xF103,0xF104,mispredict_rate",
                                    "branches");
  const std::string file = "tests/emulate/branches.cpp";
  const json& coin = row(r, "branches.cpp:" + std::to_string(line_of(file, "if (b & 1)")));
  const json& loop = row(r, "branches.cpp:" + std::to_string(line_of(file, "for (long i = 0; i < n; ++i)")));
  CHECK(coin["values"]["0xF103"].get<double>() > 500);
  CHECK(coin["values"]["mispredict_rate"].get<double>() > 0.4);
  CHECK(coin["values"]["mispredict_rate"].get<double>() < 0.6);
  CHECK(loop["values"]["0xF103"].get<double>() > 500);
  CHECK(loop["values"]["mispredict_rate"].get<double>() < 0.02);
}

TEST_CASE("a walk with a 2 MiB stride misses the DTLB", "[emulate]") {
  // 128 pages: twice the 64 entries of zen3's L1 DTLB, and all in one set
  // of its 16-way L2 DTLB (4 KiB page numbers 512 apart).
  const json r = emulate_and_report(program("TAGOP_EMULATE_PAGE_STRIDE") + " 128 10",
                                    "--events 0xF200,0xF203,0xF205,dtlb_miss_rate", "stride");
  const json& walk = row(r, "walk");
  const double accesses = walk["values"]["0xF200"].get<double>();
  CHECK(accesses > 40);  // 1280 loads / 16
  CHECK(walk["values"]["dtlb_miss_rate"].get<double>() > 0.95);
  CHECK(walk["values"]["0xF205"].get<double>() > 0.9 * accesses);  // missed the L2 DTLB too
}
