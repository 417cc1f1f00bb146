// ESCR and counter allocation: sets that fit, and sets the hardware cannot
// hold, refused with the reason.

#include <catch2/catch.hpp>

#include <map>  // std::map
#include <set>  // std::set

#include <tagop/intel_p4/programmer.hpp>

#include "p4_test_support.hpp"

using namespace tagop;
using namespace tagop::intel_p4;
using Catch::Matchers::Contains;
using p4_test::request;
using p4_test::written;

namespace {

// Which counters each ESCR MSR reaches and its CCCR select value, by hand
// from the reference sheet's ESCR table.
struct Wiring {
  unsigned select;
  std::set<unsigned> counters;
};
const std::map<std::uint32_t, Wiring> wiring = {
    {0x3B8, {4, {12, 13, 16}}}, {0x3B9, {4, {14, 15, 17}}}, {0x3CC, {5, {12, 13, 16}}}, {0x3CD, {5, {14, 15, 17}}},
    {0x3BC, {2, {12, 13, 16}}}, {0x3BD, {2, {14, 15, 17}}}, {0x3A4, {1, {8, 9}}},       {0x3A5, {1, {10, 11}}},
    {0x3AA, {2, {0, 1}}},       {0x3AB, {2, {2, 3}}},       {0x3AE, {2, {8, 9}}},       {0x3AF, {2, {10, 11}}},
};

// Every ESCR and counter written at most once, each counter driven by an
// ESCR wired to it (found through the CCCR's ESCR select among the ESCRs
// written), never counter 1.
void check_consistent(const Programming& p) {
  std::set<std::uint32_t> escrs, cccrs;
  for (const MsrWrite& w : p.msr_writes) {
    if (p4_test::is_escr(w.msr)) CHECK(escrs.insert(w.msr).second);
    if (!p4_test::is_cccr(w.msr)) continue;
    CHECK(cccrs.insert(w.msr).second);
    const unsigned counter = w.msr - 0x360;
    CHECK(counter != 1);
    const unsigned select = (w.value >> 13) & 7;
    std::size_t drivers = 0;
    for (std::uint32_t e : escrs)
      drivers += wiring.at(e).select == select && wiring.at(e).counters.count(counter);
    INFO(w.name);
    CHECK(drivers == 1);
  }
}

std::size_t escr_writes_of_event(const Programming& p, unsigned event_select, unsigned escr_select) {
  std::size_t n = 0;
  for (const MsrWrite& w : p.msr_writes)
    if (p4_test::is_escr(w.msr) && ((w.value >> 25) & 0x3F) == event_select && wiring.at(w.msr).select == escr_select)
      ++n;
  return n;
}

}  // namespace

TEST_CASE("two execution metrics share one execution_event with tags 1 and 2", "[p4]") {
  const Programming p = program(request({"packed_SP_uop_retired", "scalar_DP_uop_retired"}));
  check_consistent(p);
  CHECK(escr_writes_of_event(p, 0x0C, 5) == 1);  // one execution_event
  // FIRM_ESCR0 and FIRM_ESCR1: tag enable with tag values 1 and 2.
  CHECK(written(p, 0x3A4) == (0x08u << 25 | 1u << 24 | 1u << 4 | 1u << 5 | 0xCu));
  CHECK(written(p, 0x3A5) == (0x0Eu << 25 | 1u << 24 | 1u << 4 | 2u << 5 | 0xCu));
  // execution_event NBOGUS0 | NBOGUS1.
  CHECK(written(p, 0x3CC) == (0x0Cu << 25 | (1u << 0 | 1u << 1) << 9 | 0xCu));
}

TEST_CASE("three or four execution metrics: only two FIRM ESCRs exist", "[p4]") {
  // The four tag bits could tell four classes apart, but each upstream event
  // needs an ESCR of its own and all eight live on FIRM_ESCR0/FIRM_ESCR1.
  const auto four = request({"packed_SP_uop_retired", "packed_DP_uop_retired", "scalar_SP_uop_retired",
                             "scalar_DP_uop_retired"});
  CHECK_THROWS_WITH(program(four), Contains("cannot fit these events together") && Contains("FIRM_ESCR0, FIRM_ESCR1") &&
                                       Contains("3 events, but only 2 ESCRs"));
  CHECK_THROWS_WITH(program(request({"packed_SP_uop_retired", "packed_DP_uop_retired", "X87_FP_uop_retired"})),
                    Contains("X87_FP_uop_retired") && Contains("FIRM_ESCR0, FIRM_ESCR1"));
  const auto five = request({"packed_SP_uop_retired", "packed_DP_uop_retired", "scalar_SP_uop_retired",
                             "scalar_DP_uop_retired", "X87_FP_uop_retired"});
  CHECK_THROWS_WITH(program(five), Contains("execution_event has four tag bits"));
}

