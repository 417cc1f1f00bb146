// The Pentium 4 tables against the SDM and the reference sheet
// (shared/reference/p4-tagging.md), transcribed here by hand.

#include <catch2/catch.hpp>

#include <map>     // std::map
#include <string>  // std::string

#include <tagop/intel_p4/tables.hpp>
#include <tagop/predicate.hpp>  // Predicate
#include <tagop/registry.hpp>   // Registry

using namespace tagop;
using namespace tagop::intel_p4;

TEST_CASE("ESCRs: MSR, CCCR ESCR-select and counters as the SDM wires them", "[p4]") {
  struct Row {
    std::uint32_t msr;
    unsigned select;
    std::uint32_t counters;
  };
  const std::map<std::string, Row> expected = {
      {"CRU_ESCR0", {0x3B8, 4, 1u << 12 | 1u << 13 | 1u << 16}},
      {"CRU_ESCR1", {0x3B9, 4, 1u << 14 | 1u << 15 | 1u << 17}},
      {"CRU_ESCR2", {0x3CC, 5, 1u << 12 | 1u << 13 | 1u << 16}},
      {"CRU_ESCR3", {0x3CD, 5, 1u << 14 | 1u << 15 | 1u << 17}},
      {"RAT_ESCR0", {0x3BC, 2, 1u << 12 | 1u << 13 | 1u << 16}},
      {"RAT_ESCR1", {0x3BD, 2, 1u << 14 | 1u << 15 | 1u << 17}},
      {"FIRM_ESCR0", {0x3A4, 1, 1u << 8 | 1u << 9}},
      {"FIRM_ESCR1", {0x3A5, 1, 1u << 10 | 1u << 11}},
      {"MOB_ESCR0", {0x3AA, 2, 1u << 0 | 1u << 1}},
      {"MOB_ESCR1", {0x3AB, 2, 1u << 2 | 1u << 3}},
      {"SAAT_ESCR0", {0x3AE, 2, 1u << 8 | 1u << 9}},
      {"SAAT_ESCR1", {0x3AF, 2, 1u << 10 | 1u << 11}},
  };
  REQUIRE(escr_table().size() == expected.size());
  for (const EscrSpec& x : escr_table()) {
    INFO(x.name);
    const auto it = expected.find(std::string(x.name));
    REQUIRE(it != expected.end());
    CHECK(x.msr == it->second.msr);
    CHECK(x.escr_select == it->second.select);
    CHECK(x.counters == it->second.counters);
  }
}

TEST_CASE("counters and CCCRs: counter n at 0x300+n, CCCR n at 0x360+n", "[p4]") {
  REQUIRE(counter_table().size() == 18);
  CHECK(find_counter(16)->counter_name == "MSR_IQ_COUNTER4");
  CHECK(find_counter(16)->counter_msr == 0x310);
  CHECK(find_counter(16)->cccr_name == "MSR_IQ_CCCR4");
  CHECK(find_counter(16)->cccr_msr == 0x370);
  CHECK(find_counter(8)->cccr_name == "MSR_FLAME_CCCR0");
  CHECK(find_counter(0)->counter_name == "MSR_BPU_COUNTER0");
  CHECK(find_counter(18) == nullptr);
}

TEST_CASE("events: selects, ESCR selects and Linux's event index", "[p4]") {
  struct Row {
    unsigned select, escr_select;
    int linux_index;
  };
  // SDM Table 19-29 and enum P4_EVENTS of perf_event_p4.h.
  const std::map<std::string, Row> expected = {
      {"front_end_event", {0x08, 5, 35}}, {"execution_event", {0x0C, 5, 36}}, {"replay_event", {0x09, 5, 37}},
      {"instr_retired", {0x02, 4, 38}},   {"uops_retired", {0x01, 4, 39}},    {"uop_type", {0x02, 2, 40}},
      {"packed_SP_uop", {0x08, 1, 16}},   {"packed_DP_uop", {0x0C, 1, 17}},   {"scalar_SP_uop", {0x0A, 1, 18}},
      {"scalar_DP_uop", {0x0E, 1, 19}},   {"64bit_MMX_uop", {0x02, 1, 20}},   {"128bit_MMX_uop", {0x1A, 1, 21}},
      {"x87_FP_uop", {0x04, 1, 22}},      {"x87_SIMD_moves_uop", {0x2E, 1, -1}},
      {"MOB_load_replay", {0x03, 2, 7}},  {"load_port_replay", {0x04, 2, 5}}, {"store_port_replay", {0x05, 2, 6}},
  };
  REQUIRE(event_table().size() == expected.size());
  for (const EventSpec& e : event_table()) {
    INFO(e.name);
    const auto it = expected.find(std::string(e.name));
    REQUIRE(it != expected.end());
    CHECK(e.event_select == it->second.select);
    CHECK(e.escr_select == it->second.escr_select);
    CHECK(e.linux_index == it->second.linux_index);
  }
  // Mask bits, spot-checked: mask bit k is ESCR bit 9+k.
  CHECK(find_mask_bit(*find_event("MOB_load_replay"), "PARTIAL_DATA")->bit == 4);
  CHECK(find_mask_bit(*find_event("MOB_load_replay"), "UNALGN_ADDR")->bit == 5);
  CHECK(find_mask_bit(*find_event("packed_SP_uop"), "ALL")->bit == 15);
  CHECK(find_mask_bit(*find_event("x87_SIMD_moves_uop"), "ALLP2")->bit == 4);
  CHECK(find_mask_bit(*find_event("execution_event"), "BOGUS3")->bit == 7);
  CHECK(find_mask_bit(*find_event("uop_type"), "TAGSTORES")->bit == 2);
  CHECK(find_mask_bit(*find_event("replay_event"), "L1_LD_MISS") == nullptr);
}

