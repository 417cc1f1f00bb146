// The questions `tagop compare` exists for, asked of every backend at
// once: for each predicate, the events each backend's table says count
// exactly those ops, or that its samples answer it. Every cell was judged
// by hand from the vendor's definition of the event, not from tagop's
// output:
// - Intel: the SDM's event descriptions (Vol. 3B ch. 19) and Intel's
//   perfmon data: MEM_LOAD_RETIRED.L2_MISS "retired load instructions
//   missed L2 cache as data sources", MEM_INST_RETIRED.STLB_MISS_LOADS
//   "retired load instructions that miss the STLB" (a page walk),
//   BR_INST_RETIRED.NEAR_TAKEN counts near branches only (narrower than
//   every taken branch), no big-core event counts retired L3-missing loads
//   by DRAM alone (LOCAL_DRAM and REMOTE_DRAM split it), Silvermont and
//   Goldmont have no L3.
// - AMD: the Family 17h/19h PPRs' core events (ex_ret_brn_misp "retired
//   branch instructions mispredicted", ex_ret_brn_tkn, ex_ret_near_ret);
//   no core event counts retired loads by where they hit (the cache events
//   are speculative); IBS op samples carry the load, DC miss, L2 miss and
//   page-walk flags (IbsOpData3), L3 misses only in an L3MissOnly capture.
// - Pentium 4: replay tagging cannot tag uncacheable, locked, I/O loads,
//   far branches and returns (SDM Table 19-33), so its retired-miss
//   metrics are narrower than the question and no cell is "the same".
// - Arm SPE: a record carries the op type (load, store, branch), the
//   events packet (L1D refill, TLB walk, LLC miss, mispredicted, not
//   taken) and, on Neoverse, the data source (a load beyond the L2: from
//   another core, the system cache, DRAM or another chip); it has no
//   split-line event, and an LLC refill is a miss in the last level.

#include <catch2/catch.hpp>

#include <algorithm>  // std::sort, std::find_if
#include <set>        // std::set
#include <string>     // std::string
#include <string_view>  // std::string_view
#include <vector>     // std::vector

#include <tagop/compare/nearest_events.hpp>
#include <tagop/compare/target.hpp>
#include <tagop/registry.hpp>

using namespace tagop;
using namespace tagop::compare;

