// The command line, as a user runs it: JSON shapes and values, and the
// exit codes of bad usage.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "run_command.hpp"

using nlohmann::json;

TEST_CASE("decode --json: fields and the events keyed by select value", "[cli][ibs]") {
  // A load (bit 0) that missed the DC (bit 7) with a 0x20-cycle miss latency
  // (bits 47:32), served by local DRAM (NbIbsReqSrc = 3); IbsOpData has a
  // tag-to-retire count of 0x30 (bits 31:16).
  const auto r = run_tagop(
      "decode ibs-op IbsOpCtl=0 IbsOpRip=0x401000 IbsOpData=0x300000 IbsOpData2=3 IbsOpData3=0x2000000081 "
      "IbsDcLinAd=0 IbsDcPhysAd=0 --family 10h --json");
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(j["unit"] == "ibs_op");
  CHECK(j["fields"]["IbsLdOp"] == 1);
  CHECK(j["fields"]["IbsDcMiss"] == 1);
  CHECK(j["fields"]["IbsDcMissLat"] == 0x20);
  CHECK(j["fields"]["NbIbsReqSrc"] == 3);
  CHECK(j["fields"]["IbsOpRip"] == "0x401000");
  const json expected_events = {{"0xF100", 1}, {"0xF101", 0x30}, {"0xF102", 0},   {"0xF200", 1},
                                {"0xF201", 1}, {"0xF206", 1},    {"0xF219", 0x20}, {"0xF240", 1},
                                {"0xF245", 1}, {"0xF24B", 0x20}};
  CHECK(j["events"] == expected_events);
  CHECK(j["not_available"] == json::array());
}

TEST_CASE("decode text names every field and the events", "[cli][ibs]") {
  const auto r = run_tagop("decode ibs-fetch IbsFetchCtl=0x0014000500000000");
  REQUIRE(r.exit_code == 0);
  // Bits 50 (FetchComp) and 52 (PhyAddrValid), latency 5.
  CHECK_THAT(r.out, Catch::Contains("IbsFetchComp") && Catch::Contains("IbsFetchLat"));
  CHECK_THAT(r.out, Catch::Contains("0xF00E  IBS fetch latency") && Catch::Contains("+5"));
}

TEST_CASE("decode --input totals a file of samples", "[cli][ibs]") {
  const auto r = run_tagop("decode --input " + source_path("examples/ibs-samples.txt") + " --json");
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(j["samples"]["fetch"].get<int>() > 0);
  CHECK(j["samples"]["op"].get<int>() > 0);
  CHECK(j["events"].size() == 59);
  // all fetch samples = killed + attempted, for any file
  CHECK(j["events"]["0xF000"].get<int>() == j["events"]["0xF001"].get<int>() + j["events"]["0xF002"].get<int>());
}

TEST_CASE("program ibs-op --json: the MSR write and the perf_event_attr", "[cli][ibs]") {
  const auto r = run_tagop("program ibs-op --period 0x10000 --count-ops --family 10h --model 4 --json");
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  REQUIRE(j["msr_writes"].size() == 1);
  CHECK(j["msr_writes"][0]["msr"] == "0xc0011033");
  CHECK(j["msr_writes"][0]["name"] == "IbsOpCtl");
  CHECK(j["msr_writes"][0]["value"] == "0xa1000");  // 0x1000 | 1 << 17 | 1 << 19
  CHECK(j["perf_event_attr"]["pmu"] == "ibs_op");
  CHECK(j["perf_event_attr"]["config"] == "0x80000");
  CHECK(j["perf_event_attr"]["sample_period"] == 65536);
}

TEST_CASE("events list --backend amd-ibs --json", "[cli][ibs]") {
  const auto r = run_tagop("events list --backend amd-ibs --json");
  REQUIRE(r.exit_code == 0);
  const json document = json::parse(r.out);
  CHECK(document.at("schema") == "tagop.events.list/1");
  const json& j = document.at("events");
  REQUIRE(j.size() == 59);
  CHECK(j[0]["select"] == "0xF000");
  const auto dc_miss = std::find_if(j.begin(), j.end(), [](const json& e) { return e["select"] == "0xF206"; });
  REQUIRE(dc_miss != j.end());
  CHECK((*dc_miss)["name"] == "IBS DC miss");
  CHECK((*dc_miss)["abbreviation"] == "IBS DC miss");
  CHECK((*dc_miss)["predicate"] == "(load | store) & dc.miss");
}

TEST_CASE("events show finds an event by select value in any spelling", "[cli][ibs]") {
  for (const char* spelling : {"0xF206", "F206", "f206", "'IBS DC miss'"}) {
    const auto r = run_tagop(std::string("events show ") + spelling + " --json");
    INFO(spelling);
    REQUIRE(r.exit_code == 0);
    CHECK(json::parse(r.out)["code"] == "0xF206");
  }
  const auto missing = run_tagop("events show 0xF999");
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.err, Catch::Contains("no event named '0xF999'"));
}

TEST_CASE("bad usage exits 2 and says what was wrong", "[cli]") {
  struct Bad {
    const char* args;
    const char* message;
  };
  for (const Bad& b : {Bad{"", "tagop: expected a command (decode, program, events"},
                       Bad{"decode ibs-op IbsOpData3", "'IbsOpData3' is not REGISTER=VALUE"},
                       Bad{"decode ibs-op IbsOpData3=zz", "IbsOpData3 'zz' is not a number"},
                       Bad{"decode ibs-op IbsFetchCtl=1", "IbsFetchCtl belongs to ibs_fetch samples"},
                       Bad{"decode ibs-op Nope=1", "unknown register 'Nope' for ibs_op"},
                       Bad{"decode ibs-op IbsOpData3=1 --family 0x1000", "family '0x1000' is not a number from 0 to 255"},
                       Bad{"program ibs-op --user --kernel", "excludes"},
                       Bad{"program ibs-op --format xml", "--format"},
                       Bad{"frobnicate", "frobnicate"}}) {
    INFO(b.args);
    const auto r = run_tagop(b.args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(b.message));
  }
}

TEST_CASE("a request the hardware cannot do exits 1 with the reason", "[cli][ibs]") {
  const auto r = run_tagop("program ibs-op --count-ops --family 10h --model 2");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("needs OpCnt"));
  const auto no_ibs = run_tagop("decode ibs-op IbsOpData3=1 --family 15");
  CHECK(no_ibs.exit_code == 1);
  CHECK_THAT(no_ibs.err, Catch::Contains("no Instruction-Based Sampling"));
}

TEST_CASE("--help teaches: every command has examples", "[cli]") {
  for (const char* command : {"decode", "program ibs-op", "program ibs-fetch"}) {
    const auto r = run_tagop(std::string(command) + " --help");
    INFO(command);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("Example"));
  }
}
