// The Silvermont and Goldmont tables: sizes and PEBS sets against the SDM,
// well-formed rows, lookups, encodings and the registry view.

#include <algorithm>  // std::count_if
#include <set>        // std::set
#include <string>     // std::string

#include <catch2/catch.hpp>

#include <tagop/error.hpp>               // Error
#include <tagop/intel_core/events.hpp>   // the tables
#include <tagop/predicate.hpp>           // Predicate
#include <tagop/registry.hpp>            // Registry

using namespace tagop;
using namespace tagop::intel_core;

namespace {

// Architectural rows carry the SDM Table 19-1 names, which have spaces.
bool architectural(const EventSpec& e) { return e.name.find(' ') != std::string_view::npos; }
bool fixed(const EventSpec& e) { return e.fixed_counter >= 0; }
bool table_row(const EventSpec& e) { return !architectural(e) && !fixed(e); }

std::set<std::string> precise_table_rows(Microarchitecture uarch) {
  std::set<std::string> out;
  for (const EventSpec& e : pmu_spec(uarch).events)
    if (table_row(e) && e.precise) out.emplace(e.name);
  return out;
}

std::size_t count(Microarchitecture uarch, bool (*pred)(const EventSpec&)) {
  const auto events = pmu_spec(uarch).events;
  return static_cast<std::size_t>(std::count_if(events.begin(), events.end(), pred));
}

}  // namespace

TEST_CASE("Silvermont table size and PEBS set follow the SDM", "[slm]") {
  // SDM Table 19-25 as Intel's perfmon SILVERMONT data reproduces it: 72
  // events (8 REHABQ, 8 MEM_UOPS_RETIRED, 6 PAGE_WALKS, 2 LONGEST_LAT_CACHE,
  // L2_REJECT_XQ, CORE_REJECT_L2Q, 2 CPU_CLK_UNHALTED, 3 ICACHE, 3
  // FETCH_STALL, 2 OFFCORE_RESPONSE, INST_RETIRED.ANY_P, 2 UOPS_RETIRED, 4
  // MACHINE_CLEARS, 10 BR_INST_RETIRED, 6 BR_MISP_RETIRED, 5
  // NO_ALLOC_CYCLES, 2 RS_FULL_STALL, CYCLES_DIV_BUSY, 3 BACLEARS,
  // MS_DECODED, DECODE_RESTRICTION); Table 19-1 adds 7 architectural
  // events and there are 3 fixed counters.
  CHECK(count(Microarchitecture::silvermont, table_row) == 8 + 8 + 6 + 2 + 1 + 1 + 2 + 3 + 3 + 2 + 1 + 2 + 4 + 10 +
                                                               6 + 5 + 2 + 1 + 3 + 1 + 1);
  CHECK(count(Microarchitecture::silvermont, architectural) == 7);
  CHECK(count(Microarchitecture::silvermont, fixed) == 3);
  // SDM Table 18-12, "PEBS Performance Events for the Silvermont
  // Microarchitecture": 21 events.
  const std::set<std::string> sdm_18_12 = {
      "BR_INST_RETIRED.ALL_BRANCHES",   "BR_INST_RETIRED.JCC",          "BR_INST_RETIRED.TAKEN_JCC",
      "BR_INST_RETIRED.CALL",           "BR_INST_RETIRED.REL_CALL",     "BR_INST_RETIRED.IND_CALL",
      "BR_INST_RETIRED.NON_RETURN_IND", "BR_INST_RETIRED.FAR_BRANCH",   "BR_INST_RETIRED.RETURN",
      "BR_MISP_RETIRED.ALL_BRANCHES",   "BR_MISP_RETIRED.JCC",          "BR_MISP_RETIRED.TAKEN_JCC",
      "BR_MISP_RETIRED.IND_CALL",       "BR_MISP_RETIRED.NON_RETURN_IND", "BR_MISP_RETIRED.RETURN",
      "MEM_UOPS_RETIRED.L2_HIT_LOADS",  "MEM_UOPS_RETIRED.L2_MISS_LOADS", "MEM_UOPS_RETIRED.DTLB_MISS_LOADS",
      "MEM_UOPS_RETIRED.HITM",          "REHABQ.LD_BLOCK_ST_FORWARD",   "REHABQ.LD_SPLITS",
  };
  REQUIRE(sdm_18_12.size() == 21);
  CHECK(precise_table_rows(Microarchitecture::silvermont) == sdm_18_12);
}