TEST_CASE("metrics: 2 front-end, 8 execution, 9 replay, with their predicates", "[p4]") {
  std::map<Tagging, int> per_kind;
  for (const MetricSpec& m : metric_table()) ++per_kind[m.tagging];
  CHECK(per_kind[Tagging::front_end] == 2);
  CHECK(per_kind[Tagging::execution] == 8);
  CHECK(per_kind[Tagging::replay] == 9);

  const std::string untaggable = " & !src.io & !mem.uncacheable & !mem.locked & !return & !branch.far";
  const std::map<std::string, std::string> predicates = {
      {"memory_loads", "load"},
      {"memory_stores", "store"},
      {"packed_SP_uop_retired", "uop.packed_sp"},
      {"packed_DP_uop_retired", "uop.packed_dp"},
      {"scalar_SP_uop_retired", "uop.scalar_sp"},
      {"scalar_DP_uop_retired", "uop.scalar_dp"},
      {"128_bit_MMX_uop_retired", "uop.mmx_128"},
      {"64_bit_MMX_uop_retired", "uop.mmx_64"},
      {"X87_FP_uop_retired", "uop.x87_fp"},
      {"x87_SIMD_moves_uop_retired", "uop.x87_simd_move"},
      // SDM 18.15.6.4, the note on Table 19-33: I/O, uncacheable and locked
      // accesses, returns and far transfers cannot be tagged, by any replay
      // metric; and only the L2 misses the fast detection logic finds are.
      {"1stL_cache_load_miss_retired", "load & dc.miss" + untaggable},
      {"2ndL_cache_load_miss_retired", "load & l2.miss_fast_detected & l2.miss" + untaggable},
      {"DTLB_load_miss_retired", "load & dtlb.l2_miss" + untaggable},
      {"DTLB_store_miss_retired", "store & dtlb.l2_miss" + untaggable},
      {"DTLB_all_miss_retired", "(load & dtlb.l2_miss | store & dtlb.l2_miss)" + untaggable},
      {"Tagged_mispred_branch", "branch & branch.mispredicted" + untaggable},
      {"MOB_load_replay_retired", "load & stlf.blocked" + untaggable},
      {"split_load_retired", "load & mem.split_line" + untaggable},
      {"split_store_retired", "store & mem.split_line" + untaggable},
  };
  REQUIRE(metric_table().size() == predicates.size());
  for (const MetricSpec& m : metric_table()) {
    INFO(m.name);
    const auto it = predicates.find(std::string(m.name));
    REQUIRE(it != predicates.end());
    CHECK(Predicate::parse(m.predicate) == Predicate::parse(it->second));
  }
}

TEST_CASE("metric event texts parse; bad ones say what is wrong", "[p4]") {
  const ParsedEvent mob = parse_event("MOB_load_replay:PARTIAL_DATA:UNALGN_ADDR");
  REQUIRE(mob.event == find_event("MOB_load_replay"));
  CHECK(mob.mask == (1u << 4 | 1u << 5));
  CHECK(parse_event("replay_event:NOPE").bad_mask == "NOPE");
  CHECK(parse_event("no_such_event:NBOGUS").event == nullptr);
  CHECK(parse_event("REPLAY_EVENT:nbogus").mask == 1u);  // names are case-insensitive
}

TEST_CASE("the registry lists the p4 backend: metrics then raw events", "[p4]") {
  const BackendInfo* b = Registry::builtin().find("p4");
  REQUIRE(b != nullptr);
  CHECK(b->title == "Intel Pentium 4 (NetBurst) at-retirement tagging");
  CHECK(b->mechanism == Mechanism::at_retirement_tagging);
  const auto entries = b->events();
  REQUIRE(entries.size() == metric_table().size() + event_table().size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const EventEntry& e = entries[i];
    INFO(e.name);
    CHECK(e.backend == "p4");
    if (i < metric_table().size()) {
      CHECK(e.mechanism == Mechanism::at_retirement_tagging);
      CHECK(e.precise);
      CHECK_FALSE(e.predicate.empty());
      CHECK_NOTHROW(Predicate::parse(e.predicate));
    } else {
      CHECK(e.mechanism == Mechanism::count_only);
      CHECK_FALSE(e.precise);
      CHECK(e.predicate.empty());
    }
  }
  CHECK(entries[10].name == "1stL_cache_load_miss_retired");
  CHECK(entries[10].code == "replay_event:NBOGUS PEBS_ENABLE=0x1000001 MATRIX_VERT=0x1");
}

TEST_CASE("close names for typos", "[p4]") {
  const auto close = closest_names("1stL_cache_load_mis_retired");
  REQUIRE_FALSE(close.empty());
  CHECK(close.front() == "1stL_cache_load_miss_retired");
  CHECK(closest_names("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz").empty());
}
