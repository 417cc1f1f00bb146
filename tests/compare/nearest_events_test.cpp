// tagop/compare/*.hpp, the computation under `tagop compare`, through the
// C++ API. The expectations are worked out from the tables by hand:
// events/amd_ibs_derived_events.hpp (0xF206 "(load | store) & dc.miss",
// 0xF201 "load", 0xF219 "load & dc.miss" summing cycles, 0xF000 every
// fetch sample, 0xF001 "fetch.killed"), events/intel_slm_events.hpp
// (MEM_UOPS_RETIRED.L1_MISS_LOADS "load & dc.miss", in uops) and
// backends/amd_ibs/sampling_filters.cpp (L3MissOnly: "op & l3.miss").

#include <catch2/catch.hpp>

#include <algorithm>  // std::any_of, std::find_if
#include <string>     // std::string
#include <vector>     // std::vector

#include <tagop/compare/nearest_events.hpp>
#include <tagop/compare/target.hpp>
#include <tagop/compare/vendor_notes.hpp>
#include <tagop/error.hpp>
#include <tagop/event_search.hpp>
#include <tagop/predicate_relation.hpp>

using namespace tagop;
using namespace tagop::compare;

namespace {

const EventEntry& only_event(std::string_view spelling, std::string_view backend) {
  const auto found = find_events(spelling);
  const auto it = std::find_if(found.begin(), found.end(), [&](const EventEntry* e) { return e->backend == backend; });
  REQUIRE(it != found.end());
  return **it;
}

bool same_ops(const Predicate& a, std::string_view b) { return relation(a, Predicate::parse(b)) == Relation::same; }

const BackendNeighbours& of_backend(const std::vector<BackendNeighbours>& all, std::string_view name) {
  const auto it = std::find_if(all.begin(), all.end(), [&](const BackendNeighbours& b) { return b.backend->name == name; });
  REQUIRE(it != all.end());
  return *it;
}

bool has_code(const std::vector<Neighbour>& list, std::string_view code) {
  return std::any_of(list.begin(), list.end(), [&](const Neighbour& n) { return n.entry->code == code; });
}

}  // namespace

TEST_CASE("effective_predicate makes the kind explicit", "[compare][lib]") {
  const Predicate killed = effective_predicate(only_event("0xF001", "amd-ibs"));
  CHECK(same_ops(killed, "fetch & fetch.killed"));
  CHECK_THAT(killed.to_string(), Catch::Contains("fetch"));
  // Every fetch sample: the kind alone.
  CHECK(same_ops(effective_predicate(only_event("0xF000", "amd-ibs")), "fetch"));
  CHECK(same_ops(effective_predicate(only_event("0xF206", "amd-ibs")), "op & (load | store) & dc.miss"));
  CHECK(has_op_predicate(only_event("0xF000", "amd-ibs")));
  CHECK(!has_op_predicate(only_event("BACLEARS.ALL", "silvermont")));  // counts occurrences
}

TEST_CASE("resolve_target: an event, or a predicate with its kind added", "[compare][lib]") {
  const Target event = resolve_target("0xF206");
  CHECK(event.label == "0xF206 IBS DC miss (amd-ibs), counting macro-ops");
  CHECK(event.unit == CountingUnit::macro_ops);
  CHECK(same_ops(event.predicate, "op & (load | store) & dc.miss"));

  const Target ops = resolve_target("load & dc.miss");
  CHECK(!ops.unit);
  CHECK(same_ops(ops.predicate, "op & load & dc.miss"));
  CHECK(ops.label == ops.predicate.to_string());
  // ic.* is of fetches.
  CHECK(same_ops(resolve_target("ic.miss").predicate, "fetch & ic.miss"));

  CHECK_THROWS_WITH(resolve_target("BACLEARS.ALL"), Catch::Contains("counts occurrences, not ops"));
  CHECK_THROWS_WITH(resolve_target("BACLEARS.AL &"), Catch::Contains("did you mean") && Catch::Contains("BACLEARS."));
}