TEST_CASE("Goldmont table size and PEBS set follow the SDM", "[glm]") {
  // SDM Table 19-24 as Intel's perfmon GOLDMONT data reproduces it: 85
  // events (5 LD_BLOCKS, 3 PAGE_WALKS, UOPS_ISSUED, 2 MISALIGN_MEM_REF, 2
  // LONGEST_LAT_CACHE, L2_REJECT_XQ, CORE_REJECT_L2Q, 2 CPU_CLK_UNHALTED,
  // DL1, 3 ICACHE, ITLB, 3 FETCH_STALL, UOPS_NOT_DELIVERED, 2
  // OFFCORE_RESPONSE, INST_RETIRED.ANY_P, 4 UOPS_RETIRED, 5 MACHINE_CLEARS,
  // 10 BR_INST_RETIRED, 6 BR_MISP_RETIRED, 3 ISSUE_SLOTS_NOT_CONSUMED, 3
  // HW_INTERRUPTS, 3 CYCLES_DIV_BUSY, 10 MEM_UOPS_RETIRED, 7
  // MEM_LOAD_UOPS_RETIRED, 3 BACLEARS, MS_DECODED, DECODE_RESTRICTION).
  CHECK(count(Microarchitecture::goldmont, table_row) == 5 + 3 + 1 + 2 + 2 + 1 + 1 + 2 + 1 + 3 + 1 + 3 + 1 + 2 + 1 +
                                                             4 + 5 + 10 + 6 + 3 + 3 + 3 + 10 + 7 + 3 + 1 + 1);
  CHECK(count(Microarchitecture::goldmont, architectural) == 7);
  CHECK(count(Microarchitecture::goldmont, fixed) == 3);
  // The rows Table 19-24 marks "Precise Event" (perfmon "PEBS": "2"): 45 =
  // 5 LD_BLOCKS + 2 MISALIGN_MEM_REF + INST_RETIRED.ANY_P + 4 UOPS_RETIRED
  // + 10 BR_INST_RETIRED + 6 BR_MISP_RETIRED + 10 MEM_UOPS_RETIRED + 7
  // MEM_LOAD_UOPS_RETIRED.
  const std::set<std::string> precise = precise_table_rows(Microarchitecture::goldmont);
  CHECK(precise.size() == 5 + 2 + 1 + 4 + 10 + 6 + 10 + 7);
  for (const char* name : {"LD_BLOCKS.4K_ALIAS", "MISALIGN_MEM_REF.STORE_PAGE_SPLIT", "INST_RETIRED.ANY_P",
                           "UOPS_RETIRED.IDIV", "BR_INST_RETIRED.ALL_TAKEN_BRANCHES", "MEM_UOPS_RETIRED.SPLIT",
                           "MEM_LOAD_UOPS_RETIRED.WCB_HIT"})
    CHECK(precise.count(name) == 1);
  for (const char* name : {"MACHINE_CLEARS.ALL", "CPU_CLK_UNHALTED.CORE_P", "UOPS_ISSUED.ANY", "ICACHE.HIT"})
    CHECK(precise.count(name) == 0);
}

TEST_CASE("Every row is well formed", "[slm][glm]") {
  for (const auto uarch : {Microarchitecture::silvermont, Microarchitecture::goldmont}) {
    const PmuSpec& spec = pmu_spec(uarch);
    const std::uint8_t all_general = uarch == Microarchitecture::silvermont ? 0x3 : 0xF;
    std::set<std::string_view> names;
    for (const EventSpec& e : spec.events) {
      INFO(spec.backend << " " << e.name);
      CHECK(names.insert(e.name).second);
      CHECK(!e.description.empty());
      if (fixed(e)) {
        CHECK(e.counters == 0);
        CHECK(!e.precise);
      } else {
        CHECK(e.counters == all_general);
      }
      // Precise events give a sample of one op: they must say which.
      if (e.precise) CHECK(!e.predicate.empty());
      if (!e.predicate.empty()) {
        const Predicate p = Predicate::parse(e.predicate);
        CHECK(!p.always());
        CHECK(!p.never_matches());
      }
      CHECK((e.offcore_msr == 0) == (e.event != 0xB7));
      if (e.event == 0xB7) CHECK(e.offcore_msr == 0x1A6 + e.umask - 1);
    }
  }
}

TEST_CASE("PMU facts: counters and PEBS", "[slm][glm]") {
  const PmuSpec& slm = pmu_spec(Microarchitecture::silvermont);
  const PmuSpec& glm = pmu_spec(Microarchitecture::goldmont);
  CHECK(slm.general_counters == 2);
  CHECK(glm.general_counters == 4);
  CHECK(slm.counter_width == 40);
  CHECK(glm.counter_width == 48);
  CHECK(slm.pebs_counters == 0x1);
  CHECK(glm.pebs_counters == 0x1);
  CHECK(slm.pebs_record_format == 2);
  CHECK(glm.pebs_record_format == 3);
  // Format 0010b ends with B8H (reserved); 0011b adds the TSC at C0H.
  CHECK(slm.pebs_record_bytes == 0xB8 + 8);
  CHECK(glm.pebs_record_bytes == 0xC0 + 8);
  CHECK(!slm.pebs_tsc);
  CHECK(glm.pebs_tsc);
}

