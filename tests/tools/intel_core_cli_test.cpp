// `tagop compare`, `tagop events list` and `tagop program` on the Skylake,
// Ice Lake and Sapphire Rapids tables, run as a user would (TAGOP_EXE is
// the built binary; TAGOP_SOURCE_ROOT the source tree, whose table headers
// the row counts are read from).

#include <cstdlib>  // std::getenv
#include <fstream>  // std::ifstream
#include <string>   // std::string
#include <vector>   // std::vector

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>  // reading the JSON output

#include "run_command.hpp"

using nlohmann::json;

namespace {

json backend(const json& j, const std::string& name) {
  for (const json& b : j.at("backends"))
    if (b.at("backend") == name) return b;
  FAIL("no backend " << name);
  return {};
}

std::vector<std::string> names(const json& list) {
  std::vector<std::string> out;
  for (const json& e : list) out.push_back(e.at("name"));
  return out;
}

const json* msr(const json& j, const std::string& address) {
  for (const auto& w : j.at("msr_writes"))
    if (w.at("msr") == address) return &w;
  return nullptr;
}

// Rows of a table header: its lines that open a row ("    {.event = ").
std::size_t rows_in_header(const std::string& file) {
  const char* root = std::getenv("TAGOP_SOURCE_ROOT");
  REQUIRE(root != nullptr);
  std::ifstream in(std::string(root) + "/events/" + file);
  REQUIRE(in);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += line.starts_with("    {.event = ");
  return n;
}

}  // namespace

TEST_CASE("compare 'load & l2.miss' names MEM_LOAD_RETIRED.L2_MISS on the big cores", "[skl][icl][spr][compare]") {
  // Judged by hand: perfmon's MEM_LOAD_RETIRED.L2_MISS (0xD1 umask 0x10)
  // counts "retired load instructions missed L2 cache as data sources",
  // a PEBS event on all three; its L3 hits and misses are narrower, the
  // L1 misses wider.
  const RunResult r = run_tagop("compare 'load & l2.miss' --json");
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  for (const char* b : {"skylake", "icelake", "sapphirerapids"}) {
    INFO(b);
    const json same = backend(j, b).at("same");
    CHECK(names(same) == std::vector<std::string>{"MEM_LOAD_RETIRED.L2_MISS"});
    REQUIRE(same.size() == 1);
    CHECK(same[0].at("code") == "0xD1:0x10");
    CHECK(same[0].at("unit") == "instructions");
    CHECK(same[0].at("mechanism") == "precise event");
    const auto narrower = names(backend(j, b).at("narrower"));
    CHECK(std::find(narrower.begin(), narrower.end(), "MEM_LOAD_RETIRED.L3_MISS") != narrower.end());
  }
  // A mispredicted conditional branch: BR_MISP_RETIRED.CONDITIONAL on
  // Skylake, BR_MISP_RETIRED.COND on Ice Lake and Sapphire Rapids.
  const json br = json::parse(run_tagop("compare 'branch.mispredicted & branch.conditional' --json").out);
  const auto skl = names(backend(br, "skylake").at("same"));
  CHECK(std::find(skl.begin(), skl.end(), "BR_MISP_RETIRED.CONDITIONAL") != skl.end());
  CHECK(names(backend(br, "icelake").at("same")) == std::vector<std::string>{"BR_MISP_RETIRED.COND"});
  CHECK(names(backend(br, "sapphirerapids").at("same")) == std::vector<std::string>{"BR_MISP_RETIRED.COND"});
  // Loads from remote DRAM: a server row of the Skylake table.
  const json remote = json::parse(run_tagop("compare 'load & src.dram & src.remote' --json").out);
  CHECK(names(backend(remote, "skylake").at("same")) ==
        std::vector<std::string>{"MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM"});
}

TEST_CASE("tagop events list counts every row of the big-core tables", "[skl][icl][spr]") {
  for (const auto& [b, file] : {std::pair{"skylake", "intel_skl_events.hpp"}, std::pair{"icelake", "intel_icl_events.hpp"},
                                std::pair{"sapphirerapids", "intel_spr_events.hpp"}}) {
    INFO(b);
    const RunResult r = run_tagop(std::string("events list --backend ") + b + " --json");
    REQUIRE(r.exit_code == 0);
    const json events = json::parse(r.out).at("events");
    CHECK(events.size() == rows_in_header(file));
    CHECK(events.size() > 250);
  }
}

TEST_CASE("tagop program skylake with PEBS", "[skl]") {
  const RunResult r = run_tagop("program skylake MEM_LOAD_RETIRED.L2_MISS --pebs --period 10007 --user --json");
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  // IA32_PERFEVTSEL0: 0xD1, umask 0x10, USR (16), EN (22); no INT on a PEBS counter.
  CHECK(msr(j, "0x186")->at("value") == "0x4110d1");
  CHECK(msr(j, "0x3f1")->at("value") == "0x1");
  const json& attr = j.at("perf_event_attr");
  CHECK(attr.at("config") == "0x10d1");
  CHECK(attr.at("precise_ip") == 3);
}

TEST_CASE("tagop program takes perf's mem-loads with --ldlat", "[icl][spr]") {
  const RunResult icl = run_tagop("program icelake mem-loads --pebs --ldlat 30 --json");
  REQUIRE(icl.exit_code == 0);
  const json j = json::parse(icl.out);
  CHECK(msr(j, "0x3f6")->at("value") == "0x1e");  // MSR_PEBS_LD_LAT_THRESHOLD = 30
  CHECK(j.at("perf_event_attr").at("config") == "0x1cd");
  CHECK(j.at("perf_event_attr").at("config1") == "0x1e");
  // Sapphire Rapids: the load latency event follows mem-loads-aux (0x03:0x82).
  const RunResult spr = run_tagop("program sapphirerapids cpu/mem-loads,ldlat=30/ --pebs --ldlat 30 --json");
  REQUIRE(spr.exit_code == 0);
  const json attrs = json::parse(spr.out).at("perf_event_attrs");
  REQUIRE(attrs.size() == 2);
  CHECK(attrs[0].at("config") == "0x8203");
  CHECK(attrs[1].at("config") == "0x1cd");
  // perf's spelling carries its threshold: the same as --ldlat.
  const RunResult spelled = run_tagop("program sapphirerapids cpu/mem-loads,ldlat=30/ --pebs --json");
  REQUIRE(spelled.exit_code == 0);
  CHECK(spelled.out == spr.out);
  const json icl_spelled = json::parse(run_tagop("program icelake cpu/mem-loads,ldlat=77/ --pebs --json").out);
  CHECK(icl_spelled.at("perf_event_attr").at("config1") == "0x4d");
  // ldlat on another event is a usage error; a bad threshold the hardware's.
  CHECK(run_tagop("program icelake MEM_LOAD_RETIRED.L2_MISS --pebs --ldlat 30").exit_code == 2);
  const RunResult zero = run_tagop("program icelake mem-loads --pebs --ldlat 0");
  CHECK(zero.exit_code == 1);
  CHECK_THAT(zero.err, Catch::Contains("out of range"));
}
