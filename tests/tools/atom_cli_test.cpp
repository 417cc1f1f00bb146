// `tagop program silvermont|goldmont` and `tagop events` on the Atom
// tables, run as a user would (TAGOP_EXE is the built binary).

#include <sys/wait.h>  // WEXITSTATUS

#include <cstdlib>  // std::getenv
#include <string>   // std::string

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>  // reading the JSON output

#include "run_command.hpp"

namespace {

const nlohmann::json* msr(const nlohmann::json& j, const std::string& address) {
  for (const auto& w : j.at("msr_writes"))
    if (w.at("msr") == address) return &w;
  return nullptr;
}

}  // namespace

TEST_CASE("tagop program silvermont with PEBS", "[slm]") {
  const RunResult r = run_tagop("program silvermont MEM_UOPS_RETIRED.L2_HIT_LOADS --pebs --period 20000 --user --json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  // IA32_PERFEVTSEL0: event 0x04, umask 0x02, USR (16), EN (22); no INT on a PEBS counter.
  const auto* evtsel = msr(j, "0x186");
  REQUIRE(evtsel != nullptr);
  CHECK(evtsel->at("value") == "0x410204");
  CHECK(msr(j, "0x3f1")->at("value") == "0x1");
  CHECK(j.at("msr_writes").back().at("name") == "IA32_PERF_GLOBAL_CTRL");
  const auto& attr = j.at("perf_event_attr");
  CHECK(attr.at("type") == 4);  // PERF_TYPE_RAW
  CHECK(attr.at("config") == "0x204");
  CHECK(attr.at("precise_ip") == 2);
  CHECK(attr.at("sample_period") == 20000);
  CHECK(attr.at("exclude_kernel") == true);
}

TEST_CASE("tagop program refuses PEBS on an event that is not precise", "[slm]") {
  // MEM_UOPS_RETIRED.L1_MISS_LOADS counts `load & dc.miss` but SDM Table
  // 18-12 does not list it among Silvermont's PEBS events.
  const RunResult r = run_tagop("program silvermont MEM_UOPS_RETIRED.L1_MISS_LOADS --pebs --json");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("is not PEBS-capable on silvermont"));
  const RunResult counting = run_tagop("program silvermont MEM_UOPS_RETIRED.L1_MISS_LOADS --json");
  REQUIRE(counting.exit_code == 0);
  CHECK(msr(nlohmann::json::parse(counting.out), "0x186")->at("value") == "0x430104");
}

TEST_CASE("tagop program goldmont: counters, fixed counters, usage errors", "[glm]") {
  // --pebs is for the first event; the fixed-counter event samples beside it.
  const RunResult r = run_tagop("program goldmont d1:08 INST_RETIRED.ANY --pebs --period 1000 --json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(msr(j, "0x186")->at("value") == "0x4308d1");      // USR|OS|EN, no INT on the PEBS counter
  CHECK(msr(j, "0x3f1")->at("value") == "0x1");
  CHECK(msr(j, "0x38d")->at("value") == "0xb");           // fixed 0: OS, USR, PMI
  CHECK(j.at("msr_writes").back().at("value") == "0x100000001");
  REQUIRE(j.at("perf_event_attrs").size() == 2);
  CHECK(j.at("perf_event_attrs")[0].at("precise_ip") == 2);
  CHECK(j.at("perf_event_attrs")[1].at("precise_ip") == 0);
  CHECK(run_tagop("program goldmont ICACHE.HIT --user --kernel").exit_code == 2);
  CHECK(run_tagop("program goldmont ICACHE.HIT --offcore-rsp 0x10001").exit_code == 2);
  const RunResult unknown = run_tagop("program goldmont REHABQ.LD_SPLITS");
  CHECK(unknown.exit_code == 1);
  CHECK_THAT(unknown.err, Catch::Contains("Table 19-24"));
}

TEST_CASE("tagop events list --backend goldmont --json", "[glm]") {
  const RunResult r = run_tagop("events list --backend goldmont --json");
  REQUIRE(r.exit_code == 0);
  const auto document = nlohmann::json::parse(r.out);
  CHECK(document.at("schema") == "tagop.events.list/1");
  const auto& j = document.at("events");
  REQUIRE(j.is_array());
  CHECK(j.size() == 85 + 7 + 3);
  for (const auto& e : j) {
    CHECK(e.at("backend") == "goldmont");
    CHECK(e.at("name").is_string());
    CHECK(e.at("event").get<std::string>().starts_with("0x"));
    CHECK(e.at("umask").get<std::string>().size() == 4);
    CHECK(e.at("precise").is_boolean());
  }
  bool found = false;
  for (const auto& e : j)
    if (e.at("name") == "MEM_LOAD_UOPS_RETIRED.L1_MISS") {
      found = true;
      CHECK(e.at("event") == "0xD1");
      CHECK(e.at("umask") == "0x08");
      CHECK(e.at("precise") == true);
      CHECK(e.at("mechanism") == "precise event");
      CHECK(e.at("predicate") == "load & dc.miss");
    }
  CHECK(found);
}

TEST_CASE("tagop events show finds an Atom event by name", "[slm]") {
  const RunResult r = run_tagop("events show rehabq.ld_block_st_forward --json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("backend") == "silvermont");
  CHECK(j.at("code") == "0x03:0x01");
  CHECK(j.at("predicate") == "load & stlf.blocked");
  CHECK(j.at("precise") == true);
}

TEST_CASE("tagop program silvermont takes perf's raw and PMU-term spellings of an event", "[slm]") {
  // BR_INST_RETIRED.JCC is event 0xC4, umask 0x7E (SDM Table 19-25): perf
  // spells it r7ec4 (umask in bits 15:8), r537ec4 with USR/OS/INT/EN, or
  // cpu/event=0xc4,umask=0x7e/.
  const RunResult by_name = run_tagop("program silvermont BR_INST_RETIRED.JCC --pebs --period 10007 --json");
  REQUIRE(by_name.exit_code == 0);
  for (const char* spelling : {"r7ec4", "r537ec4", "cpu/event=0xc4,umask=0x7e/"}) {
    INFO(spelling);
    const RunResult r = run_tagop(std::string("program silvermont ") + spelling + " --pebs --period 10007 --json");
    CHECK(r.exit_code == 0);
    CHECK(r.out == by_name.out);
  }
  // A code this table has no row for is refused, naming it.
  const RunResult none = run_tagop("program silvermont r01c4 --json");
  CHECK(none.exit_code != 0);
  CHECK(none.err.find("r01c4") != std::string::npos);
}
