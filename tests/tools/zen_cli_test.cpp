// tagop compare, events and program with the Zen core event tables: which
// Zen counter counts the same ops as an IBS derived event, in which unit,
// and that no core counter is precise. Expectations judged by hand from the
// PPR's event descriptions and the IBS derived events' definitions.

#include <algorithm>  // std::find
#include <set>        // std::set

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
  // perf's raw spelling of a 12-bit select: 0x28F -> 0x8F in bits 7:0, 0x2 in 35:32, umask 0x04 in 15:8.
  const auto show = run_tagop("events show op_cache_hit_miss.op_cache_miss");
  REQUIRE(show.exit_code == 0);
  CHECK(show.out.find("(r20000048f)") != std::string::npos);
}

TEST_CASE("compare against the Zen tables: a table of predicates judged by hand", "[cli][zen]") {
  // Each predicate, and the Zen core events that count exactly its ops on
  // each generation, judged from the PPR's descriptions as perf's
  // pmu-events data has them (ex_ret_brn_misp: "retired branch instructions
  // that were mispredicted"). Speculative events never answer a predicate.
  struct Row {
    const char* predicate;
    std::set<std::string> zen1, zen3, zen4;
  };
  const Row rows[] = {
      {"op", {"ex_ret_instr", "ex_ret_cops"}, {"ex_ret_instr", "ex_ret_ops"}, {"ex_ret_instr", "ex_ret_ops"}},
      {"branch", {"ex_ret_brn"}, {"ex_ret_brn"}, {"ex_ret_brn"}},
      {"branch & branch.mispredicted", {"ex_ret_brn_misp"}, {"ex_ret_brn_misp"}, {"ex_ret_brn_misp"}},
      {"branch.taken & branch.mispredicted", {"ex_ret_brn_tkn_misp"}, {"ex_ret_brn_tkn_misp"}, {"ex_ret_brn_tkn_misp"}},
      // branch.far alone would be wider: the vocabulary has no implication far -> branch.
      {"branch & branch.far", {"ex_ret_brn_far"}, {"ex_ret_brn_far"}, {"ex_ret_brn_far"}},
      {"return", {"ex_ret_near_ret"}, {"ex_ret_near_ret"}, {"ex_ret_near_ret"}},
      {"return & branch.mispredicted", {"ex_ret_near_ret_mispred"}, {"ex_ret_near_ret_mispred"},
       {"ex_ret_near_ret_mispred"}},
      {"branch.indirect", {}, {"ex_ret_ind_brch_instr"}, {"ex_ret_ind_brch_instr"}},
      {"branch.conditional & branch.mispredicted", {"ex_ret_cond_misp"}, {}, {}},
      {"branch & !branch.conditional", {}, {}, {"ex_ret_uncond_brnch_instr"}},
      {"resync", {"ex_ret_brn_resync"}, {"ex_ret_brn_resync"}, {}},
      {"op.microcoded", {}, {}, {"ex_ret_ucode_instr", "ex_ret_ucode_ops"}},
      {"branch.fused", {"ex_ret_fus_brnch_inst"}, {"ex_ret_fused_instr"}, {"ex_ret_fused_instr"}},
      {"load & dc.miss", {}, {}, {}},
      {"load", {}, {}, {}},
  };
  for (const Row& row : rows) {
    INFO(row.predicate);
    const auto r = run_tagop(std::string("compare '") + row.predicate + "' --json");
    REQUIRE(r.exit_code == 0);
    const json j = json::parse(r.out);
    auto same = [&](const char* zen) {
      std::set<std::string> out;
      const json b = backend(j, zen);
      for (const json& e : b.at("same")) out.insert(e.at("name").get<std::string>());
      return out;
    };
    CHECK(same("zen1") == row.zen1);
    CHECK(same("zen3") == row.zen3);
    CHECK(same("zen4") == row.zen4);
    // Where no event says it, compare says so.
    const auto cannot = j.at("cannot_measure_exactly");
    CHECK((std::find(cannot.begin(), cannot.end(), "zen3") != cannot.end()) == row.zen3.empty());
  }
}
