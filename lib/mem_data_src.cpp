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

// Where the data came from, as one of the levels the vendors' kernels
// write: by the mem_lvl bits where they name one (AMD writes them alone up
// to Linux 6.3, with mem_lvl_num after; Intel and Arm write both), else by
// mem_lvl_num (Intel's Skylake and later tables name some levels only
// there: pebs_data_source[0x08..0x0d] after intel_pmu_pebs_data_source_skl()).
enum class Level {
  none,        // nothing named (NA, or no field set)
  l1,
  lfb,         // a fill buffer (Intel LFB, AMD's miss without a MAB)
  l2,
  l2_mhb,      // LVLNUM_L2_MHB: L2's miss handling buffer
  l3,
  l3_or_peer,  // AMD Zen 1-3: the L3 or another core's cache of this node
  peer_cache,  // another core's cache (of another node when remote)
  any_cache,   // LVLNUM_ANY_CACHE: some cache, not said which
  l4,          // LVLNUM_L4 (eDRAM) and LVLNUM_MSC (memory-side cache)
  dram,
  pmem,
  cxl,
  io,
  uncached,
};

// Linux's newer lvl_num values, not in every uapi header yet.
constexpr std::uint64_t lvlnum_l2_mhb = 0x05, lvlnum_msc = 0x06, lvlnum_unc = 0x08;

Level level_of(std::uint64_t lvl, std::uint64_t lvl_num) {
  if (lvl & PERF_MEM_LVL_UNC) return Level::uncached;
  // AMD's hit (Arm's generic SPE writes these two with MISS for an LLC
  // miss that went to another socket).
  if ((lvl & PERF_MEM_LVL_L3) && (lvl & PERF_MEM_LVL_REM_CCE1) && (lvl & PERF_MEM_LVL_HIT)) return Level::l3_or_peer;
  if (lvl & PERF_MEM_LVL_L1) return Level::l1;
  if (lvl & PERF_MEM_LVL_LFB) return Level::lfb;
  if (lvl & PERF_MEM_LVL_L2) return Level::l2;
  if (lvl & PERF_MEM_LVL_L3) return Level::l3;
  if (lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2)) return Level::peer_cache;
  if (lvl & (PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2)) return Level::dram;
  if (lvl & PERF_MEM_LVL_IO) return Level::io;
  switch (lvl_num) {
    case PERF_MEM_LVLNUM_L1: return Level::l1;
    case PERF_MEM_LVLNUM_L2: return Level::l2;
    case lvlnum_l2_mhb: return Level::l2_mhb;
    case PERF_MEM_LVLNUM_L3: return Level::l3;
    case PERF_MEM_LVLNUM_L4:
    case lvlnum_msc: return Level::l4;
    case lvlnum_unc: return Level::uncached;
    case PERF_MEM_LVLNUM_CXL: return Level::cxl;
    case PERF_MEM_LVLNUM_IO: return Level::io;
    case PERF_MEM_LVLNUM_ANY_CACHE: return Level::any_cache;
    case PERF_MEM_LVLNUM_LFB: return Level::lfb;
    case PERF_MEM_LVLNUM_RAM: return Level::dram;
    case PERF_MEM_LVLNUM_PMEM: return Level::pmem;
    default: return Level::none;
  }
}

// The DTLB field. Its values mean different things by vendor, so each is
// read for what all who write it agree on: AMD's L1|HIT (an L1 DTLB hit),
// L2|HIT (an L1 miss that hit the L2 DTLB) and L2|MISS (both missed);
// Intel's L1|L2|HIT on loads (no STLB miss: L1 or L2) and L2|HIT on stores
// (no STLB miss, the L1 DTLB not said), L2|MISS (an STLB miss); Arm SPE's
// WK|HIT (no walk) and WK|MISS (a walk). So L2|HIT decides only that the
// L2 DTLB did not miss.
void read_tlb(DataSrcReading& r, std::uint64_t tlb) {
  if (tlb & PERF_MEM_TLB_NA) return;
  const bool hit = tlb & PERF_MEM_TLB_HIT, miss = tlb & PERF_MEM_TLB_MISS;
  if (!(tlb & (PERF_MEM_TLB_L1 | PERF_MEM_TLB_L2 | PERF_MEM_TLB_WK)) || hit == miss) return;
  decide(r, condition("dc.lin_addr_valid"), true);
  if (miss) {
    decide(r, condition("dtlb.l1_miss"), true);
    decide(r, condition("dtlb.l2_miss"), true);
    return;
  }
  // AMD's L1 hit says nothing of the L2 DTLB (IBS's DcL2TlbMiss counts
  // only after an L1 miss).
  if ((tlb & PERF_MEM_TLB_L1) && !(tlb & PERF_MEM_TLB_L2)) decide(r, condition("dtlb.l1_miss"), false);
  else decide(r, condition("dtlb.l2_miss"), false);
}

}  // namespace