TEST_CASE("CPUID signatures select the table", "[slm][glm]") {
  for (unsigned model : {0x37u, 0x4Au, 0x4Du, 0x5Au, 0x5Du, 0x4Cu})
    CHECK(microarchitecture_of(6, model) == Microarchitecture::silvermont);
  for (unsigned model : {0x5Cu, 0x5Fu}) CHECK(microarchitecture_of(6, model) == Microarchitecture::goldmont);
  CHECK(!microarchitecture_of(6, 0x7A));  // Goldmont Plus: a different table
  CHECK(!microarchitecture_of(6, 0x1C));  // Bonnell
  CHECK(!microarchitecture_of(0xF, 0x37));
  CHECK(parse_microarchitecture("GLM") == Microarchitecture::goldmont);
  CHECK(parse_microarchitecture("Silvermont") == Microarchitecture::silvermont);
  CHECK(!parse_microarchitecture("goldmont-plus"));
}

TEST_CASE("Events are found by name or by code:umask", "[slm]") {
  const auto slm = Microarchitecture::silvermont;
  CHECK(require_event(slm, "br_inst_retired.jcc").umask == 0x7E);
  for (const char* code : {"0xC4:0x7E", "c4:7e", "C4H:7EH"})
    CHECK(require_event(slm, code).name == "BR_INST_RETIRED.JCC");
  // The row without edge detect comes first.
  CHECK(require_event(slm, "05:01").name == "PAGE_WALKS.D_SIDE_CYCLES");
  CHECK(require_event(slm, "page_walks.d_side_walks").edge);
  // The lookup convention: find_event says "none" with nullptr, require_event with not_found.
  CHECK(find_event(slm, "MEM_LOAD_UOPS_RETIRED.L1_MISS") == nullptr);  // a Goldmont event
  try {
    require_event(slm, "MEM_LOAD_UOPS_RETIRED.L1_MISS");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == tagop::ErrorCode::not_found);
    CHECK_THAT(e.what(), Catch::Contains("MEM_LOAD_UOPS_RETIRED.L1_MISS") && Catch::Contains("Table 19-25"));
  }
  CHECK(find_event(slm, "c4:7e7") == nullptr);
  CHECK(find_event(slm, "zz:7e") == nullptr);
  CHECK_THROWS_AS(require_event(slm, "zz:7e"), Error);
}

TEST_CASE("PERFEVTSEL and perf raw config bits", "[slm][glm]") {
  const auto slm = Microarchitecture::silvermont;
  // USR bit 16, OS 17, edge 18, INT 20, EN 22, inv 23, cmask 24-31.
  CHECK(perfevtsel(require_event(slm, "BR_INST_RETIRED.JCC"), Privilege::both, true) ==
        (0xC4 | 0x7E << 8 | 1 << 16 | 1 << 17 | 1 << 20 | 1 << 22));
  CHECK(perfevtsel(require_event(slm, "PAGE_WALKS.D_SIDE_WALKS"), Privilege::user, false) ==
        (0x05 | 0x01 << 8 | 1 << 16 | 1 << 18 | 1 << 22));
  CHECK(perfevtsel(require_event(slm, "REHABQ.LD_SPLITS"), Privilege::kernel, false) ==
        (0x03 | 0x08 << 8 | 1 << 17 | 1 << 22));
  CHECK(perf_raw_config(require_event(slm, "PAGE_WALKS.WALKS")) == (0x05 | 0x03 << 8 | 1 << 18));
  CHECK(perf_raw_config(require_event(slm, "INST_RETIRED.ANY")) == 0xC0);
  CHECK(perf_raw_config(require_event(slm, "CPU_CLK_UNHALTED.CORE")) == 0x3C);
  CHECK(perf_raw_config(require_event(Microarchitecture::goldmont, "CPU_CLK_UNHALTED.REF_TSC")) == 0x0300);
}

TEST_CASE("The registry publishes both tables", "[slm][glm]") {
  for (const auto uarch : {Microarchitecture::silvermont, Microarchitecture::goldmont}) {
    const PmuSpec& spec = pmu_spec(uarch);
    const BackendInfo* b = Registry::builtin().find(spec.backend);
    REQUIRE(b != nullptr);
    const auto entries = b->events();
    REQUIRE(entries.size() == spec.events.size());
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const EventSpec& e = spec.events[i];
      CHECK(entries[i].name == e.name);
      CHECK(entries[i].mechanism == (e.precise ? Mechanism::precise_event : Mechanism::count_only));
      CHECK(entries[i].precise == e.precise);
      CHECK(entries[i].predicate == e.predicate);
    }
  }
  const auto slm = Registry::builtin().find("silvermont")->events();
  const auto jcc = std::find_if(slm.begin(), slm.end(), [](const EventEntry& e) { return e.name == "BR_INST_RETIRED.JCC"; });
  REQUIRE(jcc != slm.end());
  CHECK(jcc->code == "0xC4:0x7E");
  CHECK(jcc->event_code == "0xC4");
  CHECK(jcc->umask == "0x7E");
}
