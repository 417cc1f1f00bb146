// The big cores' load rows against what perf writes as a PEBS sample's data
// source: each value of the kernel's pebs_data_source[] for Skylake-SP and
// later (arch/x86/events/intel/ds.c: the Sandy Bridge table patched by
// __intel_pmu_pebs_data_source_skl with pmem, copied below from the kernel,
// macro for macro), read by tagop's read_data_src, must meet the
// predicates of exactly the MEM_LOAD_*RETIRED rows that count such a load
// (judged by hand from perfmon's descriptions), so that `--where` on a
// `perf mem` capture and the table rows ask the same question. Not here:
// 0x02, the fill buffer, which read_data_src reads as dc.miss_no_mab (what
// perf writes for AMD's DcMissNoMabAlloc) where the tables say dc.mab_hit
// for FB_HIT (as Goldmont's WCB_HIT does); 0x0e and 0x0f, I/O and uncached,
// which no MEM_LOAD row counts.

#include <linux/perf_event.h>  // PERF_MEM_*

#include <map>     // std::map
#include <set>     // std::set
#include <string>  // std::string

#include <catch2/catch.hpp>

#include <tagop/conditions.hpp>         // implied_by
#include <tagop/intel_core/events.hpp>  // the tables
#include <tagop/mem_data_src.hpp>       // read_data_src
#include <tagop/predicate.hpp>          // Predicate

using namespace tagop;
using namespace tagop::intel_core;

namespace {

// ds.c's helpers.
constexpr std::uint64_t P(std::uint64_t value, unsigned shift) { return value << shift; }
constexpr std::uint64_t op_lh =
    P(PERF_MEM_OP_LOAD, PERF_MEM_OP_SHIFT) | P(PERF_MEM_LVL_HIT, PERF_MEM_LVL_SHIFT);
constexpr std::uint64_t level(std::uint64_t lvlnum) { return P(lvlnum, PERF_MEM_LVLNUM_SHIFT); }
constexpr std::uint64_t lvl(std::uint64_t v) { return P(v, PERF_MEM_LVL_SHIFT); }
constexpr std::uint64_t snoop(std::uint64_t v) { return P(v, PERF_MEM_SNOOP_SHIFT); }
constexpr std::uint64_t rem = P(PERF_MEM_REMOTE_REMOTE, PERF_MEM_REMOTE_SHIFT);

struct Source {
  unsigned dse;
  std::uint64_t data_src;
  std::set<std::string> rows;  // the MEM_LOAD_* rows that count such a load
  // Of `rows`, those whose predicate the reading cannot meet, and why; a
  // gap that closes fails the test, so that this list is kept true.
  std::map<std::string, std::string> reader_gaps{};
};

// The load rows whose predicates a data source decides.
bool load_source_row(std::string_view name) {
  return name.starts_with("MEM_LOAD_RETIRED.") || name.starts_with("MEM_LOAD_L3_HIT_RETIRED.") ||
         name.starts_with("MEM_LOAD_L3_MISS_RETIRED.");
}

// The conditions a sample with this data source meets, with what they imply.
ConditionSet holding(std::uint64_t data_src) {
  ConditionSet out = read_data_src(data_src).conditions;
  for (const Condition c : out.members()) out |= implied_by(c);
  return out;
}

}  // namespace

