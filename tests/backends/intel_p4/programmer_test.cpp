// The Pentium 4 programmer's MSR writes and perf_event_attrs, against
// values computed here by hand from the SDM's register layouts and the
// reference sheet (shared/reference/p4-tagging.md).

#include <catch2/catch.hpp>

#include <tagop/error.hpp>  // Error
#include <tagop/intel_p4/programmer.hpp>

#include "p4_test_support.hpp"

using namespace tagop;
using namespace tagop::intel_p4;
using Catch::Matchers::Contains;
using p4_test::request;
using p4_test::written;

namespace {

// ESCR: event select 30:25, mask 24:9, tag value 8:5, tag enable 4, T0_OS 3, T0_USR 2, T1_OS 1, T1_USR 0.
constexpr std::uint64_t t0_os_usr = 1u << 3 | 1u << 2;
constexpr std::uint64_t t1_os_usr = 1u << 1 | 1u << 0;
// CCCR: enable 12, ESCR select 15:13, active thread 17:16 (11 = any), OVF_PMI_T0 26, OVF_PMI_T1 27.
constexpr std::uint64_t cccr(unsigned escr_select) { return 1u << 12 | escr_select << 13 | 3u << 16; }

}  // namespace

TEST_CASE("1stL_cache_load_miss_retired, counting: the whole write sequence", "[p4]") {
  const Programming p = program(request({"1stL_cache_load_miss_retired"}));
  REQUIRE(p.msr_writes.size() == 6);
  const std::vector<std::pair<std::uint32_t, std::uint64_t>> expected = {
      {0x3F0, 0},                                  // MSR_TC_PRECISE_EVENT
      {0x3F1, 1u << 0 | 1u << 24},                 // IA32_PEBS_ENABLE: L1 miss cause + UOP_Tag
      {0x3F2, 1u << 0},                            // MSR_PEBS_MATRIX_VERT: loads
      {0x3CC, 0x09u << 25 | 1u << 9 | t0_os_usr},  // MSR_CRU_ESCR2: replay_event NBOGUS
      {0x30C, 0},                                  // MSR_IQ_COUNTER0
      {0x36C, cccr(5)},                            // MSR_IQ_CCCR0
  };
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO(p.msr_writes[i].name);
    CHECK(p.msr_writes[i].msr == expected[i].first);
    CHECK(p.msr_writes[i].value == expected[i].second);
  }
  CHECK(p.msr_writes[3].name == "MSR_CRU_ESCR2");
  CHECK(p.msr_writes[5].name == "MSR_IQ_CCCR0");

  REQUIRE(p.perf_events.size() == 1);
  const perf_event_attr& a = p.perf_events[0].attr;
  CHECK(a.type == PERF_TYPE_RAW);
  // Kernel event index 37 in the select field; replay metric 1 in CCCR bits 0-5.
  CHECK(a.config == ((std::uint64_t{37} << 25 | 1u << 9) << 32 | 3u << 16 | 1u));
  CHECK(a.sample_period == 0);
  CHECK(a.precise_ip == 0);
}

TEST_CASE("PEBS sampling: counter 16, 2^40 - period, OVF_PMI_T0, bit 25", "[p4]") {
  auto r = request({"1stL_cache_load_miss_retired"}, true);
  r.period = 10000;
  const Programming p = program(r);
  CHECK(written(p, 0x3F1) == (1u << 0 | 1u << 24 | 1u << 25));
  CHECK(written(p, 0x3CC) == (0x09u << 25 | 1u << 9 | t0_os_usr));       // CRU_ESCR2 drives counter 16
  CHECK(written(p, 0x310) == (std::uint64_t{1} << 40) - 10000);          // MSR_IQ_COUNTER4
  CHECK(written(p, 0x370) == (cccr(5) | 1u << 26));                      // MSR_IQ_CCCR4
  REQUIRE(p.perf_events.size() == 1);
  CHECK(p.perf_events[0].attr.precise_ip == 1);
  CHECK(p.perf_events[0].attr.sample_period == 10000);
  CHECK(p.perf_events[0].attr.sample_type & PERF_SAMPLE_IP);
  bool ds_note = false;
  for (const std::string& n : p.notes) ds_note |= n.find("IA32_DS_AREA") != std::string::npos;
  CHECK(ds_note);
}