TEST_CASE("a replay metric and execution metrics fit together", "[p4]") {
  const Programming p =
      program(request({"split_load_retired", "packed_SP_uop_retired", "X87_FP_uop_retired", "uops_retired:NBOGUS"}));
  check_consistent(p);
  CHECK(written(p, 0x3AF));  // SAAT_ESCR1 for split loads: counters 10/11, shared with FIRM_ESCR1
  CHECK(escr_writes_of_event(p, 0x09, 5) == 1);
  CHECK(escr_writes_of_event(p, 0x0C, 5) == 1);
  CHECK(written(p, 0x3F1) == (1u << 10 | 1u << 24));
}

TEST_CASE("PEBS takes CRU_ESCR2 and counter 16, moving others aside", "[p4]") {
  auto r = request({"replay_event:BOGUS", "uops_retired:NBOGUS", "2ndL_cache_load_miss_retired"});
  r.events[2].pebs = true;
  r.period = 5000;
  const Programming p = program(r);
  check_consistent(p);
  CHECK(written(p, 0x3CC) == (0x09u << 25 | 1u << 9 | 0xCu));   // the metric's replay_event NBOGUS on CRU_ESCR2
  CHECK(written(p, 0x3CD) == (0x09u << 25 | 1u << 10 | 0xCu));  // the raw BOGUS one moved to CRU_ESCR3
  CHECK(written(p, 0x370) == (0x1u << 12 | 5u << 13 | 3u << 16 | 1u << 26));
  CHECK(written(p, 0x310) == (std::uint64_t{1} << 40) - 5000);
  CHECK(written(p, 0x3F1) == (1u << 1 | 1u << 24 | 1u << 25));
}

TEST_CASE("counter 1 is never used", "[p4]") {
  const Programming p = program(request({"MOB_load_replay:NO_STA", "MOB_load_replay:NO_STD"}));
  check_consistent(p);
  CHECK(written(p, 0x360));
  CHECK(written(p, 0x362));
  CHECK_FALSE(written(p, 0x361));
}

TEST_CASE("sets the hardware cannot hold are refused with the reason", "[p4]") {
  SECTION("two replay metrics with different MSR_PEBS_MATRIX_VERT") {
    CHECK_THROWS_WITH(program(request({"DTLB_load_miss_retired", "DTLB_store_miss_retired"})),
                      Contains("DTLB_load_miss_retired (IA32_PEBS_ENABLE=0x1000004, MSR_PEBS_MATRIX_VERT=0x1)") &&
                          Contains("DTLB_store_miss_retired (IA32_PEBS_ENABLE=0x1000004, MSR_PEBS_MATRIX_VERT=0x2)") &&
                          Contains("cannot be counted together"));
  }
  SECTION("two replay metrics with different IA32_PEBS_ENABLE") {
    CHECK_THROWS_WITH(program(request({"1stL_cache_load_miss_retired", "2ndL_cache_load_miss_retired"})),
                      Contains("IA32_PEBS_ENABLE=0x1000001") && Contains("IA32_PEBS_ENABLE=0x1000002"));
  }
  SECTION("two PEBS metrics") {
    CHECK_THROWS_WITH(program(request({"1stL_cache_load_miss_retired", "memory_loads"}, true)),
                      Contains("more than one PEBS metric") && Contains("counter 16"));
  }
  SECTION("PEBS on an execution metric that shares execution_event") {
    auto r = request({"packed_SP_uop_retired", "scalar_SP_uop_retired"});
    r.events[0].pebs = true;
    CHECK_THROWS_WITH(program(r), Contains("one tag bit only"));
  }
  SECTION("two front-end metrics") {
    CHECK_THROWS_WITH(program(request({"memory_loads", "memory_stores"})), Contains("front-end tagging has one tag bit"));
  }
  SECTION("three at-retirement events for the two CRU_ESCR2/3") {
    CHECK_THROWS_WITH(program(request({"memory_loads", "packed_SP_uop_retired", "split_store_retired"})),
                      Contains("CRU_ESCR2, CRU_ESCR3") && Contains("3 events, but only 2 ESCRs"));
  }
  SECTION("PEBS needs CRU_ESCR2, already held by events with no other choice") {
    auto r = request({"front_end_event:NBOGUS", "execution_event:NBOGUS0", "Tagged_mispred_branch"});
    r.events[2].pebs = true;
    CHECK_THROWS_WITH(program(r), Contains("cannot fit these events together") && Contains("CRU_ESCR2"));
  }
  SECTION("more events than ESCRs and counters") {
    CHECK_THROWS_WITH(program(request({"uops_retired:NBOGUS", "instr_retired:NBOGUSNTAG", "uops_retired:BOGUS"})),
                      Contains("CRU_ESCR0, CRU_ESCR1"));
    CHECK_THROWS_WITH(
        program(request({"MOB_load_replay:NO_STA", "MOB_load_replay:NO_STD", "MOB_load_replay_retired"})),
        Contains("MOB_ESCR0, MOB_ESCR1"));
  }
}
