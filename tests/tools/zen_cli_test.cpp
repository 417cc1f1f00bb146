// tagop compare, events and program with the Zen core event tables: which
// Zen counter counts the same ops as an IBS derived event, in which unit,
// and that no core counter is precise. Expectations judged by hand from the
// PPR's event descriptions and the IBS derived events' definitions.

#include <algorithm>  // std::find

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "run_command.hpp"

using nlohmann::json;

namespace {

json backend(const json& j, const std::string& name) {
  for (const json& b : j.at("backends"))
    if (b.at("backend") == name) return b;
  FAIL("no backend " << name);
  return {};
}

bool lists(const json& list, const std::string& name) {
  for (const json& e : list)
    if (e.at("name") == name) return true;
  return false;
}

}  // namespace

TEST_CASE("compare names Zen's mispredicted-branch counter beside IBS", "[cli][zen]") {
  const auto r = run_tagop("compare 'branch & branch.mispredicted' --json");
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  for (const char* zen : {"zen1", "zen2", "zen3", "zen4"}) {
    INFO(zen);
    const json b = backend(j, zen);
    CHECK(lists(b.at("same"), "ex_ret_brn_misp"));
    for (const json& e : b.at("same")) {
      CHECK(e.at("precise") == false);
      CHECK(e.at("address").get<std::string>().find("skid") != std::string::npos);
    }
  }
  // IBS: 0xF104, the mispredicted branch op.
  bool ibs = false;
  const json ibs_backend = backend(j, "amd-ibs");
  for (const json& e : ibs_backend.at("same")) ibs |= e.at("code") == "0xF104";
  CHECK(ibs);
}

TEST_CASE("compare tells the unit apart: IBS counts macro-ops, ex_ret_brn instructions", "[cli][zen]") {
  // IBS 0xF103 (branch op) against Zen 3: ex_ret_brn counts the same
  // condition in instructions.
  const auto r = run_tagop("compare 0xF103 --json");
  REQUIRE(r.exit_code == 0);
  const json zen3 = backend(json::parse(r.out), "zen3");
  CHECK(lists(zen3.at("same_condition_different_unit"), "ex_ret_brn"));
  CHECK(!lists(zen3.at("same"), "ex_ret_brn"));
  const auto text = run_tagop("compare 0xF103");
  REQUIRE(text.exit_code == 0);
  const auto at = text.out.find("ex_ret_brn ");
  REQUIRE(at != std::string::npos);
  const std::string after = text.out.substr(at, 600);
  CHECK(after.find("counts:  instructions, not macro-ops") != std::string::npos);
  CHECK(after.find("none precise") != std::string::npos);
  // ex_ret_ops counts macro-ops, IBS's unit: every op is the same on both.
  const auto ops = run_tagop("compare ex_ret_ops --json");
  REQUIRE(ops.exit_code == 0);
  CHECK(json::parse(ops.out).at("unit") == "macro-ops");
}

TEST_CASE("compare of a Zen event finds the IBS derived event", "[cli][zen]") {
  const auto r = run_tagop("compare ex_ret_near_ret_mispred --json");
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  bool f108 = false;
  const json ibs = backend(j, "amd-ibs");
  for (const json& e : ibs.at("same_condition_different_unit")) f108 |= e.at("code") == "0xF108";
  CHECK(f108);
  // A speculative event has no predicate to compare.
  const auto spec = run_tagop("compare ls_dispatch.ld_dispatch");
  CHECK(spec.exit_code != 0);
  CHECK(spec.err.find("occurrences") != std::string::npos);
}

TEST_CASE("program zen3 prints the PERF_CTL and refuses a precise sample", "[cli][zen]") {
  const auto r = run_tagop("program zen3 ex_ret_brn_misp --period 10007 --user --json");
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  REQUIRE(j.at("perf_event_attrs").size() == 1);
  const json attr = j.at("perf_event_attrs")[0];
  CHECK(attr.at("config") == "0xc3");
  CHECK(attr.at("precise_ip") == 0);
  const auto precise = run_tagop("program zen3 ex_ret_brn_misp --precise");
  CHECK(precise.exit_code != 0);
  CHECK(precise.err.find("IBS") != std::string::npos);
  // A 12-bit select by perf's raw spelling.
  const auto raw = run_tagop("program zen4 r20000048f --json");
  REQUIRE(raw.exit_code == 0);
  CHECK(json::parse(raw.out).at("perf_event_attrs")[0].at("config") == "0x20000048f");
}

TEST_CASE("events list shows the Zen tables", "[cli][zen]") {
  const auto r = run_tagop("events list --backend zen4 --json");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("ex_ret_ucode_ops") != std::string::npos);
  const auto zen1 = run_tagop("events list --backend zen1 --json");
  REQUIRE(zen1.exit_code == 0);
  CHECK(zen1.out.find("ex_ret_ucode_ops") == std::string::npos);
  CHECK(zen1.out.find("ex_ret_cops") != std::string::npos);
}