TEST_CASE("the nine replay metrics' IA32_PEBS_ENABLE and MSR_PEBS_MATRIX_VERT", "[p4]") {
  struct Row {
    const char* metric;
    std::uint32_t pebs_enable;
    std::uint32_t matrix_vert;
    unsigned linux_metric;
  };
  // Reference sheet, "Replay tagging": cause bits + bit 24 (UOP_Tag).
  const Row rows[] = {
      {"1stL_cache_load_miss_retired", 1u << 0 | 1u << 24, 1u << 0, 1},
      {"2ndL_cache_load_miss_retired", 1u << 1 | 1u << 24, 1u << 0, 2},
      {"DTLB_load_miss_retired", 1u << 2 | 1u << 24, 1u << 0, 3},
      {"DTLB_store_miss_retired", 1u << 2 | 1u << 24, 1u << 1, 4},
      {"DTLB_all_miss_retired", 1u << 2 | 1u << 24, 1u << 0 | 1u << 1, 5},
      {"Tagged_mispred_branch", 1u << 15 | 1u << 16 | 1u << 24, 1u << 4, 6},  // not bit 0 (libpfm3, PAPI)
      {"MOB_load_replay_retired", 1u << 9 | 1u << 24, 1u << 0, 7},
      {"split_load_retired", 1u << 10 | 1u << 24, 1u << 0, 8},
      {"split_store_retired", 1u << 10 | 1u << 24, 1u << 1, 9},
  };
  for (const Row& row : rows) {
    INFO(row.metric);
    const Programming counting = program(request({row.metric}));
    CHECK(written(counting, 0x3F1) == row.pebs_enable);
    CHECK(written(counting, 0x3F2) == row.matrix_vert);
    CHECK(counting.perf_events.back().attr.config == ((std::uint64_t{37} << 25 | 1u << 9) << 32 | 3u << 16 |
                                                      row.linux_metric));
    const Programming pebs = program(request({row.metric}, true));
    CHECK(written(pebs, 0x3F1) == (row.pebs_enable | 1u << 25));
    CHECK(written(pebs, 0x3F2) == row.matrix_vert);
    CHECK(written(pebs, 0x370) == cccr(5));  // PEBS without a period: counter 16, no PMI
  }
}

TEST_CASE("replay metrics 7-9 program their upstream event on the ESCR the SDM names", "[p4]") {
  const Programming mob = program(request({"MOB_load_replay_retired"}));
  CHECK(written(mob, 0x3AA) == (0x03u << 25 | (1u << 4 | 1u << 5) << 9 | t0_os_usr));  // MOB_ESCR0
  CHECK(written(mob, 0x360) == cccr(2));                                              // counter 0, not 1
  CHECK(mob.perf_events.front().attr.config == ((std::uint64_t{7} << 25 | (1u << 4 | 1u << 5) << 9) << 32 | 3u << 16));

  const Programming load = program(request({"split_load_retired"}));
  CHECK(written(load, 0x3AF) == (0x04u << 25 | 1u << 10 | t0_os_usr));  // SAAT_ESCR1, SPLIT_LD
  CHECK(written(load, 0x36A) == cccr(2));                               // counter 10
  CHECK_FALSE(written(load, 0x3AE));

  const Programming store = program(request({"split_store_retired"}));
  CHECK(written(store, 0x3AE) == (0x05u << 25 | 1u << 10 | t0_os_usr));  // SAAT_ESCR0, SPLIT_ST
  CHECK(written(store, 0x368) == cccr(2));                               // counter 8
  CHECK_FALSE(written(store, 0x3AF));
}

TEST_CASE("front-end tagging: uop_type tags on a RAT ESCR with no counter", "[p4]") {
  const Programming p = program(request({"memory_loads"}));
  CHECK(written(p, 0x3F1) == 0);
  CHECK(written(p, 0x3F2) == 0);
  CHECK(written(p, 0x3BC) == (0x02u << 25 | 1u << 10 | t0_os_usr));  // RAT_ESCR0, TAGLOADS
  CHECK(written(p, 0x3CC) == (0x08u << 25 | 1u << 9 | t0_os_usr));   // CRU_ESCR2, front_end_event NBOGUS
  std::size_t cccrs = 0;
  for (const MsrWrite& w : p.msr_writes) cccrs += p4_test::is_cccr(w.msr);
  CHECK(cccrs == 1);
  CHECK(written(p, 0x36C) == cccr(5));
  REQUIRE(p.perf_events.size() == 2);
  CHECK(p.perf_events[0].attr.config == ((std::uint64_t{40} << 25 | 1u << 10) << 32 | 3u << 16));
  CHECK(p.perf_events[1].attr.config == ((std::uint64_t{35} << 25 | 1u << 9) << 32 | 3u << 16));
}