TEST_CASE("Skylake-SP load rows meet the data sources perf writes for them", "[skl][data_src]") {
  const std::set<std::string> miss = {"MEM_LOAD_RETIRED.L1_MISS"};
  auto with = [](std::set<std::string> a, std::initializer_list<const char*> b) {
    a.insert(b.begin(), b.end());
    return a;
  };
  const std::set<std::string> l2_miss = with(miss, {"MEM_LOAD_RETIRED.L2_MISS"});
  const std::set<std::string> l3_miss = with(l2_miss, {"MEM_LOAD_RETIRED.L3_MISS"});
  const std::set<std::string> l3_hit = with(l2_miss, {"MEM_LOAD_RETIRED.L3_HIT"});
  const Source sources[] = {
      {0x00, P(PERF_MEM_OP_LOAD, PERF_MEM_OP_SHIFT) | lvl(PERF_MEM_LVL_MISS) | level(PERF_MEM_LVLNUM_L3) |
                 snoop(PERF_MEM_SNOOP_NA),
       l3_miss},
      {0x01, op_lh | lvl(PERF_MEM_LVL_L1) | level(PERF_MEM_LVLNUM_L1) | snoop(PERF_MEM_SNOOP_NONE),
       {"MEM_LOAD_RETIRED.L1_HIT"}},
      {0x03, op_lh | lvl(PERF_MEM_LVL_L2) | level(PERF_MEM_LVLNUM_L2) | snoop(PERF_MEM_SNOOP_NONE),
       with(miss, {"MEM_LOAD_RETIRED.L2_HIT"})},
      {0x04, op_lh | lvl(PERF_MEM_LVL_L3) | level(PERF_MEM_LVLNUM_L3) | snoop(PERF_MEM_SNOOP_NONE), l3_hit},
      {0x05, op_lh | lvl(PERF_MEM_LVL_L3) | level(PERF_MEM_LVLNUM_L3) | snoop(PERF_MEM_SNOOP_MISS), l3_hit},
      {0x06, op_lh | lvl(PERF_MEM_LVL_L3) | level(PERF_MEM_LVLNUM_L3) | snoop(PERF_MEM_SNOOP_HIT), l3_hit},
      {0x07, op_lh | lvl(PERF_MEM_LVL_L3) | level(PERF_MEM_LVLNUM_L3) | snoop(PERF_MEM_SNOOP_HITM),
       with(l3_hit, {"MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM"})},
      // __intel_pmu_pebs_data_source_skl(pmem = true): Skylake-SP, Cascade Lake, Ice Lake-SP.
      {0x08, op_lh | level(PERF_MEM_LVLNUM_PMEM) | snoop(PERF_MEM_SNOOP_HIT),
       with(l3_miss, {"MEM_LOAD_RETIRED.LOCAL_PMM"})},
      {0x09, op_lh | level(PERF_MEM_LVLNUM_PMEM) | rem | snoop(PERF_MEM_SNOOP_HIT),
       with(l3_miss, {"MEM_LOAD_L3_MISS_RETIRED.REMOTE_PMM"})},
      {0x0a, op_lh | lvl(PERF_MEM_LVL_LOC_RAM) | level(PERF_MEM_LVLNUM_RAM) | snoop(PERF_MEM_SNOOP_HIT),
       with(l3_miss, {"MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM"})},
      {0x0b, op_lh | level(PERF_MEM_LVLNUM_RAM) | rem | snoop(PERF_MEM_SNOOP_NONE),
       with(l3_miss, {"MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM"})},
      {0x0c, op_lh | level(PERF_MEM_LVLNUM_ANY_CACHE) | rem | P(PERF_MEM_SNOOPX_FWD, PERF_MEM_SNOOPX_SHIFT),
       with(l3_miss, {"MEM_LOAD_L3_MISS_RETIRED.REMOTE_FWD"}),
       {{"MEM_LOAD_RETIRED.L3_MISS", "read_data_src does not decide l3.miss for a remote node's cache (ANY_CACHE with "
                                 "REMOTE): data from another node is beyond this L3, but the reading leaves it open"}}},
      {0x0d, op_lh | level(PERF_MEM_LVLNUM_ANY_CACHE) | rem | snoop(PERF_MEM_SNOOP_HITM),
       with(l3_miss, {"MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM"}),
       {{"MEM_LOAD_RETIRED.L3_MISS", "read_data_src does not decide l3.miss for a remote node's cache (ANY_CACHE with "
                                 "REMOTE): data from another node is beyond this L3, but the reading leaves it open"}}},
  };
  for (const Source& s : sources) {
    INFO("data source " << s.dse << ": " << read_data_src(s.data_src).conditions.to_string());
    const ConditionSet hold = holding(s.data_src);
    std::set<std::string> met;
    for (const EventSpec& e : pmu_spec(Microarchitecture::skylake).events)
      if (load_source_row(e.name) && !e.predicate.empty() && Predicate::parse(e.predicate).matches(hold))
        met.emplace(e.name);
    std::set<std::string> expected = s.rows;
    for (const auto& [row, why] : s.reader_gaps) expected.erase(row);
    CHECK(met == expected);
  }
}
