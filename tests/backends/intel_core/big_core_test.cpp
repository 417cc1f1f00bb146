// The Skylake, Ice Lake and Sapphire Rapids tables and programmer: rows
// well formed, PMU facts, host detection by CPUID signature, lookups, and
// the programmer's MSR values and perf_event_attrs computed by hand from the
// SDM's register layouts (IA32_PERFEVTSELx: event 7:0, umask 15:8, USR 16,
// OS 17, edge 18, INT 20, EN 22, inv 23, cmask 31:24, adaptive PEBS 34;
// IA32_FIXED_CTR_CTRL: 4 bits per counter, OS 0, USR 1, PMI 3, adaptive
// PEBS 32 + 4 n; IA32_PEBS_ENABLE: bit n for IA32_PMCn, 32 + n for fixed
// counter n) and perf's cpu PMU formats (event config:0-7, umask
// config:8-15, ldlat and frontend in config1).

#include <set>     // std::set
#include <string>  // std::string

#include <catch2/catch.hpp>

#include <tagop/error.hpp>                  // Error
#include <tagop/intel_core/events.hpp>      // the tables
#include <tagop/intel_core/programmer.hpp>  // program
#include <tagop/predicate.hpp>              // Predicate
#include <tagop/registry.hpp>               // Registry

using namespace tagop;
using namespace tagop::intel_core;

namespace {

constexpr Microarchitecture big_cores[] = {Microarchitecture::skylake, Microarchitecture::icelake,
                                           Microarchitecture::sapphire_rapids};

const MsrWrite* msr(const Programming& p, std::uint32_t address) {
  for (const MsrWrite& w : p.msr_writes)
    if (w.msr == address) return &w;
  return nullptr;
}

std::uint64_t msr_value(const Programming& p, std::uint32_t address) {
  const MsrWrite* w = msr(p, address);
  INFO("MSR " << std::hex << address);
  REQUIRE(w != nullptr);
  return w->value;
}

constexpr std::uint64_t usr = 1 << 16, os = 1 << 17, int_bit = 1 << 20, en = 1 << 22;
constexpr std::uint64_t adaptive = std::uint64_t{1} << 34;

}  // namespace

TEST_CASE("Big-core rows are well formed", "[skl][icl][spr]") {
  for (const auto uarch : big_cores) {
    const PmuSpec& spec = pmu_spec(uarch);
    const unsigned all_general = (1u << spec.general_counters) - 1;
    std::set<std::string_view> names;
    unsigned fixed_rows = 0, precise_rows = 0, predicate_rows = 0;
    for (const EventSpec& e : spec.events) {
      INFO(spec.backend << " " << e.name);
      CHECK(names.insert(e.name).second);
      CHECK(!e.description.empty());
      if (e.fixed_counter >= 0) {
        ++fixed_rows;
        CHECK(e.counters == 0);
        CHECK(static_cast<unsigned>(e.fixed_counter) < spec.fixed_counters);
      } else {
        CHECK(e.counters != 0);
        // Skylake's perfmon counters are those of one thread with HT on.
        CHECK((e.counters & ~(uarch == Microarchitecture::skylake ? 0xFFu : all_general)) == 0);
      }
      // A predicate is a retired op's: no cmask, inv or edge beside it.
      if (!e.predicate.empty()) {
        ++predicate_rows;
        CHECK((e.cmask == 0 && !e.inv && !e.edge));
        const Predicate p = Predicate::parse(e.predicate);
        CHECK(!p.always());
        CHECK(!p.never_matches());
      }
      precise_rows += e.precise;
      CHECK((e.ldlat != 0) == e.name.starts_with("MEM_TRANS_RETIRED.LOAD_LATENCY"));
      if (e.ldlat != 0) CHECK(e.name.ends_with("_GT_" + std::to_string(e.ldlat)));
      // perfmon gives two more Sapphire Rapids rows a MSR_PEBS_FRONTEND value.
      if (e.frontend != 0 && !e.name.starts_with("FRONTEND_RETIRED."))
        CHECK((uarch == Microarchitecture::sapphire_rapids &&
               (e.name == "UOPS_RETIRED.MS" || e.name == "INT_MISC.UNKNOWN_BRANCH_CYCLES")));
    }
    CHECK(fixed_rows == (uarch == Microarchitecture::skylake ? 3u : 5u));  // + PREC_DIST and TOPDOWN.SLOTS
    CHECK(precise_rows > 50);
    CHECK(predicate_rows > 40);
  }
}

