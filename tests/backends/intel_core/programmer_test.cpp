// The Silvermont/Goldmont programmer: MSR values computed by hand from the
// SDM bit layouts, counter assignment, perf_event_attrs, and every refusal.

#include <string>  // std::string

#include <catch2/catch.hpp>

#include <tagop/error.hpp>                  // Error
#include <tagop/intel_core/programmer.hpp>  // program

using namespace tagop;
using namespace tagop::intel_core;

namespace {

// IA32_PERFEVTSELx bits (SDM Figure 18-6).
constexpr std::uint64_t usr = 1 << 16, os = 1 << 17, intr = 1 << 20, en = 1 << 22;

std::vector<std::pair<std::uint32_t, std::uint64_t>> writes(const Programming& p) {
  std::vector<std::pair<std::uint32_t, std::uint64_t>> out;
  for (const MsrWrite& w : p.msr_writes) out.emplace_back(w.msr, w.value);
  return out;
}

Request request(Microarchitecture uarch, std::vector<EventRequest> events) {
  Request r;
  r.uarch = uarch;
  r.events = std::move(events);
  return r;
}

std::string refusal(const Request& r) {
  try {
    program(r);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

using W = std::vector<std::pair<std::uint32_t, std::uint64_t>>;

}  // namespace

TEST_CASE("Silvermont PEBS sample of L2-hit loads", "[slm]") {
  Request r = request(Microarchitecture::silvermont, {{.event = "MEM_UOPS_RETIRED.L2_HIT_LOADS", .pebs = true}});
  r.period = 10000;
  const Programming p = program(r);
  // PMC0 counts up from 2^40 - 10000 (40-bit counters); the PEBS counter
  // has no INT: the DS buffer threshold raises the interrupt.
  CHECK(writes(p) == W{{0x38F, 0},
                       {0xC1, (std::uint64_t{1} << 40) - 10000},
                       {0x186, 0x04 | 0x02 << 8 | usr | os | en},
                       {0x3F1, 0x1},
                       {0x38F, 0x1}});
  CHECK((std::uint64_t{1} << 40) - 10000 == 0xFFFFFFD8F0);
  REQUIRE(p.perf_events.size() == 1);
  const perf_event_attr& a = p.perf_events[0].attr;
  CHECK(a.type == PERF_TYPE_RAW);
  CHECK(a.config == 0x0204);
  CHECK(a.sample_period == 10000);
  CHECK(a.precise_ip == 2);
  CHECK(!a.exclude_user);
  CHECK(!a.exclude_kernel);
}

TEST_CASE("PEBS without a period samples every default_pebs_period events", "[slm]") {
  const Programming p =
      program(request(Microarchitecture::silvermont, {{.event = "BR_MISP_RETIRED.JCC", .pebs = true}}));
  CHECK(p.perf_events.at(0).attr.sample_period == 100003);
  CHECK(p.msr_writes.at(1).value == (std::uint64_t{1} << 40) - 100003);
}

TEST_CASE("Silvermont counting with fixed counters, user only", "[slm]") {
  Request r = request(Microarchitecture::silvermont,
                          {{.event = "c4:7e"}, {.event = "INST_RETIRED.ANY"}, {.event = "cpu_clk_unhalted.core"}});
  r.exclude_kernel = true;
  const Programming p = program(r);
  // Fixed-counter fields: 4 bits each, bit 1 = rings 1-3 (user).
  CHECK(writes(p) == W{{0x38F, 0},
                       {0xC1, 0},
                       {0x186, 0xC4 | 0x7E << 8 | usr | en},
                       {0x309, 0},
                       {0x30A, 0},
                       {0x38D, 0x2 | 0x2 << 4},
                       {0x38F, 0x1 | std::uint64_t{1} << 32 | std::uint64_t{1} << 33}});
  REQUIRE(p.perf_events.size() == 3);
  CHECK(p.perf_events[0].attr.config == 0x7EC4);
  CHECK(p.perf_events[1].attr.config == 0xC0);
  CHECK(p.perf_events[2].attr.config == 0x3C);
  for (const PerfEvent& e : p.perf_events) {
    CHECK(e.attr.exclude_kernel);
    CHECK(!e.attr.exclude_user);
    CHECK(e.attr.sample_period == 0);
    CHECK(e.attr.precise_ip == 0);
  }
}

TEST_CASE("Goldmont fixed-counter sampling, kernel only", "[glm]") {
  Request r = request(Microarchitecture::goldmont, {{.event = "CPU_CLK_UNHALTED.REF_TSC"}});
  r.exclude_user = true;
  r.period = 1000;
  const Programming p = program(r);
  // Fixed counter 2: field bits 11:8, ring 0 (bit 0) and PMI (bit 3).
  CHECK(writes(p) == W{{0x38F, 0},
                       {0x30B, (std::uint64_t{1} << 48) - 1000},
                       {0x38D, (0x1 | 0x8) << 8},
                       {0x38F, std::uint64_t{1} << 34}});
  CHECK(p.perf_events.at(0).attr.config == 0x0300);
  CHECK(p.perf_events.at(0).attr.exclude_user);
}

TEST_CASE("Goldmont: the PEBS event takes IA32_PMC0, the rest follow", "[glm]") {
  Request r = request(Microarchitecture::goldmont, {{.event = "UOPS_ISSUED.ANY"},
                                                        {.event = "MACHINE_CLEARS.ALL"},
                                                        {.event = "MEM_LOAD_UOPS_RETIRED.L1_MISS", .pebs = true},
                                                        {.event = "PAGE_WALKS.CYCLES"}});
  r.period = 50000;
  const std::vector<CounterAssignment> a = assign_counters(r);
  REQUIRE(a.size() == 4);
  CHECK(a[2].pebs);
  CHECK(a[2].index == 0);
  CHECK(a[0].index == 1);
  CHECK(a[1].index == 2);
  CHECK(a[3].index == 3);
  for (const CounterAssignment& c : a) CHECK(!c.fixed);

  const Programming p = program(r);
  const std::uint64_t start = (std::uint64_t{1} << 48) - 50000;
  CHECK(writes(p) == W{{0x38F, 0},
                       {0xC2, start},
                       {0x187, 0x0E | usr | os | intr | en},
                       {0xC3, start},
                       {0x188, 0xC3 | usr | os | intr | en},
                       {0xC1, start},
                       {0x186, 0xD1 | 0x08 << 8 | usr | os | en},
                       {0xC4, start},
                       {0x189, 0x05 | 0x03 << 8 | usr | os | intr | en},
                       {0x3F1, 0x1},
                       {0x38F, 0xF}});
  CHECK(p.perf_events.at(2).attr.precise_ip == 2);
  CHECK(p.perf_events.at(0).attr.precise_ip == 0);
}

TEST_CASE("Offcore response events write their MSR and config1", "[slm]") {
  const Programming p = program(request(Microarchitecture::silvermont,
                                        {{.event = "OFFCORE_RESPONSE_1", .offcore_response = 0x10001}}));
  CHECK(writes(p) == W{{0x38F, 0}, {0x1A7, 0x10001}, {0xC1, 0}, {0x186, 0xB7 | 0x02 << 8 | usr | os | en}, {0x38F, 1}});
  CHECK(p.perf_events.at(0).attr.config == 0x02B7);
  CHECK(p.perf_events.at(0).attr.config1 == 0x10001);
}

TEST_CASE("Edge-detect rows carry bit 18", "[slm]") {
  const Programming p = program(request(Microarchitecture::silvermont, {{.event = "PAGE_WALKS.I_SIDE_WALKS"}}));
  CHECK(p.msr_writes.at(2).value == (0x05 | 0x02 << 8 | usr | os | 1 << 18 | en));
  CHECK(p.perf_events.at(0).attr.config == (0x0205 | 1 << 18));
}

TEST_CASE("Requests the hardware cannot do are refused with the reason", "[slm][glm]") {
  using Catch::Contains;
  const auto slm = Microarchitecture::silvermont;
  const auto glm = Microarchitecture::goldmont;

  // Not PEBS-capable on Silvermont (SDM Table 18-12), though it is a load event.
  CHECK_THAT(refusal(request(slm, {{.event = "MEM_UOPS_RETIRED.L1_MISS_LOADS", .pebs = true}})),
             Contains("MEM_UOPS_RETIRED.L1_MISS_LOADS (0x04:0x01) is not PEBS-capable on silvermont") &&
                 Contains("Table 19-25"));
  CHECK_THAT(refusal(request(glm, {{.event = "ICACHE.HIT", .pebs = true}})), Contains("not PEBS-capable on goldmont"));
  CHECK_THAT(refusal(request(glm, {{.event = "INST_RETIRED.ANY", .pebs = true}})),
             Contains("fixed counters have no PEBS"));
  // PEBS lives on IA32_PMC0 only, on both cores.
  for (const auto uarch : {slm, glm})
    CHECK_THAT(refusal(request(uarch, {{.event = "BR_INST_RETIRED.JCC", .pebs = true},
                                       {.event = "BR_MISP_RETIRED.ALL_BRANCHES", .pebs = true}})),
               Contains("BR_MISP_RETIRED.ALL_BRANCHES needs PEBS") && Contains("PEBS only on IA32_PMC0") &&
                   Contains("BR_INST_RETIRED.JCC already holds"));
  // More events than general-purpose counters.
  CHECK_THAT(refusal(request(slm, {{.event = "ICACHE.HIT"}, {.event = "ICACHE.MISSES"}, {.event = "BACLEARS.ALL"}})),
             Contains("too many events: 3 need general-purpose counters, but silvermont has 2 (IA32_PMC0-1)"));
  CHECK_THAT(refusal(request(glm, {{.event = "ICACHE.HIT"},
                                   {.event = "ICACHE.MISSES"},
                                   {.event = "BACLEARS.ALL"},
                                   {.event = "BACLEARS.COND"},
                                   {.event = "ITLB.MISS"}})),
             Contains("5 need general-purpose counters, but goldmont has 4 (IA32_PMC0-3)"));
  CHECK_THAT(refusal(request(slm, {{.event = "INST_RETIRED.ANY"}, {.event = "0x00:0x01"}})),
             Contains("IA32_FIXED_CTR0, which another requested event already uses"));
  // Offcore response values.
  CHECK_THAT(refusal(request(slm, {{.event = "OFFCORE_RESPONSE_0"}})),
             Contains("needs an offcore response value for MSR_OFFCORE_RSP_0 (0x1a6)"));
  CHECK_THAT(refusal(request(slm, {{.event = "ICACHE.HIT", .offcore_response = 1}})),
             Contains("ICACHE.HIT takes no offcore response value"));
  CHECK_THAT(refusal(request(glm, {{.event = "OFFCORE_RESPONSE_0", .offcore_response = 1},
                                   {.event = "b7:01", .offcore_response = 2}})),
             Contains("two events need MSR_OFFCORE_RSP_0"));
  // Periods, privilege, names.
  Request r = request(slm, {{.event = "ICACHE.HIT"}});
  r.period = 0;
  CHECK_THAT(refusal(r), Contains("period 0 is out of range: 1 to 2147483647"));
  r.period = std::uint64_t{1} << 31;
  CHECK_THAT(refusal(r), Contains("period 2147483648 is out of range"));
  r.period.reset();
  r.exclude_user = r.exclude_kernel = true;
  CHECK_THAT(refusal(r), Contains("excluding both user and kernel"));
  CHECK_THAT(refusal(request(slm, {{.event = "NO_SUCH.EVENT"}})), Contains("no event 'NO_SUCH.EVENT' in the silvermont table"));
  CHECK_THAT(refusal(request(slm, {})), Contains("no event given"));
}