TEST_CASE("execution tagging: FIRM upstream with tag enable and tag value", "[p4]") {
  const Programming p = program(request({"packed_SP_uop_retired"}));
  // packed_SP_uop ALL (mask bit 15 = ESCR bit 24), tag enable, tag value 1.
  CHECK(written(p, 0x3A4) == (0x08u << 25 | 1u << 24 | 1u << 5 | 1u << 4 | t0_os_usr));
  CHECK(written(p, 0x368) == cccr(1));  // counter 8 through FIRM_ESCR0
  CHECK(written(p, 0x3CC) == (0x0Cu << 25 | 1u << 9 | t0_os_usr));  // execution_event NBOGUS0
  CHECK(p.perf_events[0].attr.config == ((std::uint64_t{16} << 25 | 1u << 24 | 1u << 5 | 1u << 4) << 32 | 3u << 16));

  // Not in libpfm4 nor Linux: by hand from SDM Table 19-32 (select 0x2E, ALLP0 bit 3, ALLP2 bit 4).
  const Programming moves = program(request({"x87_SIMD_moves_uop_retired"}));
  CHECK(written(moves, 0x3A4) == (0x2Eu << 25 | (1u << 3 | 1u << 4) << 9 | 1u << 5 | 1u << 4 | t0_os_usr));
  REQUIRE(moves.perf_events.size() == 1);  // only execution_event: Linux has no x87_SIMD_moves_uop
  bool note = false;
  for (const std::string& n : moves.notes) note |= n.find("x87_SIMD_moves_uop") != std::string::npos;
  CHECK(note);
}

TEST_CASE("thread 1, user only, sampling", "[p4]") {
  auto r = request({"replay_event:NBOGUS"});
  r.thread = 1;
  r.exclude_kernel = true;
  r.period = 1;
  const Programming p = program(r);
  CHECK(written(p, 0x3CC) == (0x09u << 25 | 1u << 9 | 1u << 0));  // T1_USR only
  CHECK(written(p, 0x36C) == (cccr(5) | 1u << 27));               // OVF_PMI_T1
  CHECK(written(p, 0x30C) == (std::uint64_t{1} << 40) - 1);
  CHECK(p.perf_events[0].attr.exclude_kernel);
  CHECK_FALSE(p.perf_events[0].attr.exclude_user);
  CHECK(p.perf_events[0].attr.config == ((std::uint64_t{37} << 25 | 1u << 9) << 32 | 3u << 16));

  r.exclude_kernel = false;
  r.period.reset();
  CHECK(written(program(r), 0x3CC) == (0x09u << 25 | 1u << 9 | t1_os_usr));
}

TEST_CASE("bad requests are refused with the reason", "[p4]") {
  CHECK_THROWS_WITH(program(request({"1stL_cache_load_mis_retired"})),
                    Contains("unknown Pentium 4 metric or event") && Contains("did you mean 1stL_cache_load_miss_retired"));
  CHECK_THROWS_WITH(program(request({"replay_event:L1_LD_MISS"})),
                    Contains("replay_event has no mask bit 'L1_LD_MISS'") && Contains("NBOGUS, BOGUS"));
  CHECK_THROWS_WITH(program(request({"replay_event"})), Contains("counts nothing without mask bits"));
  CHECK_THROWS_WITH(program(request({"memory_loads:NBOGUS"})), Contains("is a metric: it takes no mask bits"));
  CHECK_THROWS_WITH(program(request({"replay_event:NBOGUS"}, true)), Contains("PEBS needs a metric"));
  CHECK_THROWS_WITH(program(request({})), Contains("nothing to program"));
  CHECK_THROWS_WITH(program(request({"memory_loads", "memory_loads"})), Contains("requested twice"));

  auto r = request({"memory_loads"});
  r.thread = 2;
  CHECK_THROWS_WITH(program(r), Contains("thread 2 does not exist"));
  r.thread = 0;
  r.exclude_user = r.exclude_kernel = true;
  CHECK_THROWS_WITH(program(r), Contains("leaves nothing to count"));
  r.exclude_user = r.exclude_kernel = false;
  r.period = 0;
  CHECK_THROWS_WITH(program(r), Contains("outside the 40-bit counters"));
  r.period = std::uint64_t{1} << 40;
  CHECK_THROWS_AS(program(r), Error);
  r.period = (std::uint64_t{1} << 40) - 1;
  CHECK(written(program(r), 0x30C) == 1);
}