namespace {

/// One cell: what `backend` answers for a question. `same` lists the
/// events that count exactly those ops ("" when none); `measurable` says
/// whether the backend answers at all (an event, or its samples).
struct Cell {
  std::string_view backend;
  std::set<std::string> same;
  bool measurable;
};

struct Question {
  std::string_view predicate;
  std::vector<Cell> cells;
};

const std::set<std::string> none{};

// The Intel big cores answer alike; so do the Zen generations.
std::vector<Cell> big_cores(const std::set<std::string>& same) {
  return {{"skylake", same, !same.empty()}, {"icelake", same, !same.empty()}, {"sapphirerapids", same, !same.empty()}};
}
std::vector<Cell> zens(const std::set<std::string>& same) {
  return {{"zen1", same, !same.empty()}, {"zen2", same, !same.empty()}, {"zen3", same, !same.empty()},
          {"zen4", same, !same.empty()}};
}

std::vector<Cell> join(std::vector<Cell> a, const std::vector<Cell>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const std::vector<Question>& questions() {
  static const std::vector<Question> q = {
      {"load & l2.miss",
       join(join({{"amd-ibs", none, true},
                  {"arm-spe", {"SPE loads beyond the L2"}, true},
                  {"silvermont", {"MEM_UOPS_RETIRED.L2_MISS_LOADS"}, true},
                  {"goldmont", {"MEM_LOAD_UOPS_RETIRED.L2_MISS"}, true},
                  {"p4", none, false}},
                 big_cores({"MEM_LOAD_RETIRED.L2_MISS"})),
            zens(none))},
      {"load & dc.miss",
       join(join({{"amd-ibs", none, true},
                  {"arm-spe", {"SPE L1D refill loads"}, true},
                  {"silvermont", {"MEM_UOPS_RETIRED.L1_MISS_LOADS"}, true},
                  {"goldmont", {"MEM_LOAD_UOPS_RETIRED.L1_MISS"}, true},
                  {"p4", none, false}},
                 big_cores({"MEM_LOAD_RETIRED.L1_MISS"})),
            zens(none))},
      {"load & l3.miss",
       join(join({{"amd-ibs", none, true},  // through L3MissOnly
                  {"arm-spe", {"SPE LLC refill loads"}, true},
                  {"silvermont", none, false},
                  {"goldmont", none, false},
                  {"p4", none, false}},
                 big_cores({"MEM_LOAD_RETIRED.L3_MISS"})),
            zens(none))},
      {"load & dtlb.l2_miss",
       join(join({{"amd-ibs", none, true},
                  {"arm-spe", {"SPE TLB walk loads"}, true},
                  {"silvermont", {"MEM_UOPS_RETIRED.DTLB_MISS_LOADS"}, true},
                  {"goldmont", {"MEM_UOPS_RETIRED.DTLB_MISS_LOADS"}, true},
                  {"p4", none, false}},
                 big_cores({"MEM_INST_RETIRED.STLB_MISS_LOADS"})),
            zens(none))},
      {"store & dtlb.l2_miss",
       join(join({{"amd-ibs", none, true},
                  {"arm-spe", none, true},
                  // Silvermont's DTLB_MISS_STORES (0x04:0x10) is not in its table (SDM 19-25 lists loads only).
                  {"silvermont", none, false},
                  {"goldmont", {"MEM_UOPS_RETIRED.DTLB_MISS_STORES"}, true},
                  {"p4", none, false}},
                 big_cores({"MEM_INST_RETIRED.STLB_MISS_STORES"})),
            zens(none))},
      {"branch & branch.mispredicted",
       join(join({{"amd-ibs", {"IBS mispredicted branch op"}, true},
                  {"arm-spe", {"SPE mispredicted branches"}, true},
                  {"silvermont", {"BR_MISP_RETIRED.ALL_BRANCHES", "Branch Misses Retired"}, true},
                  {"goldmont", {"BR_MISP_RETIRED.ALL_BRANCHES", "Branch Misses Retired"}, true},
                  {"p4", none, false},
                  {"skylake", {"BR_MISP_RETIRED.ALL_BRANCHES", "BR_MISP_RETIRED.ALL_BRANCHES_PEBS"}, true},
                  {"icelake", {"BR_MISP_RETIRED.ALL_BRANCHES"}, true},
                  {"sapphirerapids", {"BR_MISP_RETIRED.ALL_BRANCHES"}, true}},
                 {}),
            zens({"ex_ret_brn_misp"}))},
      {"branch",
       join(join({{"amd-ibs", {"IBS branch op"}, true},
                  {"arm-spe", {"SPE branch ops"}, true},
                  {"silvermont", {"BR_INST_RETIRED.ALL_BRANCHES", "Branch Instruction Retired"}, true},
                  {"goldmont", {"BR_INST_RETIRED.ALL_BRANCHES", "Branch Instruction Retired"}, true},
                  {"p4", none, false},
                  {"skylake", {"BR_INST_RETIRED.ALL_BRANCHES", "BR_INST_RETIRED.ALL_BRANCHES_PEBS"}, true},
                  {"icelake", {"BR_INST_RETIRED.ALL_BRANCHES"}, true},
                  {"sapphirerapids", {"BR_INST_RETIRED.ALL_BRANCHES"}, true}},
                 {}),
            zens({"ex_ret_brn"}))},
      {"branch & branch.taken",
       join(join({{"amd-ibs", {"IBS taken branch op"}, true},
                  {"arm-spe", {"SPE taken branches"}, true},
                  {"silvermont", {"BR_INST_RETIRED.ALL_TAKEN_BRANCHES"}, true},
                  {"goldmont", {"BR_INST_RETIRED.ALL_TAKEN_BRANCHES"}, true},
                  {"p4", none, false}},
                 big_cores(none)),  // NEAR_TAKEN leaves far transfers out
            zens({"ex_ret_brn_tkn"}))},
      {"load",
       join(join({{"amd-ibs", {"IBS load ops"}, true},
                  {"arm-spe", {"SPE load ops"}, true},
                  {"silvermont", {"MEM_UOPS_RETIRED.ALL_LOADS"}, true},
                  {"goldmont", {"MEM_UOPS_RETIRED.ALL_LOADS"}, true},
                  {"p4", {"memory_loads"}, true}},
                 big_cores({"MEM_INST_RETIRED.ALL_LOADS"})),
            zens(none))},  // ls_dispatch counts dispatched, not retired, loads
      {"store",
       join(join({{"amd-ibs", {"IBS store ops"}, true},
                  {"arm-spe", {"SPE store ops"}, true},
                  {"silvermont", {"MEM_UOPS_RETIRED.ALL_STORES"}, true},
                  {"goldmont", {"MEM_UOPS_RETIRED.ALL_STORES"}, true},
                  {"p4", {"memory_stores"}, true},
                  {"skylake", {"MEM_INST_RETIRED.ALL_STORES"}, true},
                  {"icelake", {"MEM_INST_RETIRED.ALL_STORES"}, true},
                  // STORE_SAMPLE: "retired instructions with at least one store uop", the trigger of
                  // Sapphire Rapids' store latency facility.
                  {"sapphirerapids", {"MEM_INST_RETIRED.ALL_STORES", "MEM_TRANS_RETIRED.STORE_SAMPLE"}, true}},
                 {}),
            zens(none))},
      {"load & src.dram",
       join(join({{"amd-ibs", none, true},  // IbsOpData2's DataSrc
                  {"arm-spe", {"SPE loads from DRAM"}, true},
                  {"silvermont", none, false},
                  {"goldmont", {"MEM_LOAD_UOPS_RETIRED.DRAM_HIT"}, true},
                  {"p4", none, false}},
                 big_cores(none)),  // LOCAL_DRAM and REMOTE_DRAM split it
            zens(none))},
      {"load & mem.split_line",
       join(join({{"amd-ibs", none, false},  // IBS's misaligned flag is 128-bit boundaries, not lines
                  {"arm-spe", none, false},
                  {"silvermont", {"REHABQ.LD_SPLITS"}, true},
                  {"goldmont", {"MEM_UOPS_RETIRED.SPLIT_LOADS"}, true},
                  {"p4", none, false}},
                 big_cores({"MEM_INST_RETIRED.SPLIT_LOADS"})),
            zens(none))},
  };
  return q;
}

std::set<std::string> names(const std::vector<Neighbour>& list) {
  std::set<std::string> out;
  for (const Neighbour& n : list) out.emplace(n.entry->name);
  return out;
}

}  // namespace

TEST_CASE("compare answers a dozen questions on every backend as judged by hand", "[compare][lib]") {
  for (const Question& q : questions()) {
    const std::vector<BackendNeighbours> all = nearest_events(resolve_target(q.predicate));
    // Every backend of the registry has its cell: a new backend needs its answers judged.
    REQUIRE(all.size() == q.cells.size());
    for (const Cell& cell : q.cells) {
      INFO(q.predicate << " on " << cell.backend);
      const auto it = std::find_if(all.begin(), all.end(),
                                   [&](const BackendNeighbours& b) { return b.backend->name == cell.backend; });
      REQUIRE(it != all.end());
      CHECK(names(it->same) == cell.same);
      CHECK(it->measurable() == cell.measurable);
    }
  }
}