TEST_CASE("Big-core PMU facts", "[skl][icl][spr]") {
  const PmuSpec& skl = pmu_spec(Microarchitecture::skylake);
  const PmuSpec& icl = pmu_spec(Microarchitecture::icelake);
  const PmuSpec& spr = pmu_spec(Microarchitecture::sapphire_rapids);
  CHECK(skl.backend == "skylake");
  CHECK(icl.backend == "icelake");
  CHECK(spr.backend == "sapphirerapids");
  CHECK(skl.general_counters == 4);
  CHECK(icl.general_counters == 8);
  CHECK(spr.general_counters == 8);
  CHECK(skl.fixed_counters == 3);
  CHECK(icl.fixed_counters == 4);
  CHECK(spr.fixed_counters == 4);
  for (const PmuSpec* s : {&skl, &icl, &spr}) {
    CHECK(s->counter_width == 48);
    CHECK(s->perf_precise_ip == 3);
    CHECK(s->pebs_data_linear_address);
    CHECK(s->pebs_load_latency);
    CHECK(s->pebs_tsc);
    CHECK_THAT(std::string(s->data_source_note), Catch::Contains("mem_data_src.hpp"));
  }
  // struct pebs_record_skl (arch/x86/events/intel/ds.c): 18 registers with
  // flags and IP, then status, dla, dse, lat, real_ip, tsx_tuning, tsc.
  CHECK(skl.pebs_record_format == 3);
  CHECK(skl.pebs_record_bytes == (18 + 7) * 8);
  CHECK(skl.pebs_fixed_counters == 0);
  CHECK(icl.pebs_record_format == 4);
  CHECK(spr.pebs_record_format == 4);
  CHECK(icl.pebs_record_bytes == 0);  // adaptive: follows MSR_PEBS_DATA_CFG
  CHECK(icl.pebs_fixed_counters == 0xF);
}

TEST_CASE("CPUID signatures select the big-core tables", "[skl][icl][spr]") {
  for (unsigned model : {0x4Eu, 0x5Eu, 0x8Eu, 0x9Eu, 0xA5u, 0xA6u, 0x55u})
    CHECK(microarchitecture_of(6, model) == Microarchitecture::skylake);
  for (unsigned model : {0x7Du, 0x7Eu, 0x6Au, 0x6Cu}) CHECK(microarchitecture_of(6, model) == Microarchitecture::icelake);
  CHECK(microarchitecture_of(6, 0x8F) == Microarchitecture::sapphire_rapids);
  CHECK(microarchitecture_of(6, 0xCF) == Microarchitecture::sapphire_rapids);  // Emerald Rapids: the same core events
  CHECK(!microarchitecture_of(6, 0x97));  // Alder Lake: hybrid, not claimed
  CHECK(!microarchitecture_of(6, 0xAD));  // Granite Rapids: not claimed
  CHECK(parse_microarchitecture("SKL") == Microarchitecture::skylake);
  CHECK(parse_microarchitecture("icelake") == Microarchitecture::icelake);
  CHECK(parse_microarchitecture("spr") == Microarchitecture::sapphire_rapids);
  CHECK(parse_microarchitecture("SapphireRapids") == Microarchitecture::sapphire_rapids);
  // The registry's host detection names the backend for the machine.
  auto tables = [](unsigned model) {
    std::vector<std::string> out;
    for (const BackendInfo& b : Registry::builtin().backends())
      if (b.tables_for && !b.tables_for(CpuId{.vendor = "GenuineIntel", .family = 6, .model = model}).empty())
        out.emplace_back(b.name);
    return out;
  };
  CHECK(tables(0x55) == std::vector<std::string>{"skylake"});
  CHECK(tables(0x6A) == std::vector<std::string>{"icelake"});
  CHECK(tables(0x8F) == std::vector<std::string>{"sapphirerapids"});
  CHECK(tables(0xCF) == std::vector<std::string>{"sapphirerapids"});
  CHECK(tables(0x97).empty());
}

