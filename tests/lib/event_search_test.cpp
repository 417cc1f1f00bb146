// tagop/event_search.hpp: the did-you-mean names and the word search, held
// against the Silvermont and Goldmont tables (events/intel_slm_events.hpp,
// intel_glm_events.hpp): BACLEARS.ALL, .RETURN and .COND are the only names
// with "BACLEARS" in them, and only their descriptions say "BACLEAR".

#include <catch2/catch.hpp>

#include <algorithm>  // std::all_of
#include <set>        // std::set
#include <string>     // std::string
#include <string_view>  // std::string_view

#include <tagop/error.hpp>
#include <tagop/event_search.hpp>
#include <tagop/names.hpp>  // event_name_key

namespace {

bool starts_with_baclears(const std::string& name) { return name.starts_with("BACLEARS."); }

}  // namespace

TEST_CASE("event_name_key: libpfm4's and the SDM's spellings are one key", "[lookup][event_search]") {
  CHECK(tagop::event_name_key(" BACLEARS:ALL ") == "baclears.all");
  CHECK(tagop::event_name_key("BACLEARS.ALL") == tagop::event_name_key("baclears:all"));
  CHECK(tagop::event_name_key("MEM_UOPS_RETIRED.L1_MISS_LOADS") == "mem_uops_retired.l1_miss_loads");
  CHECK(tagop::event_name_key("\tdc.miss\n") == "dc.miss");
}

TEST_CASE("closest_event_names: a part of a name is one edit away", "[lookup][event_search]") {
  // "baclear" is in every BACLEARS.* name, so each is at most one edit
  // away; no other name of the tables is that close.
  const auto close = tagop::closest_event_names("BACLEAR");
  REQUIRE(close.size() == 3);
  CHECK(std::all_of(close.begin(), close.end(), starts_with_baclears));
  CHECK(std::set<std::string>(close.begin(), close.end()).size() == 3);  // distinct, though SLM and GLM share them
}

TEST_CASE("closest_event_names: a libpfm4 spelling with a typo finds the SDM name", "[lookup][event_search]") {
  // ':' is read as '.', and the swapped "AE" is one edit.
  const auto close = tagop::closest_event_names("baclaers:all", 1);
  REQUIRE(close.size() == 1);
  CHECK(close.front() == "BACLEARS.ALL");
}

TEST_CASE("find_events: IBS selects and SDM names in any spelling", "[lookup][event_search]") {
  const auto ibs = tagop::find_events("f206");
  REQUIRE(ibs.size() == 1);
  CHECK(ibs.front()->code == "0xF206");
  // Silvermont's and Goldmont's rows of the same name.
  const auto both = tagop::find_events("baclears.all");
  REQUIRE(both.size() == 2);
  CHECK(both[0]->backend != both[1]->backend);
  CHECK(tagop::find_events("no such event").empty());
}

TEST_CASE("search_events: every word must match, name words first", "[lookup][event_search]") {
  // BACLEARS.ALL: "baclears" and "all" are each a whole word of the name
  // (10 each); the other BACLEARS rows have no "all" anywhere.
  // MACHINE_CLEARS.ALL: "all" (10), and "baclears", of 8 letters, is a typo
  // of "clears", two deletions away (5).
  const auto hits = tagop::search_events("baclears ALL");
  REQUIRE(hits.size() == 4);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(std::string(hits[i].entry->name) == "BACLEARS.ALL");
    CHECK(hits[i].score == 20);
  }
  for (std::size_t i = 2; i < 4; ++i) {
    CHECK(std::string(hits[i].entry->name) == "MACHINE_CLEARS.ALL");
    CHECK(hits[i].score == 15);
  }
  // A prefix of a name's word scores 7: "baclear" of "baclears".
  const auto prefix = tagop::search_events("baclear");
  // .ALL, .RETURN, .COND of each Atom table, BACLEARS.ANY of each big core,
  // and Sapphire Rapids' INT_MISC.UNKNOWN_BRANCH_CYCLES by its description
  // ("Bubble cycles of BAClear"), below the names.
  REQUIRE(prefix.size() == 10);
  for (const tagop::SearchHit& h : prefix) {
    INFO(h.entry->name);
    if (std::string_view(h.entry->name).starts_with("BACLEARS."))
      CHECK(h.score == 7);
    else
      CHECK(h.score < 7);
  }
  CHECK(tagop::search_events("").empty());
}

TEST_CASE("search_events: more than max_search_words words are refused", "[lookup][event_search]") {
  std::string words;
  for (std::size_t i = 0; i < tagop::max_search_words; ++i) words += "op ";
  CHECK_NOTHROW(tagop::search_events(words));
  CHECK_THROWS_AS(tagop::search_events(words + "op"), tagop::Error);
}