DataSrcReading read_data_src(std::uint64_t v) {
  DataSrcReading r;
  // The field widths of union perf_mem_data_src.
  const std::uint64_t op = field(v, PERF_MEM_OP_SHIFT, 5), lvl = field(v, PERF_MEM_LVL_SHIFT, 14);
  const std::uint64_t snoop = field(v, PERF_MEM_SNOOP_SHIFT, 5), lock = field(v, PERF_MEM_LOCK_SHIFT, 2);
  const std::uint64_t tlb = field(v, PERF_MEM_TLB_SHIFT, 7), lvl_num = field(v, PERF_MEM_LVLNUM_SHIFT, 4);
  const std::uint64_t snoopx = field(v, PERF_MEM_SNOOPX_SHIFT, 2), hops = field(v, PERF_MEM_HOPS_SHIFT, 3);
  // Another node: the remote bit, but for HOPS_0, "remote core, same
  // node" (AMD's peer cache of another CCX, Linux 6.4 on). Intel writes
  // the bit alone for another socket, AMD with HOPS_1 and up.
  const bool remote = (field(v, PERF_MEM_REMOTE_SHIFT, 1) & PERF_MEM_REMOTE_REMOTE) && hops != PERF_MEM_HOPS_0;

  // Linux writes LOAD for an op that loads, whether or not it also stores
  // (IBS reports both for a read-modify-write), and STORE for one that
  // only stores.
  const bool load = op & PERF_MEM_OP_LOAD, store = op & PERF_MEM_OP_STORE;
  decide(r, condition("load"), load);
  if (!load) decide(r, condition("store"), store);
  // Linux leaves every other field NA for an op that is neither.
  if (!load && !store) return r;
  // LOCKED, or not: where the DTLB field names a level (AMD with a valid
  // linear address, Intel from Sandy Bridge on). AMD writes NA for "not
  // locked", Intel 0; but Nehalem and Haswell's precise memory events
  // write NA for "not known", and Arm's SPE never says: no DTLB level
  // there, so undecided.
  if ((lock & PERF_MEM_LOCK_LOCKED) || ((tlb & (PERF_MEM_TLB_L1 | PERF_MEM_TLB_L2)) && !(tlb & PERF_MEM_TLB_NA)))
    decide(r, condition("mem.locked"), lock & PERF_MEM_LOCK_LOCKED);
  read_tlb(r, tlb);

  const bool hit = lvl & PERF_MEM_LVL_HIT, miss = (lvl & PERF_MEM_LVL_MISS) && !hit;
  const Level level = level_of(lvl, lvl_num);
  if (level == Level::uncached) {
    // Checked first: an uncached access's DcMiss, L2Miss and DataSrc are not valid.
    decide(r, condition("mem.uncacheable"), true);
    decide(r, condition("nb.valid"), false);
    return r;
  }
  switch (level) {
    case Level::none:
      // NA: AMD writes it for a miss without a source, Intel (Haswell's
      // precise memory events) for a load it says nothing of: no level.
      return r;
    case Level::l1:
      // Intel's stores and Arm's generic SPE name L1 with MISS: a miss,
      // nothing more said.
      decide(r, condition("dc.miss"), miss);
      return r;
    case Level::lfb:
      // A miss that found its line already on its way (AMD: allocated no
      // MAB). A store has no data source (AMD); a load may have had one
      // Linux has no level for (Zen 4's source 12, memory of another
      // processor type).
      decide(r, condition("dc.miss"), true);
      if (!load) decide(r, condition("nb.valid"), false);
      decide(r, condition("dc.miss_no_mab"), true);
      return r;
    case Level::l2:
      decide(r, condition("dc.miss"), true);
      decide(r, condition("l2.miss"), miss);
      return r;
    case Level::l2_mhb:
      decide(r, condition("dc.miss"), true);
      return r;
    default: break;
  }
  // From here the load missed the L2.
  decide(r, condition("dc.miss"), true);
  decide(r, condition("l2.miss"), true);
  if (miss && level == Level::l3) {
    // Intel's "unknown L3 miss" (pebs_data_source[0]), Arm's LLC miss:
    // not the L3, and nothing said of where from.
    decide(r, condition("src.l3"), false);
    decide(r, condition("l3.miss"), true);
    return r;
  }
  // Past this point an access may still be uncacheable when its data
  // source said I/O, which Linux lets through: mem.uncacheable is decided
  // false only with a source that is not I/O.
  if (level != Level::io) decide(r, condition("mem.uncacheable"), false);
  switch (level) {
    case Level::l3_or_peer:
      // Zen 1-3's local node cache: the L3 or another core's cache. Arm's
      // generic SPE writes the same bits for an LLC hit of a remote
      // access: of this node only with AMD's HOPS_0 (Linux 6.4 on).
      source(r, {condition("nb.valid")});
      r.observed.erase(ConditionSet{condition("src.l3"), condition("src.cache")});
      if (hops != PERF_MEM_HOPS_0) r.observed.erase(condition("src.remote"));
      r.conditions = r.conditions & r.observed;
      break;
    case Level::l3:
      if (remote) source(r, {condition("nb.valid"), condition("src.cache"), condition("src.remote")});
      else source(r, {condition("nb.valid"), condition("src.l3")});
      break;
    case Level::peer_cache:
      source(r, {condition("nb.valid"), condition("src.cache")});
      decide(r, condition("src.remote"), remote || (lvl & PERF_MEM_LVL_REM_CCE2));
      break;
    case Level::any_cache:
      // Some cache: of another node (Intel's remote forward and HITM), or
      // of this one (the L3 or a peer's, not said which).
      decide(r, condition("nb.valid"), true);
      for (Condition c : {condition("src.dram"), condition("src.io"), condition("src.pmem"), condition("src.cxl")})
        decide(r, c, false);
      decide(r, condition("src.remote"), remote);
      if (remote) decide(r, condition("src.cache"), true);
      break;
    case Level::l4:
      // Beyond the L3, before memory: no source of the vocabulary.
      decide(r, condition("src.l3"), false);
      return r;
    case Level::dram:
      source(r, {condition("nb.valid"), condition("src.dram")});
      decide(r, condition("src.remote"), remote || (lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2)));
      break;
    case Level::pmem: source(r, {condition("nb.valid"), condition("src.pmem")}); decide(r, condition("src.remote"), remote); break;
    case Level::cxl: source(r, {condition("nb.valid"), condition("src.cxl")}); decide(r, condition("src.remote"), remote); break;
    case Level::io:
      // RmtNode is for memory only (AMD's RMT_NODE_APPLICABLE).
      source(r, {condition("nb.valid"), condition("src.io")});
      decide(r, condition("src.remote"), remote);
      break;
    default: break;
  }
  // The line's state, where a snoop result says it: HITM a Modified line
  // (not Owned), another result (a hit, a miss, none, a forward) one that
  // was not Modified. Arm's transfer from a peer says no state.
  if (snoop & (PERF_MEM_SNOOP_HITM | PERF_MEM_SNOOP_HIT | PERF_MEM_SNOOP_MISS | PERF_MEM_SNOOP_NONE) ||
      (snoopx & PERF_MEM_SNOOPX_FWD)) {
    decide(r, condition("src.cache_modified"), snoop & PERF_MEM_SNOOP_HITM);
    if (snoop & PERF_MEM_SNOOP_HITM) decide(r, condition("src.cache_owned"), false);
  }
  return r;
}

ConditionSet data_src_conditions() {
  ConditionSet all;
  for (const char* name : {"load", "store", "mem.locked", "dc.lin_addr_valid", "dtlb.l1_miss", "dtlb.l2_miss",
                           "dc.miss", "dc.miss_no_mab", "l2.miss", "l3.miss", "nb.valid", "src.l3", "src.cache",
                           "src.dram", "src.io", "src.pmem", "src.cxl", "src.remote", "src.cache_modified",
                           "src.cache_owned", "mem.uncacheable"})
    all.insert(*find_condition(name));
  return all;
}

}  // namespace tagop