TEST_CASE("Registry lookup knows perf's mem-loads and mem-stores", "[skl][icl][spr]") {
  const Registry& r = Registry::builtin();
  // The kernel's sysfs events: mem-loads "event=0xcd,umask=0x1,ldlat=3";
  // mem-stores "event=0xd0,umask=0x82" (Skylake, Ice Lake) and
  // "event=0xcd,umask=0x2" (Sapphire Rapids).
  for (const char* spelling : {"mem-loads", "cpu/mem-loads,ldlat=30/", "cpu/mem-loads/"}) {
    INFO(spelling);
    const EventEntry* e = r.lookup(spelling, "skylake");
    REQUIRE(e != nullptr);
    CHECK(e->name == "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4");
  }
  CHECK(r.lookup("mem-stores", "skylake")->name == "MEM_INST_RETIRED.ALL_STORES");
  CHECK(r.lookup("mem-stores", "icelake")->name == "MEM_INST_RETIRED.ALL_STORES");
  CHECK(r.lookup("mem-stores", "sapphirerapids")->name == "MEM_TRANS_RETIRED.STORE_SAMPLE");
  CHECK(r.lookup("mem-loads", "goldmont") == nullptr);
  CHECK(r.lookup("skl::MEM_LOAD_RETIRED:L2_MISS", "skylake")->name == "MEM_LOAD_RETIRED.L2_MISS");
  CHECK(r.lookup("spr::BR_MISP_RETIRED:COND", "sapphirerapids") != nullptr);
}

TEST_CASE("Skylake PEBS sample of L2-missing loads", "[skl]") {
  const Programming p = program({.uarch = Microarchitecture::skylake,
                                 .events = {{.event = "MEM_LOAD_RETIRED.L2_MISS", .pebs = true}},
                                 .exclude_kernel = true,
                                 .period = 10007});
  // 0xD1 umask 0x10 (SDM, MEM_LOAD_RETIRED.L2_MISS), USR, EN; no INT on a PEBS counter; no adaptive bit (format 3).
  CHECK(msr_value(p, 0x186) == (0xD1 | 0x10 << 8 | usr | en));
  CHECK(msr_value(p, 0x3F1) == 0x1);
  CHECK(msr(p, 0x3F2) == nullptr);
  CHECK(msr_value(p, 0xC1) == (std::uint64_t{1} << 48) - 10007);
  REQUIRE(p.perf_events.size() == 1);
  const perf_event_attr& a = p.perf_events[0].attr;
  CHECK(a.type == PERF_TYPE_RAW);
  CHECK(a.config == 0x10D1);
  CHECK(a.precise_ip == 3);
  CHECK(a.sample_period == 10007);
  CHECK(a.exclude_kernel);
}

TEST_CASE("Ice Lake load latency: ldlat in MSR_PEBS_LD_LAT_THRESHOLD and config1", "[icl]") {
  const Programming p = program({.uarch = Microarchitecture::icelake,
                                 .events = {{.event = "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_32", .pebs = true, .ldlat = 50}}});
  CHECK(msr_value(p, 0x3F6) == 50);
  CHECK(msr_value(p, 0x186) == (0xCD | 0x01 << 8 | usr | os | en | adaptive));
  CHECK(msr_value(p, 0x3F2) == 0x1);  // the memory info group
  CHECK(msr_value(p, 0x3F1) == 0x1);
  REQUIRE(p.perf_events.size() == 1);
  CHECK(p.perf_events[0].attr.config == 0x1CD);
  CHECK(p.perf_events[0].attr.config1 == 50);
  // Without ldlat the row's own threshold.
  const Programming own = program({.uarch = Microarchitecture::icelake,
                                   .events = {{.event = "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_128", .pebs = true}}});
  CHECK(msr_value(own, 0x3F6) == 128);
  CHECK(own.perf_events[0].attr.config1 == 128);
}

