#include <tagop/mem_data_src.hpp>

#include <linux/perf_event.h>  // PERF_MEM_*

namespace tagop {

namespace {

std::uint64_t field(std::uint64_t v, unsigned shift, unsigned width) { return (v >> shift) & ((1u << width) - 1); }

// Sets `c` known, true or false.
void decide(DataSrcReading& r, Condition c, bool value) {
  r.observed.insert(c);
  r.conditions.set(c, value);
}

// The data-source conditions of a load that missed the L2, all false but
// those given true.
void source(DataSrcReading& r, ConditionSet yes) {
  for (Condition c : {condition("nb.valid"), condition("src.l3"), condition("src.cache"), condition("src.dram"),
                      condition("src.io"), condition("src.pmem"), condition("src.cxl"), condition("src.remote")})
    decide(r, c, yes.contains(c));
}

}  // namespace

DataSrcReading read_data_src(std::uint64_t v) {
  DataSrcReading r;
  // The field widths of union perf_mem_data_src.
  const std::uint64_t op = field(v, PERF_MEM_OP_SHIFT, 5), lvl = field(v, PERF_MEM_LVL_SHIFT, 14);
  const std::uint64_t snoop = field(v, PERF_MEM_SNOOP_SHIFT, 5), lock = field(v, PERF_MEM_LOCK_SHIFT, 2);
  const std::uint64_t tlb = field(v, PERF_MEM_TLB_SHIFT, 7), lvl_num = field(v, PERF_MEM_LVLNUM_SHIFT, 4);
  const bool remote = field(v, PERF_MEM_REMOTE_SHIFT, 1) & PERF_MEM_REMOTE_REMOTE;

  // Linux writes LOAD for an op that loads, whether or not it also stores
  // (IBS reports both for a read-modify-write), and STORE for one that
  // only stores.
  const bool load = op & PERF_MEM_OP_LOAD, store = op & PERF_MEM_OP_STORE;
  decide(r, condition("load"), load);
  if (!load) decide(r, condition("store"), store);
  // Linux leaves every other field NA for an op that is neither.
  if (!load && !store) return r;
  decide(r, condition("mem.locked"), lock & PERF_MEM_LOCK_LOCKED);

  // DTLB: Linux reports it only with a valid linear address.
  if (!(tlb & PERF_MEM_TLB_NA) && (tlb & (PERF_MEM_TLB_L1 | PERF_MEM_TLB_L2))) {
    decide(r, condition("dc.lin_addr_valid"), true);
    const bool l1_hit = (tlb & PERF_MEM_TLB_L1) && (tlb & PERF_MEM_TLB_HIT);
    decide(r, condition("dtlb.l1_miss"), !l1_hit);
    if (!l1_hit) decide(r, condition("dtlb.l2_miss"), tlb & PERF_MEM_TLB_MISS);
  }

  const bool hit = lvl & PERF_MEM_LVL_HIT;
  if (lvl & PERF_MEM_LVL_UNC) {
    // Checked first: an uncached access's DcMiss, L2Miss and DataSrc are not valid.
    decide(r, condition("mem.uncacheable"), true);
    decide(r, condition("nb.valid"), false);
    return r;
  }
  // Past this point an access may still be uncacheable when its data
  // source said I/O, which Linux lets through: mem.uncacheable is decided
  // false only with a source that is not I/O.
  if ((lvl & PERF_MEM_LVL_L1) && hit) {
    decide(r, condition("dc.miss"), false);
    return r;
  }
  decide(r, condition("dc.miss"), true);
  if ((lvl & PERF_MEM_LVL_L2) && hit) {
    decide(r, condition("l2.miss"), false);
    return r;
  }
  // From here the load missed the L2 (but for erratum #1293, which lands
  // in the last two cases: L2Miss stays undecided there).
  const bool io = (lvl & PERF_MEM_LVL_IO) || lvl_num == PERF_MEM_LVLNUM_IO;
  const bool named = lvl & (PERF_MEM_LVL_L3 | PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2 | PERF_MEM_LVL_LOC_RAM |
                            PERF_MEM_LVL_REM_RAM1);
  if (!io && (named || lvl_num == PERF_MEM_LVLNUM_PMEM || lvl_num == PERF_MEM_LVLNUM_CXL))
    decide(r, condition("mem.uncacheable"), false);
  auto missed_l2 = [&] { decide(r, condition("l2.miss"), true); };
  if ((lvl & PERF_MEM_LVL_L3) && (lvl & PERF_MEM_LVL_REM_CCE1)) {
    // Zen 1-3's local node cache: the L3 or another core's cache.
    missed_l2();
    source(r, {condition("nb.valid")});
    r.observed.erase(ConditionSet{condition("src.l3"), condition("src.cache")});
    r.conditions = r.conditions & r.observed;
  } else if (lvl & PERF_MEM_LVL_L3) {
    missed_l2();
    source(r, {condition("nb.valid"), condition("src.l3")});
  } else if (lvl & PERF_MEM_LVL_REM_CCE1) {
    missed_l2();
    source(r, {condition("nb.valid"), condition("src.cache")});
  } else if (lvl & PERF_MEM_LVL_REM_CCE2) {
    missed_l2();
    source(r, {condition("nb.valid"), condition("src.cache"), condition("src.remote")});
  } else if (lvl & (PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_REM_RAM1)) {
    missed_l2();
    source(r, {condition("nb.valid"), condition("src.dram")});
    decide(r, condition("src.remote"), lvl & PERF_MEM_LVL_REM_RAM1);
  } else if (lvl_num == PERF_MEM_LVLNUM_PMEM || lvl_num == PERF_MEM_LVLNUM_CXL || io) {
    missed_l2();
    source(r, {condition("nb.valid"), lvl_num == PERF_MEM_LVLNUM_PMEM ? condition("src.pmem")
                                      : lvl_num == PERF_MEM_LVLNUM_CXL ? condition("src.cxl")
                                                                       : condition("src.io")});
    decide(r, condition("src.remote"), remote);
  } else {
    // LFB (the miss allocated no MAB) or NA: no data source Linux names.
    // A store has none; a load may have had one Linux has no level for
    // (Zen 4's source 12, memory of another processor type).
    if (!load) decide(r, condition("nb.valid"), false);
    decide(r, condition("dc.miss_no_mab"), (lvl & PERF_MEM_LVL_LFB) && hit);
    return r;
  }
  // A Modified line from a peer cache (Linux reports no other state): the
  // line's state is known when a snoop result is, and Modified only with HITM.
  if (snoop & (PERF_MEM_SNOOP_HITM | PERF_MEM_SNOOP_HIT | PERF_MEM_SNOOP_MISS | PERF_MEM_SNOOP_NONE)) {
    decide(r, condition("src.cache_modified"), snoop & PERF_MEM_SNOOP_HITM);
    if (snoop & PERF_MEM_SNOOP_HITM) decide(r, condition("src.cache_owned"), false);
  }
  return r;
}

}  // namespace tagop