TEST_CASE("nearest_events: op & load & dc.miss on IBS and Silvermont", "[compare][lib]") {
  const std::vector<BackendNeighbours> all = nearest_events(resolve_target("load & dc.miss"));
  REQUIRE(all.size() == Registry::builtin().backends().size());

  const BackendNeighbours& ibs = of_backend(all, "amd-ibs");
  // No IBS derived event counts exactly these ops: 0xF219 asks the same
  // but sums cycles over them.
  CHECK(ibs.same.empty());
  CHECK(has_code(ibs.same_condition, "0xF219"));
  CHECK(ibs.of(Closeness::same_condition).size() == ibs.same_condition.size());
  // But every IBS op sample observes load and dc.miss.
  CHECK(ibs.samples_observe);
  CHECK(ibs.measurable());
  // The nearest wider events, over {op, load, store, dc.miss}: 0xF206
  // shares 2 of the 3 assignments that meet either; 0xF201 ("op & load")
  // 1 of 2 (dc.miss either way).
  REQUIRE(ibs.wider.size() >= 2);
  CHECK(ibs.wider[0].entry->code == "0xF206");
  CHECK(*ibs.wider[0].overlap == Approx(2.0 / 3));
  CHECK(ibs.wider[0].conditions_apart == 1);  // store
  CHECK(ibs.wider[1].entry->code == "0xF201");
  CHECK(*ibs.wider[1].overlap == Approx(0.5));
  for (const Neighbour& n : ibs.narrower)
    CHECK(relation(effective_predicate(*n.entry), Predicate::parse("op & load & dc.miss")) == Relation::narrower);

  // Silvermont counts the same loads in uops, and a predicate asks for
  // ops in any unit.
  const BackendNeighbours& slm = of_backend(all, "silvermont");
  REQUIRE(!slm.same.empty());
  CHECK(std::string(slm.same.front().entry->name) == "MEM_UOPS_RETIRED.L1_MISS_LOADS");
  CHECK(slm.filters.empty());  // sampling filters are IBS's
  CHECK(!slm.samples_observe);
}

TEST_CASE("nearest_events: what only L3MissOnly answers", "[compare][lib]") {
  // IBS samples do not observe l3.miss; a capture with L3MissOnly, whose
  // every sample is "op & l3.miss", does: wider than the target, and the
  // samples observe the load.
  const std::vector<BackendNeighbours> all = nearest_events(resolve_target("load & l3.miss"));
  const BackendNeighbours& ibs = of_backend(all, "amd-ibs");
  CHECK(!ibs.samples_observe);
  CHECK(ibs.filter_answers);
  CHECK(ibs.measurable());
  const auto l3 = std::find_if(ibs.filters.begin(), ibs.filters.end(),
                               [](const FilterMatch& f) { return f.spec->perf_event == "ibs_op/l3missonly=1/"; });
  REQUIRE(l3 != ibs.filters.end());
  CHECK(l3->relation == Relation::wider);
  CHECK(l3->answers);
  // ldlat's loads missed the DC, which every L3 miss did: wider too, but
  // its threshold keeps only some of them, so it answers nothing.
  const auto ldlat = std::find_if(ibs.filters.begin(), ibs.filters.end(),
                                  [](const FilterMatch& f) { return f.spec->name == "ldlat"; });
  REQUIRE(ldlat != ibs.filters.end());
  CHECK(ldlat->relation == Relation::wider);
  CHECK(!ldlat->answers);
}

TEST_CASE("vendor notes: where an address points", "[compare][lib]") {
  CHECK_THAT(address_precision(only_event("0xF206", "amd-ibs")), Catch::StartsWith("exact instruction"));
  CHECK_THAT(address_precision(only_event("0xF001", "amd-ibs")), Catch::StartsWith("fetch address"));
  CHECK_THAT(sample_meaning(only_event("BACLEARS.ALL", "silvermont")), Catch::Contains("occurrences"));
}