TEST_CASE("Sapphire Rapids load latency is led by mem-loads-aux", "[spr]") {
  const Programming p = program({.uarch = Microarchitecture::sapphire_rapids,
                                 .events = {{.event = "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4", .pebs = true, .ldlat = 30}}});
  REQUIRE(p.perf_events.size() == 2);
  CHECK(p.perf_events[0].attr.config == 0x8203);  // event=0x03,umask=0x82
  CHECK(p.perf_events[1].attr.config == 0x1CD);
  CHECK(p.perf_events[1].attr.config1 == 30);
  // perfmon: LOAD_LATENCY on IA32_PMC1-7, so PEBS lands on IA32_PMC1, where
  // perf takes no precise_ip 3 (PDist is IA32_PMC0's: spr_get_event_constraints).
  CHECK(p.perf_events[1].attr.precise_ip == 2);
  CHECK(msr_value(p, 0x187) == (0xCD | 0x01 << 8 | usr | os | en | adaptive));
  CHECK(msr_value(p, 0x3F1) == 0x2);
  // The auxiliary event counts on IA32_PMC0 beside it: USR, OS, EN, no INT.
  CHECK(msr_value(p, 0x186) == (0x03 | 0x82 << 8 | usr | os | en));
  CHECK(p.msr_writes.back().value == 0x3);  // IA32_PERF_GLOBAL_CTRL: IA32_PMC0 and IA32_PMC1
}

TEST_CASE("Ice Lake INST_RETIRED.PREC_DIST samples on fixed counter 0", "[icl]") {
  const Programming p = program({.uarch = Microarchitecture::icelake,
                                 .events = {{.event = "INST_RETIRED.PREC_DIST", .pebs = true}},
                                 .period = 2000003});
  // Fixed counter 0: OS and USR, no PMI (PEBS), adaptive bit 32.
  CHECK(msr_value(p, 0x38D) == (0x3 | std::uint64_t{1} << 32));
  CHECK(msr_value(p, 0x3F1) == std::uint64_t{1} << 32);
  CHECK(p.msr_writes.back().value == std::uint64_t{1} << 32);  // IA32_PERF_GLOBAL_CTRL
  CHECK(p.perf_events[0].attr.config == 0x0100);  // the kernel's INST_RETIRED.PREC_DIST pseudo-encoding
}

TEST_CASE("Skylake FRONTEND_RETIRED writes MSR_PEBS_FRONTEND", "[skl]") {
  // SDM: FRONTEND_RETIRED.DSB_MISS is 0xC6 umask 0x01 with MSR_PEBS_FRONTEND.EVTSEL = 0x11.
  const Programming p = program({.uarch = Microarchitecture::skylake,
                                 .events = {{.event = "FRONTEND_RETIRED.DSB_MISS", .pebs = true}}});
  CHECK(msr_value(p, 0x3F7) == 0x11);
  CHECK(p.perf_events[0].attr.config == 0x1C6);
  CHECK(p.perf_events[0].attr.config1 == 0x11);
}

