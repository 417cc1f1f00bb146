// Arm SPE derived events, as data: questions asked of SPE's sampled
// operations, in the style of IBS's derived events.
//
// One row per event: its name, the perf --itrace event that synthesises
// the same samples where perf has one (perf's arm-spe.c: l1d-miss,
// l1d-access, llc-miss, llc-access, tlb-miss, tlb-access, branch-miss,
// remote-access, memory), its predicate over the condition vocabulary
// (lib/tagop/conditions.hpp, applied to every SPE sample), the measure a
// latency event sums, and what it means. The mapping of packets to
// conditions is backends/arm_spe/model.cpp's.
//
// perf's events are over all sampled operations, retired or not, as
// these are unless they say "retired". perf synthesises an event for any
// record with its SPE event bit; the predicates ask it of loads and stores
// (branches for branch-miss), the ops the Arm ARM sets the bits for. perf's
// l1d-access, llc-access and tlb-access have no row: the model has no
// condition for "looked up the cache" or "looked up the TLB".
//
// Included once, by backends/arm_spe/derived_events.cpp.

constexpr SpeEventSpec spe_event_table[] = {
    {"SPE op samples", "", "op", "", "every sampled operation, retired or not"},
    {"SPE retired ops", "", "!op.not_retired", "", "sampled operations that retired"},
    {"SPE ops not retired", "", "op.not_retired", "",
     "sampled operations discarded after speculation (the Retired event clear)"},
    {"SPE memory ops", "memory", "load | store", "", "sampled loads and stores (perf's memory samples)"},
    {"SPE load ops", "", "load", "", "sampled loads"},
    {"SPE store ops", "", "store", "", "sampled stores"},
    {"SPE retired loads", "", "load & !op.not_retired", "", "sampled loads that retired"},
    {"SPE L1D refill ops", "l1d-miss", "(load | store) & dc.miss", "",
     "sampled loads and stores that missed the L1 data cache (L1D refill event)"},
    {"SPE L1D refill loads", "", "load & dc.miss", "", "sampled loads that missed the L1 data cache"},
    {"SPE L1D refill stores", "", "store & dc.miss", "", "sampled stores that missed the L1 data cache"},
    {"SPE LLC refill ops", "llc-miss", "(load | store) & l3.miss", "",
     "sampled loads and stores that missed the last-level cache (LLC refill event)"},
    {"SPE LLC refill loads", "", "load & l3.miss", "", "sampled loads that missed the last-level cache"},
    {"SPE TLB walk ops", "tlb-miss", "(load | store) & dtlb.l2_miss", "",
     "sampled loads and stores whose translation needed a table walk (TLB walk event)"},
    {"SPE TLB walk loads", "", "load & dtlb.l2_miss", "", "sampled loads whose translation needed a table walk"},
    {"SPE misaligned accesses", "", "(load | store) & mem.misaligned", "",
     "sampled loads and stores that were misaligned (alignment event)"},
    {"SPE remote accesses", "remote-access", "(load | store) & src.remote", "",
     "sampled loads and stores whose data came from another socket"},
    {"SPE loads beyond the L2", "", "load & l2.miss", "",
     "sampled loads whose data came from past the core's L2 (Neoverse data source)"},
    {"SPE loads from another core's cache", "", "load & src.cache", "",
     "sampled loads served by another core's cache: peer core, local or peer cluster (Neoverse data source)"},
    {"SPE loads from the system cache", "", "load & src.l3", "",
     "sampled loads served by the system level cache (Neoverse data source)"},
    {"SPE loads from DRAM", "", "load & src.dram", "", "sampled loads served by local DRAM (Neoverse data source)"},
    {"SPE branch ops", "", "branch", "", "sampled branches and exception returns"},
    {"SPE conditional branches", "", "branch.conditional", "", "sampled conditional branches"},
    {"SPE indirect branches", "", "branch.indirect", "", "sampled indirect branches"},
    {"SPE taken branches", "", "branch.taken", "", "sampled branches that were taken (the not-taken event clear)"},
    {"SPE mispredicted branches", "branch-miss", "branch.mispredicted", "", "sampled branches that were mispredicted"},
    {"SPE total latency", "", "op", "op.total_latency", "cycles from dispatch to completion, summed over every sample"},
    {"SPE load total latency", "", "load", "op.total_latency", "cycles from dispatch to completion, summed over loads"},
    {"SPE L1D refill load latency", "", "load & dc.miss", "op.total_latency",
     "cycles from dispatch to completion, summed over loads that missed the L1 data cache"},
    {"SPE issue latency", "", "op", "op.issue_latency", "cycles from dispatch to issue, summed over every sample"},
    {"SPE translation latency", "", "load | store", "mem.translation_latency",
     "cycles to translate the data address, summed over loads and stores"},
};
