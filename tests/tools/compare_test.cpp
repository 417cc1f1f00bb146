// tagop compare: neighbours ranked by closeness, and events that count the
// same condition in another unit (instructions, uops, AMD macro-ops,
// cycles) told apart from those that count the same thing.

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

std::vector<std::string> names(const json& list) {
  std::vector<std::string> out;
  for (const json& e : list) out.push_back(e.at("name"));
  return out;
}

}  // namespace

TEST_CASE("compare ranks the nearest wider and narrower events first", "[cli][compare]") {
  const auto r = run_tagop("compare 'load & dc.miss' --json");
  REQUIRE(r.exit_code == 0);
  const json ibs = backend(json::parse(r.out), "amd-ibs");
  // 0xF206 (load or store that missed) shares 2/3 of the truth table; the
  // loads 1/2, all ops 1/4 (op is asked by both).
  const auto wider = ibs.at("wider");
  REQUIRE(wider.size() >= 4);
  CHECK(wider[0].at("code") == "0xF206");
  CHECK(wider[0].at("overlap").get<double>() == Approx(2.0 / 3.0));
  CHECK(wider[0].at("conditions_apart") == 1);
  CHECK(wider[1].at("code") == "0xF201");
  for (std::size_t i = 1; i < wider.size(); ++i)
    CHECK(wider[i - 1].at("overlap").get<double>() >= wider[i].at("overlap").get<double>());
  // The text shows 0xF206 among the first four, before "+N more".
  const auto text = run_tagop("compare 'load & dc.miss'");
  CHECK(text.out.find("wider     0xF206") < text.out.find("wider     0xF100"));
  // Narrower: the L2-hit loads of Goldmont are nearer than its HITM loads.
  const json glm = backend(json::parse(r.out), "goldmont");
  const auto narrower = names(glm.at("narrower"));
  REQUIRE(narrower.size() >= 2);
  CHECK(std::find(narrower.begin(), narrower.end(), "MEM_LOAD_UOPS_RETIRED.L2_HIT") <
        std::find(narrower.begin(), narrower.end(), "MEM_LOAD_UOPS_RETIRED.HITM"));
}

TEST_CASE("compare tells the same condition in another unit from the same count", "[cli][compare]") {
  const auto r = run_tagop("compare INST_RETIRED.ANY_P --json");
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(j.at("unit") == "instructions");
  // AMD's IBS op samples count macro-ops: the same condition (op), another unit.
  const json ibs = backend(j, "amd-ibs");
  CHECK(ibs.at("same").empty());
  const auto ibs_same_condition = ibs.at("same_condition_different_unit");
  REQUIRE_FALSE(ibs_same_condition.empty());
  CHECK(ibs_same_condition[0].at("code") == "0xF100");
  CHECK(ibs_same_condition[0].at("unit") == "macro-ops");
  // Silvermont: INST_RETIRED.ANY_P and the fixed counter are the same;
  // UOPS_RETIRED.ALL counts uops.
  const json slm = backend(j, "silvermont");
  const auto same = names(slm.at("same"));
  CHECK(std::find(same.begin(), same.end(), "INST_RETIRED.ANY_P") != same.end());
  CHECK(std::find(same.begin(), same.end(), "UOPS_RETIRED.ALL") == same.end());
  const auto other_unit = names(slm.at("same_condition_different_unit"));
  CHECK(std::find(other_unit.begin(), other_unit.end(), "UOPS_RETIRED.ALL") != other_unit.end());
  // The text says it in those words.
  const auto text = run_tagop("compare INST_RETIRED.ANY_P");
  CHECK_THAT(text.out, Catch::Contains("same condition, different unit:") &&
                           Catch::Contains("counts:  macro-ops, not instructions"));
  // A latency event sums cycles over the ops a predicate asks for.
  const json latency = backend(json::parse(run_tagop("compare 'load & dc.miss' --json").out), "amd-ibs");
  CHECK(names(latency.at("same_condition_different_unit")) == std::vector<std::string>{"IBS DC miss load latency"});
}

// Judged by hand: Silvermont's MEM_UOPS_RETIRED.L2_MISS_LOADS and Goldmont's
// MEM_LOAD_UOPS_RETIRED.L2_MISS count retired loads that missed the L2
// (SDM Tables 19-25 and 19-24), which missed the L1 first: the same ops as
// `load & l2.miss`; Goldmont's DRAM_HIT loads all missed the L2 (narrower);
// its L1_MISS loads include L2 hits (wider).
TEST_CASE("compare knows that an L2 miss is a DC miss", "[cli][compare]") {
  const auto r = run_tagop("compare 'load & l2.miss' --json");
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(names(backend(j, "silvermont").at("same")) == std::vector<std::string>{"MEM_UOPS_RETIRED.L2_MISS_LOADS"});
  const json glm = backend(j, "goldmont");
  CHECK(names(glm.at("same")) == std::vector<std::string>{"MEM_LOAD_UOPS_RETIRED.L2_MISS"});
  const auto narrower = names(glm.at("narrower")), wider = names(glm.at("wider"));
  CHECK(std::find(narrower.begin(), narrower.end(), "MEM_LOAD_UOPS_RETIRED.DRAM_HIT") != narrower.end());
  CHECK(std::find(wider.begin(), wider.end(), "MEM_LOAD_UOPS_RETIRED.L1_MISS") != wider.end());
  // IBS answers it from its samples, and its data-source events are narrower.
  const json ibs = backend(j, "amd-ibs");
  CHECK(ibs.at("measurable") == true);
  const auto ibs_narrower = ibs.at("narrower");
  CHECK(std::any_of(ibs_narrower.begin(), ibs_narrower.end(), [](const json& e) { return e.at("code") == "0xF240"; }));
  // What the others imply is left out of the simplest form.
  const json spelled = json::parse(run_tagop("compare 'load & dc.miss & l2.miss' --json").out);
  CHECK(spelled.at("predicate") == "op & load & dc.miss & l2.miss");
  CHECK(spelled.at("simplest") == "op & load & l2.miss");
  CHECK(run_tagop("compare 'load & dc.miss & l2.miss'").out.find("same as:   op & load & l2.miss") !=
        std::string::npos);
  // A predicate no op meets is refused, with the implication it breaks.
  const auto none = run_tagop("compare 'l2.miss & !dc.miss'");
  CHECK(none.exit_code == 1);
  CHECK_THAT(none.err, Catch::Contains("meets no op") &&
                           Catch::Contains("an access that missed the L2 missed the L1 data cache first"));
}