TEST_CASE("Big-core requests the hardware cannot do are refused with the reason", "[skl][icl][spr]") {
  auto refusal = [](const Request& r) {
    try {
      program(r);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // PEBS on an event that is not precise.
  CHECK_THAT(refusal({.uarch = Microarchitecture::skylake, .events = {{.event = "L2_RQSTS.MISS", .pebs = true}}}),
             Catch::Contains("is not PEBS-capable on skylake"));
  // ldlat on another event, out of range, or without PEBS.
  CHECK_THAT(refusal({.uarch = Microarchitecture::skylake,
                      .events = {{.event = "MEM_LOAD_RETIRED.L2_MISS", .pebs = true, .ldlat = 30}}}),
             Catch::Contains("takes no load-latency threshold"));
  CHECK_THAT(refusal({.uarch = Microarchitecture::skylake,
                      .events = {{.event = "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4", .pebs = true, .ldlat = 0}}}),
             Catch::Contains("out of range"));
  CHECK_THAT(refusal({.uarch = Microarchitecture::skylake,
                      .events = {{.event = "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4", .pebs = true, .ldlat = 70000}}}),
             Catch::Contains("out of range"));
  CHECK_THAT(refusal({.uarch = Microarchitecture::icelake, .events = {{.event = "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4"}}}),
             Catch::Contains("needs PEBS"));
  // A counter it cannot run on: five events of IA32_PMC0-3 only.
  Request five{.uarch = Microarchitecture::icelake};
  for (const char* e : {"MEM_LOAD_RETIRED.L1_HIT", "MEM_LOAD_RETIRED.L2_HIT", "MEM_LOAD_RETIRED.L3_HIT",
                        "MEM_LOAD_RETIRED.L3_MISS", "MEM_LOAD_RETIRED.L2_MISS"})
    five.events.push_back({.event = e});
  CHECK_THAT(refusal(five), Catch::Contains("runs only on IA32_PMC0, IA32_PMC1, IA32_PMC2, IA32_PMC3"));
  // Sapphire Rapids' STORE_SAMPLE runs on IA32_PMC0 only.
  CHECK_THAT(refusal({.uarch = Microarchitecture::sapphire_rapids,
                      .events = {{.event = "MEM_TRANS_RETIRED.STORE_SAMPLE", .pebs = true},
                                 {.event = "MEM_INST_RETIRED.ALL_STORES", .pebs = true}}}),
             Catch::Contains("no error"));
  Request two_stores{.uarch = Microarchitecture::sapphire_rapids};
  two_stores.events = {{.event = "TOPDOWN.BAD_SPEC_SLOTS"}, {.event = "MEM_TRANS_RETIRED.STORE_SAMPLE", .pebs = true}};
  CHECK_THAT(refusal(two_stores), Catch::Contains("runs only on IA32_PMC0 on sapphirerapids"));
}

TEST_CASE("Sapphire Rapids asks perf for precise_ip 3 on IA32_PMC0 and fixed counter 0 only", "[spr]") {
  // MEM_LOAD_RETIRED.L2_MISS runs on IA32_PMC0-3; alone it takes IA32_PMC0 (PDist).
  const Programming alone = program({.uarch = Microarchitecture::sapphire_rapids,
                                     .events = {{.event = "MEM_LOAD_RETIRED.L2_MISS", .pebs = true}}});
  CHECK(alone.perf_events[0].attr.precise_ip == 3);
  // Behind STORE_SAMPLE (IA32_PMC0 only) it lands on IA32_PMC1: precise_ip 2.
  const Programming behind = program({.uarch = Microarchitecture::sapphire_rapids,
                                      .events = {{.event = "MEM_TRANS_RETIRED.STORE_SAMPLE", .pebs = true},
                                                 {.event = "MEM_LOAD_RETIRED.L2_MISS", .pebs = true}}});
  CHECK(behind.perf_events[0].attr.precise_ip == 3);
  CHECK(behind.perf_events[1].attr.precise_ip == 2);
  CHECK(msr_value(behind, 0x3F1) == 0x3);
  // Ice Lake has no such limit.
  const Programming icl = program({.uarch = Microarchitecture::icelake,
                                   .events = {{.event = "MEM_LOAD_RETIRED.L1_MISS", .pebs = true},
                                              {.event = "MEM_LOAD_RETIRED.L2_MISS", .pebs = true}}});
  CHECK(icl.perf_events[1].attr.precise_ip == 3);
}
