// `tagop compare` for Arm SPE on questions judged by hand against the Arm
// ARM's SPE chapter (events packet, operation type packet) and the
// Neoverse data source encoding: which SPE derived event counts the same
// ops, or whether only the samples can answer, or nothing can.

#include <catch2/catch.hpp>

#include <string>

#include <tagop/compare/nearest_events.hpp>
#include <tagop/compare/target.hpp>
#include <tagop/registry.hpp>

using namespace tagop;
using namespace tagop::compare;

namespace {

// What SPE answers a question with.
struct Judged {
  const char* question;
  const char* same;  // the SPE event that counts the same ops; "" when none
  bool samples;      // the samples observe every condition of the question
  const char* why;
};

const Judged judged[] = {
    {"load & dc.miss", "SPE L1D refill loads", true, "a load with the L1D refill event (events bit 3)"},
    {"(load | store) & dc.miss", "SPE L1D refill ops", true, "L1D refill on loads and stores (perf's l1d-miss)"},
    {"load & l2.miss", "SPE loads beyond the L2", true, "a Neoverse data source past the L2 (0x9 to 0xE)"},
    {"load & l3.miss", "SPE LLC refill loads", true, "LLC refill (bit 9); the LLC is the L3 or system cache"},
    {"load & dtlb.l2_miss", "SPE TLB walk loads", true, "a TLB walk (bit 5): every TLB level missed"},
    {"load & src.dram", "SPE loads from DRAM", true, "Neoverse data source 0xE"},
    {"branch.mispredicted", "SPE mispredicted branches", true, "the mispredicted event (bit 7) on a branch"},
    {"branch.conditional", "SPE conditional branches", true, "op type class 2 with COND (bit 0)"},
    {"op.not_retired", "SPE ops not retired", true, "the retired event (bit 1) clear"},
    {"branch & !branch.taken", "", true, "the not-taken event (bit 6): no table row, the samples say it"},
    {"load & dc.miss & !dtlb.l2_miss", "", true, "both events are in every load's events packet"},
    {"load & dtlb.l1_miss", "", false, "SPE reports a walk, not an L1 TLB miss that the L2 TLB caught"},
    {"load & stlf.forwarded", "", false, "SPE has no store-to-load forwarding event"},
    {"ic.miss", "", false, "SPE samples operations, not fetches"},
    {"return", "", false, "perf 6.1's op type reads no return subclass"},
};

}  // namespace

TEST_CASE("SPE compare answers match a table judged by hand", "[spe][compare]") {
  const BackendInfo* spe = Registry::builtin().find("arm-spe");
  REQUIRE(spe);
  for (const Judged& j : judged) {
    INFO(j.question << ": " << j.why);
    const BackendNeighbours n = nearest_events(*spe, resolve_target(j.question));
    if (*j.same) {
      REQUIRE_FALSE(n.same.empty());
      CHECK(n.same.front().entry->name == j.same);
      CHECK(n.same.front().entry->unit == CountingUnit::operations);
    } else {
      CHECK(n.same.empty());
    }
    CHECK(n.samples_observe == j.samples);
    // IBS's sampling filters are not SPE's.
    CHECK(n.filters.empty());
  }
}
