// perf c2c's terms of a sample's access (data_access.hpp).

#include "data_access.hpp"

#include <linux/perf_event.h>  // PERF_MEM_*

#include <tagop/conditions.hpp>  // condition

namespace tagop::report {

// A load or a store; an L1 miss, a load
// served past the L1 (an L1 hit is LVL_L1 with LVL_HIT; a fill buffer
// hit counts as a miss: the line was on its way) or a store LVL_L1 with
// LVL_MISS; HITM, a snoop that found the line Modified; remote, from
// another node's cache (LVL_REM_CCE1/2, or the remote bit).
std::uint64_t data_src_access(std::uint64_t v) {
  const std::uint64_t op = v >> PERF_MEM_OP_SHIFT & 0x1F, lvl = v >> PERF_MEM_LVL_SHIFT & 0x3FFF;
  const std::uint64_t snoop = v >> PERF_MEM_SNOOP_SHIFT & 0x1F, remote = v >> PERF_MEM_REMOTE_SHIFT & 1;
  std::uint64_t out = 0;
  if (op & PERF_MEM_OP_LOAD) {
    out |= DataAccess::load;
    const bool l1_hit = (lvl & PERF_MEM_LVL_L1) && (lvl & PERF_MEM_LVL_HIT);
    if (!(lvl & PERF_MEM_LVL_NA) && lvl && !l1_hit) out |= DataAccess::l1_miss;
  } else if (op & PERF_MEM_OP_STORE) {
    out |= DataAccess::store;
    if ((lvl & PERF_MEM_LVL_L1) && (lvl & PERF_MEM_LVL_MISS)) out |= DataAccess::l1_miss;
  }
  if (snoop & PERF_MEM_SNOOP_HITM) out |= DataAccess::hitm;
  if ((lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2)) || remote) out |= DataAccess::remote;
  return out;
}

std::uint64_t ibs_access(const ConditionSet& c) {
  std::uint64_t out = 0;
  if (c.contains(condition("load"))) out |= DataAccess::load;
  else if (c.contains(condition("store"))) out |= DataAccess::store;
  if (c.contains(condition("dc.miss"))) out |= DataAccess::l1_miss;
  if (c.contains(condition("src.cache_modified"))) out |= DataAccess::hitm;
  if (c.contains(condition("src.remote"))) out |= DataAccess::remote;
  return out;
}

}  // namespace tagop::report
