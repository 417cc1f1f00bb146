// `tagop compare`, `tagop events list` and `tagop program` on the Skylake,
// Ice Lake and Sapphire Rapids tables, run as a user would (TAGOP_EXE is
// the built binary; TAGOP_SOURCE_ROOT the source tree, whose table headers
// the row counts are read from).

#include <algorithm>  // std::find
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

// Questions and the event each big core answers them with, judged by hand
// from perfmon's descriptions and the SDM (event code and umask beside):
// the "same" list of `tagop compare` on skylake, icelake, sapphirerapids.
// "" = no event of that table counts exactly these instructions.
struct JudgedQuestion {
  const char* predicate;
  const char* skylake;
  const char* icelake;
  const char* sapphirerapids;
};

constexpr JudgedQuestion judged[] = {
    // MEM_INST_RETIRED.STLB_MISS_LOADS 0xD0:0x11: retired loads that missed the STLB (second-level TLB).
    {"load & dtlb.l2_miss", "MEM_INST_RETIRED.STLB_MISS_LOADS", "MEM_INST_RETIRED.STLB_MISS_LOADS",
     "MEM_INST_RETIRED.STLB_MISS_LOADS"},
    // MEM_INST_RETIRED.LOCK_LOADS 0xD0:0x21: retired locked loads.
    {"load & mem.locked", "MEM_INST_RETIRED.LOCK_LOADS", "MEM_INST_RETIRED.LOCK_LOADS", "MEM_INST_RETIRED.LOCK_LOADS"},
    // MEM_LOAD_RETIRED.L3_MISS 0xD1:0x20: retired loads whose data came from beyond the L3.
    {"load & l3.miss", "MEM_LOAD_RETIRED.L3_MISS", "MEM_LOAD_RETIRED.L3_MISS", "MEM_LOAD_RETIRED.L3_MISS"},
    // MEM_LOAD_RETIRED.L1_HIT 0xD1:0x01: retired loads that hit the L1 data cache.
    {"load & !dc.miss", "MEM_LOAD_RETIRED.L1_HIT", "MEM_LOAD_RETIRED.L1_HIT", "MEM_LOAD_RETIRED.L1_HIT"},
    // MEM_LOAD_RETIRED.L2_HIT 0xD1:0x02: retired loads that missed the L1 and hit the L2.
    {"load & dc.miss & !l2.miss", "MEM_LOAD_RETIRED.L2_HIT", "MEM_LOAD_RETIRED.L2_HIT", "MEM_LOAD_RETIRED.L2_HIT"},
    // MEM_INST_RETIRED.SPLIT_LOADS 0xD0:0x41: retired loads that split across a cache line.
    {"load & mem.split_line", "MEM_INST_RETIRED.SPLIT_LOADS", "MEM_INST_RETIRED.SPLIT_LOADS",
     "MEM_INST_RETIRED.SPLIT_LOADS"},
    // XSNP_HITM 0xD2:0x04 (Skylake, Ice Lake): an L3 hit whose line another core of the package held Modified
    // (perf: L3 hit, snoop HITM); Sapphire Rapids tells snoops apart by forwarding (XSNP_FWD), not by the
    // line's state.
    {"load & src.l3 & src.cache_modified & !src.remote", "MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM",
     "MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM", ""},
    // MEM_LOAD_RETIRED.L3_HIT 0xD1:0x04: retired loads whose data came from this package's L3.
    {"load & src.l3 & !src.remote", "MEM_LOAD_RETIRED.L3_HIT", "MEM_LOAD_RETIRED.L3_HIT", "MEM_LOAD_RETIRED.L3_HIT"},
    // Near indirect branches mispredicted, returns excluded: Ice Lake and Sapphire Rapids have
    // BR_MISP_RETIRED.INDIRECT 0xC5:0x80; Skylake only the indirect calls among them.
    {"branch & branch.mispredicted & branch.indirect & !return & !branch.far", "", "BR_MISP_RETIRED.INDIRECT",
     "BR_MISP_RETIRED.INDIRECT"},
    // Retired near returns: BR_INST_RETIRED.NEAR_RETURN 0xC4:0x08.
    {"branch & return & !branch.far", "BR_INST_RETIRED.NEAR_RETURN", "BR_INST_RETIRED.NEAR_RETURN",
     "BR_INST_RETIRED.NEAR_RETURN"},
    // Uops from the microcode sequencer: UOPS_RETIRED.MS (0xC2:0x04 with MSR_PEBS_FRONTEND 0x8) is
    // Sapphire Rapids'; the Skylake and Ice Lake tables count MS uops only at issue (IDQ), not retired.
    {"op.microcoded", "", "", "UOPS_RETIRED.MS"},
};

TEST_CASE("compare answers a table of questions as judged by hand on the big cores", "[skl][icl][spr][compare]") {
  for (const JudgedQuestion& q : judged) {
    INFO(q.predicate);
    const RunResult r = run_tagop(std::string("compare '") + q.predicate + "' --json");
    REQUIRE(r.exit_code == 0);
    const json j = json::parse(r.out);
    for (const auto& [b, expected] : {std::pair{"skylake", q.skylake}, std::pair{"icelake", q.icelake},
                                      std::pair{"sapphirerapids", q.sapphirerapids}}) {
      INFO(b);
      const auto same = names(backend(j, b).at("same"));
      if (std::string(expected).empty())
        CHECK(same.empty());
      else
        CHECK(same == std::vector<std::string>{expected});
    }
  }
}
